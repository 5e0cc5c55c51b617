/**
 * The wallet and card-token contract.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as BankCards from "./BankCards.js"
/** @since 0.1.0 */
export * as Cash from "./Cash.js"
/** @since 0.1.0 */
export * as Currencies from "./Currencies.js"
/** @since 0.1.0 */
export * as Deposits from "./Deposits.js"
/** @since 0.1.0 */
export * as Destinations from "./Destinations.js"
/** @since 0.1.0 */
export * as Envelope from "./Envelope.js"
/** @since 0.1.0 */
export * as Errors from "./Errors.js"
/** @since 0.1.0 */
export * as Identities from "./Identities.js"
/** @since 0.1.0 */
export * as Params from "./Params.js"
/** @since 0.1.0 */
export * as Providers from "./Providers.js"
/** @since 0.1.0 */
export * as Reports from "./Reports.js"
/** @since 0.1.0 */
export * as Security from "./Security.js"
/** @since 0.1.0 */
export * as Transfers from "./Transfers.js"
/** @since 0.1.0 */
export * as WalletApi from "./WalletApi.js"
/** @since 0.1.0 */
export * as Wallets from "./Wallets.js"
/** @since 0.1.0 */
export * as Webhooks from "./Webhooks.js"
/** @since 0.1.0 */
export * as Withdrawals from "./Withdrawals.js"
