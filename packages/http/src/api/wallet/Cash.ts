/**
 * Money on the wallet interface: `{amount, currency}` in minor units, as bodies, fees, assets and
 * balances carry it.
 *
 * @since 0.1.0
 */
import { Money } from "@kassa/core"
import * as Schema from "effect/Schema"

/**
 * An int64 amount in minor units, within the safe integer range; whether it may be zero or
 * negative is the operation's rule (answered 422), not the wire's.
 *
 * @since 0.1.0 @category schemas
 */
export const CashAmount = Schema.Int.pipe(Schema.between(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))

/** @since 0.1.0 @category schemas */
export const Cash = Schema.Struct({ amount: CashAmount, currency: Money.Currency }).annotations({ identifier: "Asset" })
/** @since 0.1.0 */
export type Cash = typeof Cash.Type

/**
 * A failure and its nested sub-failures (`{code, subError}`), as withdrawals, deposits and
 * transfers report them.
 *
 * @since 0.1.0 @category schemas
 */
export interface SubFailure {
  readonly code: string
  readonly subError?: SubFailure | undefined
}

/** @since 0.1.0 @category schemas */
export const SubFailure: Schema.Schema<SubFailure> = Schema.Struct({
  code: Schema.String,
  subError: Schema.optional(Schema.suspend((): Schema.Schema<SubFailure> => SubFailure))
}).annotations({ identifier: "SubFailure" })

/** The status every wallet operation reports: Pending, Succeeded or Failed. @since 0.1.0 @category schemas */
export const OperationStatus = Schema.Literal("Pending", "Succeeded", "Failed")
