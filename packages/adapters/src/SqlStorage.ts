/**
 * Every storage port on one `SqlClient` and its `SqlDriver` (both from `Database.layer`, or an
 * embedder's own client with `SqlDriver.layer` on it).
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as SqlApiKeys from "./SqlApiKeys.js"
import * as SqlBankCardTokens from "./SqlBankCardTokens.js"
import * as SqlContracts from "./SqlContracts.js"
import * as SqlCustomers from "./SqlCustomers.js"
import * as SqlDeposits from "./SqlDeposits.js"
import * as SqlEventLog from "./SqlEventLog.js"
import * as SqlIdempotency from "./SqlIdempotency.js"
import * as SqlIdentities from "./SqlIdentities.js"
import * as SqlInvoices from "./SqlInvoices.js"
import * as SqlInvoiceTemplates from "./SqlInvoiceTemplates.js"
import * as SqlLedger from "./SqlLedger.js"
import * as SqlParties from "./SqlParties.js"
import * as SqlPayments from "./SqlPayments.js"
import * as SqlProviderTerms from "./SqlProviderTerms.js"
import * as SqlReferenceData from "./SqlReferenceData.js"
import * as SqlRefunds from "./SqlRefunds.js"
import * as SqlRequestReplays from "./SqlRequestReplays.js"
import * as SqlShops from "./SqlShops.js"
import * as SqlTimers from "./SqlTimers.js"
import * as SqlTransactions from "./SqlTransactions.js"
import * as SqlReports from "./SqlReports.js"
import * as SqlW2WTransfers from "./SqlW2WTransfers.js"
import * as SqlDestinations from "./SqlDestinations.js"
import * as SqlWithdrawals from "./SqlWithdrawals.js"
import * as SqlWalletGrants from "./SqlWalletGrants.js"
import * as SqlWalletWebhooks from "./SqlWalletWebhooks.js"
import * as SqlWallets from "./SqlWallets.js"
import * as SqlWebhookKeys from "./SqlWebhookKeys.js"
import * as SqlWebhooks from "./SqlWebhooks.js"

/** @since 0.1.0 @category layers */
export const layer = (options?: SqlTimers.SchedulerOptions) =>
  Layer.mergeAll(
    SqlParties.layer,
    SqlShops.layer,
    SqlContracts.layer,
    SqlInvoices.layer,
    SqlInvoiceTemplates.layer,
    SqlPayments.layer,
    SqlBankCardTokens.layer,
    SqlRefunds.layer,
    SqlCustomers.layer,
    SqlLedger.layer,
    SqlApiKeys.layer,
    SqlReferenceData.layer,
    SqlEventLog.layer,
    SqlIdempotency.layer,
    SqlTransactions.layer,
    SqlWebhooks.layer,
    SqlWebhookKeys.layer,
    SqlTimers.layer(options)
  ).pipe(
    Layer.merge(Layer.mergeAll(SqlIdentities.layer, SqlWallets.layer, SqlDeposits.layer, SqlW2WTransfers.layer, SqlWalletGrants.layer)),
    Layer.merge(Layer.mergeAll(SqlDestinations.layer, SqlWithdrawals.layer, SqlWalletWebhooks.layer, SqlReports.layer)),
    Layer.merge(SqlProviderTerms.layer),
    (ports) => Layer.provideMerge(SqlRequestReplays.layer, ports)
  )
