/**
 * Withdrawal quotes: what an amount of the wallet's currency pays out in the destination's, at
 * Kassa's documented test rates (README, "Withdrawals"), as a signed `quoteToken` that binds the
 * party, the wallet, the destination (when named) and both amounts, and expires after
 * `QUOTE_LIFETIME_MS`. A withdrawal into another currency needs one.
 *
 * | currency | RUB per unit |
 * |---|---|
 * | RUB | 1 |
 * | USD | 90 |
 * | EUR | 100 |
 *
 * @since 0.1.0
 */
import type { Cash } from "../wallet/Wallet.js"

/** How long a quote holds. @since 0.1.0 */
export const QUOTE_LIFETIME_MS = 15 * 60_000

/** RUB per unit of each currency (all have two minor digits). @since 0.1.0 */
export const rates: Readonly<Record<string, number>> = { RUB: 1, USD: 90, EUR: 100 }

/** createQuote's body. @since 0.1.0 @category models */
export interface QuoteParams {
  readonly externalID?: string | undefined
  readonly walletID: string
  readonly destinationID?: string | undefined
  readonly currencyFrom: string
  readonly currencyTo: string
  readonly cash: Cash
  readonly walletGrant?: string | undefined
  readonly destinationGrant?: string | undefined
}

/**
 * Both sides of a quote of `cash` (in `from` or in `to`): the payer's side is rounded up, the
 * payee's down, so a quote never pays out more than it takes. None for an unknown currency.
 *
 * @since 0.1.0
 */
export const price = (from: string, to: string, cash: Cash): { readonly cashFrom: Cash; readonly cashTo: Cash } | undefined => {
  const [a, b] = [rates[from], rates[to]]
  if (a === undefined || b === undefined) return undefined
  return cash.currency === from
    ? { cashFrom: cash, cashTo: { amount: Math.floor((cash.amount * a) / b), currency: to } }
    : { cashFrom: { amount: Math.ceil((cash.amount * b) / a), currency: from }, cashTo: cash }
}
