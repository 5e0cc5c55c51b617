/**
 * Every port core's services store through, in memory, over one `MemoryStore`: what service
 * tests, property tests and embedders' tests run on. The ports that are no storage (the
 * acquirer, access tokens, webhook key pairs and URL guard, search token codes) are the
 * adapters' to give.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as MemoryApiKeys from "./MemoryApiKeys.js"
import * as MemoryBankCardTokens from "./MemoryBankCardTokens.js"
import * as MemoryCardVault from "./MemoryCardVault.js"
import * as MemoryContracts from "./MemoryContracts.js"
import * as MemoryCustomers from "./MemoryCustomers.js"
import * as MemoryDeliveryQueue from "./MemoryDeliveryQueue.js"
import * as MemoryDeposits from "./MemoryDeposits.js"
import * as MemoryDestinations from "./MemoryDestinations.js"
import * as MemoryEventLog from "./MemoryEventLog.js"
import * as MemoryIdempotency from "./MemoryIdempotency.js"
import * as MemoryIdentities from "./MemoryIdentities.js"
import * as MemoryIds from "./MemoryIds.js"
import * as MemoryInvoiceHistories from "./MemoryInvoiceHistories.js"
import * as MemoryInvoices from "./MemoryInvoices.js"
import * as MemoryInvoiceTemplates from "./MemoryInvoiceTemplates.js"
import * as MemoryLedger from "./MemoryLedger.js"
import * as MemoryParties from "./MemoryParties.js"
import * as MemoryPayments from "./MemoryPayments.js"
import * as MemoryProviderTerms from "./MemoryProviderTerms.js"
import * as MemoryReferenceData from "./MemoryReferenceData.js"
import * as MemoryRefunds from "./MemoryRefunds.js"
import * as MemorySearch from "./MemorySearch.js"
import * as MemoryShops from "./MemoryShops.js"
import * as MemoryStore from "./MemoryStore.js"
import * as MemoryTimers from "./MemoryTimers.js"
import * as MemoryTransactions from "./MemoryTransactions.js"
import * as MemoryReports from "./MemoryReports.js"
import * as MemoryW2WTransfers from "./MemoryW2WTransfers.js"
import * as MemoryWalletGrants from "./MemoryWalletGrants.js"
import * as MemoryWallets from "./MemoryWallets.js"
import * as MemoryWalletWebhooks from "./MemoryWalletWebhooks.js"
import * as MemoryWebhookKeys from "./MemoryWebhookKeys.js"
import * as MemoryWebhooks from "./MemoryWebhooks.js"
import * as MemoryWithdrawals from "./MemoryWithdrawals.js"

/** @since 0.1.0 @category models */
export interface Options {
  /** The reference data set served (the adapters ship the one their migrations load). */
  readonly reference: MemoryReferenceData.ReferenceSet
  readonly timers?: MemoryTimers.Options | undefined
}

/** The storage ports on a store given from outside (`MemoryStore.MemoryStore`). @since 0.1.0 @category layers */
export const storage = (options: Options) =>
  Layer.mergeAll(
    MemoryParties.layerMemory,
    MemoryShops.layerMemory,
    MemoryContracts.layerMemory,
    MemoryInvoices.layerMemory,
    MemoryInvoiceTemplates.layerMemory,
    MemoryPayments.layerMemory,
    MemoryRefunds.layerMemory,
    MemoryCustomers.layerMemory,
    MemoryLedger.layerMemory,
    MemoryApiKeys.layerMemory,
    MemoryEventLog.layerMemory,
    MemoryIdempotency.layerMemory,
    MemoryTransactions.layerMemory,
    MemoryWebhooks.layerMemory,
    MemoryWebhookKeys.layerMemory,
    MemoryDeliveryQueue.layerMemory,
    MemoryInvoiceHistories.layerMemory,
    MemoryCardVault.layerMemory,
    MemoryBankCardTokens.layerMemory,
    MemorySearch.layerMemory,
    MemoryTimers.layerMemory(options.timers)
  ).pipe(
    Layer.merge(Layer.mergeAll(
      MemoryIdentities.layerMemory,
      MemoryWallets.layerMemory,
      MemoryDeposits.layerMemory,
      MemoryW2WTransfers.layerMemory,
      MemoryWalletGrants.layerMemory,
      MemoryDestinations.layerMemory,
      MemoryWithdrawals.layerMemory,
      MemoryWalletWebhooks.layerMemory,
      MemoryReports.layerMemory,
      MemoryProviderTerms.layerMemory
    )),
    Layer.merge(Layer.mergeAll(MemoryReferenceData.layerMemory(options.reference), MemoryIds.layerMemory))
  )

/**
 * Every storage port on a new, empty store (which it provides too, for tests that look inside).
 *
 * @since 0.1.0 @category layers
 */
export const layerMemory = (options: Options) => storage(options).pipe(Layer.provideMerge(MemoryStore.layer))
