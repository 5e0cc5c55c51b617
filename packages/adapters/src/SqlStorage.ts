/**
 * Every storage port on one `SqlClient` and its `SqlDriver` (both from `Database.layer`, or an
 * embedder's own client with `SqlDriver.layer` on it).
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as Repository from "./internal/repository.js"
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

/**
 * The repositories built in one layer (in a merge, each was a layer of its own to build at every
 * start), beside the ports with resources or background work of their own, with request replays
 * over them.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options?: SqlTimers.SchedulerOptions) =>
  Layer.mergeAll(
    Repository.layerAll([
      SqlParties.repository,
      SqlShops.repository,
      SqlContracts.repository,
      SqlInvoices.repository,
      SqlInvoiceTemplates.repository,
      SqlBankCardTokens.repository,
      SqlCustomers.repository,
      SqlLedger.repository,
      SqlApiKeys.repository,
      SqlReferenceData.repository,
      SqlEventLog.repository,
      SqlIdempotency.repository,
      SqlWebhookKeys.repository,
      SqlIdentities.repository,
      SqlWallets.repository,
      SqlDeposits.repository,
      SqlW2WTransfers.repository,
      SqlWalletGrants.repository,
      SqlDestinations.repository,
      SqlWithdrawals.repository,
      SqlWalletWebhooks.repository,
      SqlReports.repository,
      SqlProviderTerms.repository,
      ...SqlPayments.repositories,
      ...SqlRefunds.repositories
    ]),
    SqlTransactions.layer,
    SqlWebhooks.layer,
    SqlTimers.layer(options)
  ).pipe((ports) => Layer.provideMerge(SqlRequestReplays.layer, ports))
