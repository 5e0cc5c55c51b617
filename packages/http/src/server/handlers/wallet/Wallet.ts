/**
 * The wallet and card-token interfaces' handlers, as one layer.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as BankCards from "./BankCards.js"
import * as Currencies from "./Currencies.js"
import * as Deposits from "./Deposits.js"
import * as Downloads from "./Downloads.js"
import * as Identities from "./Identities.js"
import * as Providers from "./Providers.js"
import * as Reports from "./Reports.js"
import * as Residences from "./Residences.js"
import * as Transfers from "./Transfers.js"
import * as Wallets from "./Wallets.js"
import * as Webhooks from "./Webhooks.js"
import * as Withdrawals from "./Withdrawals.js"

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(
  Identities.layer,
  Providers.layer,
  Wallets.layer,
  Withdrawals.layer,
  Deposits.layer,
  Transfers.layer,
  Reports.layer,
  Downloads.layer,
  Webhooks.layer,
  Currencies.layer,
  Residences.layer,
  BankCards.layer
)
