/**
 * A wallet's ledger account and its balance as `getWalletAccount` shows it: `own` is what is
 * committed, `available` is `own` less the debits held (the ledger's min-available).
 *
 * @since 0.1.0
 */
import type { AccountKey, Balance } from "../ports/Ledger.js"
import type { WalletRecord } from "./Wallet.js"

/** @since 0.1.0 */
export const accountKey = (w: Pick<WalletRecord, "id" | "partyID" | "currency">): AccountKey => ({
  kind: "wallet",
  partyID: w.partyID,
  walletID: w.id,
  currency: w.currency
})

/** Where deposits come from and reverts go back to: the platform's source account of a currency. @since 0.1.0 */
export const sourceKey = (currency: string): AccountKey => ({ kind: "source", currency })

/** @since 0.1.0 */
export const toWalletAccount = (currency: string, balance: Pick<Balance, "own" | "minAvailable"> | undefined) => ({
  own: { amount: balance?.own ?? 0, currency },
  available: { amount: balance?.minAvailable ?? 0, currency }
})
