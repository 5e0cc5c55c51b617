/**
 * @kassa/testing: layers, fixtures and clients for Kassa's tests and benchmarks.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Challenges from "./Challenges.js"
/** @since 0.1.0 */
export * as Dialects from "./Dialects.js"
/** @since 0.1.0 */
export * as Expect from "./Expect.js"
/** @since 0.1.0 */
export * as Fixtures from "./Fixtures.js"
/** @since 0.1.0 */
export * as LedgerChecks from "./LedgerChecks.js"
/** @since 0.1.0 */
export * as ModelRunner from "./ModelRunner.js"
/** @since 0.1.0 */
export * as PaymentModel from "./PaymentModel.js"
/** @since 0.1.0 */
export * as SpawnedServer from "./SpawnedServer.js"
/** @since 0.1.0 */
export * as TestDatabase from "./TestDatabase.js"
/** @since 0.1.0 */
export * as TestKassa from "./TestKassa.js"
/** @since 0.1.0 */
export * as TestServer from "./TestServer.js"
/** @since 0.1.0 */
export * as WebhookReceiver from "./WebhookReceiver.js"
/** @since 0.1.0 */
export * as Arbitraries from "./Arbitraries.js"
/** @since 0.1.0 */
export * as ArbitrariesPaymentLife from "./ArbitrariesPaymentLife.js"
