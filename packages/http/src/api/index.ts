/**
 * The wire contract, importable without any server code: tests and embedders derive a typed
 * `HttpApiClient` from `KassaApi`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Admin from "./Admin.js"
/** @since 0.1.0 */
export * as Customers from "./Customers.js"
/** @since 0.1.0 */
export * as Envelope from "./Envelope.js"
/** @since 0.1.0 */
export * as Errors from "./Errors.js"
/** @since 0.1.0 */
export * as Invoices from "./Invoices.js"
/** @since 0.1.0 */
export * as InvoiceTemplates from "./InvoiceTemplates.js"
/** @since 0.1.0 */
export * as JsonApi from "./JsonApi.js"
/** @since 0.1.0 */
export * as KassaApi from "./KassaApi.js"
/** @since 0.1.0 */
export * as Parties from "./Parties.js"
/** @since 0.1.0 */
export * as Payments from "./Payments.js"
/** @since 0.1.0 */
export * as Reference from "./Reference.js"
/** @since 0.1.0 */
export * as Refunds from "./Refunds.js"
/** @since 0.1.0 */
export * as Search from "./Search.js"
/** @since 0.1.0 */
export * as Security from "./Security.js"
/** @since 0.1.0 */
export * as Shops from "./Shops.js"
/** @since 0.1.0 */
export * as Webhooks from "./Webhooks.js"
/** @since 0.1.0 */
export * as Wallet from "./wallet/index.js"
