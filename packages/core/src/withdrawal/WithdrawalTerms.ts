/**
 * The withdrawal terms of each wallet provider: the currencies withdrawals may be made in, the
 * body's limits and the fee the wallet pays on top of the body. These are Kassa's documented
 * test terms (README, "Withdrawals"):
 *
 * | provider | currencies | body (minor units) | fee |
 * |---|---|---|---|
 * | test | RUB, USD | 100 ..= 10 000 000 | 10 + 1 % of the body, rounded up |
 * | live | RUB | 100 ..= 50 000 000 | 2 % of the body, rounded up |
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export interface WithdrawalTerms {
  readonly currencies: ReadonlyArray<string>
  readonly minAmount: number
  readonly maxAmount: number
  /** The fee: `fixed` minor units plus `shareBps` basis points of the body, rounded up. */
  readonly fee: { readonly fixed: number; readonly shareBps: number }
}

const terms: Readonly<Record<string, WithdrawalTerms>> = {
  test: { currencies: ["RUB", "USD"], minAmount: 100, maxAmount: 10_000_000, fee: { fixed: 10, shareBps: 100 } },
  live: { currencies: ["RUB"], minAmount: 100, maxAmount: 50_000_000, fee: { fixed: 0, shareBps: 200 } }
}

/** The terms of the provider `providerID`. @since 0.1.0 */
export const termsOf = (providerID: string): Option.Option<WithdrawalTerms> => Option.fromNullable(terms[providerID])

/** The fee on a body of `amount`. @since 0.1.0 */
export const feeOf = (t: WithdrawalTerms, amount: number): number => t.fee.fixed + Math.ceil((amount * t.fee.shareBps) / 10_000)
