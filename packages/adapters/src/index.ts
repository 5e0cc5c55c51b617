/**
 * @kassa/adapters: the world behind core's ports.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Counters from "./Counters.js"
/** @since 0.1.0 */
export * as Database from "./Database.js"
/** @since 0.1.0 */
export * as Kassa from "./Kassa.js"
/** @since 0.1.0 */
export * as Migrations from "./Migrations.js"
/** @since 0.1.0 */
export * as RandomIds from "./RandomIds.js"
/** @since 0.1.0 */
export * as SqlApiKeys from "./SqlApiKeys.js"
/** @since 0.1.0 */
export * as SqlCardVault from "./SqlCardVault.js"
/** @since 0.1.0 */
export * as SqlContracts from "./SqlContracts.js"
/** @since 0.1.0 */
export * as SqlCustomers from "./SqlCustomers.js"
/** @since 0.1.0 */
export * as SqlDriver from "./sql/driver/Driver.js"
/** @since 0.1.0 */
export * as SqlEventLog from "./SqlEventLog.js"
/** @since 0.1.0 */
export * as SqlIdempotency from "./SqlIdempotency.js"
/** @since 0.1.0 */
export * as SqlInvoices from "./SqlInvoices.js"
/** @since 0.1.0 */
export * as SqlInvoiceTemplates from "./SqlInvoiceTemplates.js"
/** @since 0.1.0 */
export * as SqlLedger from "./SqlLedger.js"
/** @since 0.1.0 */
export * as SqlParties from "./SqlParties.js"
/** @since 0.1.0 */
export * as SqlPayments from "./SqlPayments.js"
/** @since 0.1.0 */
export * as SqlReferenceData from "./SqlReferenceData.js"
/** @since 0.1.0 */
export * as SqlRefunds from "./SqlRefunds.js"
/** @since 0.1.0 */
export * as SqlRequestReplays from "./SqlRequestReplays.js"
/** @since 0.1.0 */
export * as SqlSearch from "./SqlSearch.js"
/** @since 0.1.0 */
export * as SqlShops from "./SqlShops.js"
/** @since 0.1.0 */
export * as SqlStorage from "./SqlStorage.js"
/** @since 0.1.0 */
export * as SqlTimers from "./SqlTimers.js"
/** @since 0.1.0 */
export * as SqlTransactions from "./SqlTransactions.js"
/** @since 0.1.0 */
export * as Statements from "./sql/driver/Statements.js"
/** @since 0.1.0 */
export * as TestAcquirer from "./TestAcquirer.js"
/** @since 0.1.0 */
export * as TokenKeys from "./TokenKeys.js"
/** @since 0.1.0 */
export * as SqlWebhooks from "./SqlWebhooks.js"
/** @since 0.1.0 */
export * as SqlWebhookKeys from "./SqlWebhookKeys.js"
/** @since 0.1.0 */
export * as WebhookDispatcher from "./WebhookDispatcher.js"
/** @since 0.1.0 */
export * as WebhookSignature from "./WebhookSignature.js"
/** @since 0.1.0 */
export * as Workers from "./Workers.js"
