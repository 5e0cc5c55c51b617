/**
 * The refund: money of a captured payment going back to the payer, in full or in parts.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { DateTime } from "../Time.js"

/** @since 0.1.0 @category schemas */
export const RefundStatus = Schema.Literal("pending", "succeeded", "failed")
/** @since 0.1.0 */
export type RefundStatus = typeof RefundStatus.Type

/** @since 0.1.0 @category schemas */
export const RefundError = Schema.Struct({ code: Schema.String, message: Schema.String })
/** @since 0.1.0 */
export type RefundError = typeof RefundError.Type

/** @since 0.1.0 @category schemas */
export const Refund = Schema.Struct({
  id: Schema.String,
  externalID: Schema.optional(Schema.String),
  createdAt: DateTime,
  amount: Schema.Int,
  currency: Schema.String,
  reason: Schema.optional(Schema.String),
  cart: Schema.optional(Schema.Array(Cart.InvoiceLine)),
  allocation: Schema.optional(Schema.Array(Allocation.AllocationTransaction)),
  status: RefundStatus,
  error: Schema.optional(RefundError)
}).annotations({ identifier: "Refund" })
/** @since 0.1.0 */
export type Refund = typeof Refund.Type

/** createRefund's body: everything optional. @since 0.1.0 @category schemas */
export const RefundParams = Schema.Struct({
  externalID: Schema.optional(Identifier),
  amount: Schema.optional(Amount),
  currency: Schema.optional(Currency),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  cart: Schema.optional(Cart.CartParam),
  allocation: Schema.optional(Allocation.AllocationParams)
}).annotations({ identifier: "RefundParams" })
/** @since 0.1.0 */
export type RefundParams = typeof RefundParams.Type

/** The refund as stored. @since 0.1.0 @category models */
export interface RefundRecord extends Refund {
  readonly invoiceID: string
  readonly paymentID: string
  readonly partyID: string
  readonly shopID: string
  readonly fee: number
  readonly version: number
}

/** @since 0.1.0 */
export const toRefund = (r: RefundRecord): Refund => ({
  id: r.id,
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  createdAt: r.createdAt,
  amount: r.amount,
  currency: r.currency,
  ...(r.reason === undefined ? {} : { reason: r.reason }),
  ...(r.cart === undefined ? {} : { cart: r.cart }),
  ...(r.allocation === undefined ? {} : { allocation: r.allocation }),
  status: r.status,
  ...(r.error === undefined ? {} : { error: r.error })
})

/**
 * What remains refundable of a payment: the captured amount less the refunds that succeeded or
 * are pending and the bodies of accepted chargebacks. Never negative.
 *
 * @since 0.1.0
 */
export const remaining = (
  captured: number,
  refunds: ReadonlyArray<{ readonly amount: number; readonly status: RefundStatus }>,
  chargedBack = 0
): number =>
  Math.max(0, captured - chargedBack - refunds.filter((r) => r.status !== "failed").reduce((a, r) => a + r.amount, 0))

/** The refund changes of the invoice's events. @since 0.1.0 @category schemas */
export const RefundStarted = Schema.Struct({
  changeType: Schema.Literal("RefundStarted"),
  paymentID: Schema.String,
  refund: Refund
})

/** @since 0.1.0 @category schemas */
export const RefundStatusChanged = Schema.Struct({
  changeType: Schema.Literal("RefundStatusChanged"),
  paymentID: Schema.String,
  refundID: Schema.String,
  status: RefundStatus,
  error: Schema.optional(RefundError)
})
