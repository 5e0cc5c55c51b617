/**
 * The refund state machine, as pure functions.
 *
 * - `start` decides a new refund of a captured payment against what remains of it: the amount
 *   (by default all that remains; with a final cart, what the cart leaves), the cart, the
 *   allocation and the fee. Refusals come in the order the interface lists them.
 * - `decide` moves a refund along `legalMoves` (pending → succeeded or failed) with the acquirer's
 *   answer; an answer to a settled refund changes nothing (it can arrive twice).
 * - `refundsPayment`: the payment becomes `refunded` once nothing remains and no refund is pending.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { BusinessError } from "../Errors.js"
import { remaining, type RefundError, type RefundParams, type RefundStatus } from "./Refund.js"

/** @since 0.1.0 @category models */
export interface RefundState {
  readonly id: string
  readonly paymentID: string
  readonly status: RefundStatus
  readonly error?: RefundError | undefined
}

/** @since 0.1.0 @category models */
export type RefundCommand = Data.TaggedEnum<{
  Succeeded: {}
  Failed: { readonly error: RefundError }
}>

/** @since 0.1.0 @category constructors */
export const RefundCommand = Data.taggedEnum<RefundCommand>()

/** The change a settled refund records on its invoice. @since 0.1.0 @category models */
export interface RefundStatusChanged {
  readonly changeType: "RefundStatusChanged"
  readonly paymentID: string
  readonly refundID: string
  readonly status: RefundStatus
  readonly error?: RefundError
}

/** @since 0.1.0 @category models */
export interface Decision {
  readonly state: RefundState
  readonly changes: ReadonlyArray<RefundStatusChanged>
}

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<RefundStatus, ReadonlyArray<RefundStatus>>> = {
  pending: ["succeeded", "failed"],
  succeeded: [],
  failed: []
}

/** @since 0.1.0 */
export const decide = (state: RefundState, command: RefundCommand): Decision => {
  if (state.status !== "pending") return { state, changes: [] }
  const next: RefundState = command._tag === "Succeeded"
    ? { ...state, status: "succeeded" }
    : { ...state, status: "failed", error: command.error }
  const change: RefundStatusChanged = next.error === undefined
    ? { changeType: "RefundStatusChanged", paymentID: state.paymentID, refundID: state.id, status: next.status }
    : { changeType: "RefundStatusChanged", paymentID: state.paymentID, refundID: state.id, status: next.status, error: next.error }
  return { state: next, changes: [change] }
}

/** The payment a refund is decided against, with what already took from it. @since 0.1.0 @category models */
export interface RefundedPayment {
  readonly status: string
  /** The captured amount. */
  readonly amount: number
  readonly currency: string
  readonly shopID: string
  readonly refunds: ReadonlyArray<{ readonly amount: number; readonly status: RefundStatus }>
  readonly chargebacks: ReadonlyArray<{ readonly status: string; readonly body: number }>
}

/** The terms a refund is decided under. @since 0.1.0 @category models */
export interface RefundTerms {
  readonly fee: number
  readonly allocationAllowed: boolean
  /** The party's shops, an allocation's possible targets. */
  readonly partyShops: ReadonlySet<string>
}

/** @since 0.1.0 @category models */
export interface Started {
  readonly amount: number
  readonly cart: ReadonlyArray<Cart.InvoiceLine> | undefined
  readonly allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
  readonly fee: number
}

/** Bodies of the payment's accepted chargebacks: money no longer refundable. @since 0.1.0 */
export const chargedBackOf = (chargebacks: ReadonlyArray<{ readonly status: string; readonly body: number }>) =>
  chargebacks.filter((c) => c.status === "accepted").reduce((a, c) => a + c.body, 0)

/** What remains refundable of the payment. @since 0.1.0 */
export const remainingOf = (p: RefundedPayment) => remaining(p.amount, p.refunds, chargedBackOf(p.chargebacks))

/** @since 0.1.0 */
export const start = (
  payment: RefundedPayment,
  params: Pick<RefundParams, "amount" | "currency" | "cart" | "allocation">,
  terms: RefundTerms
): Either.Either<Started, BusinessError> => {
  const refuse = (code: BusinessError["code"], message: string) => Either.left(BusinessError.of(code, message))
  if (payment.status !== "captured") return refuse("invalidPaymentStatus", `Cannot refund a payment in status ${payment.status}`)
  if (payment.chargebacks.some((c) => c.status === "pending")) {
    return refuse("chargebackInProgress", "A chargeback of this payment is in progress")
  }
  const left = remainingOf(payment)
  if (params.currency !== undefined && params.currency !== payment.currency) {
    return refuse("inconsistentRefundCurrency", `Correct currency: ${payment.currency}`)
  }
  let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
  let amount = params.amount
  if (params.cart !== undefined) {
    const made = Cart.make(params.cart)
    if (Either.isLeft(made)) return Either.left(made.left)
    cart = made.right
    const cartTotal = Cart.total(cart) ?? 0
    amount = amount ?? left - cartTotal
    if (left - amount !== cartTotal) {
      return refuse("invalidInvoiceCart", `cart: the final cart totals ${cartTotal}, but ${left - amount} would remain`)
    }
  }
  amount = amount ?? left
  if (amount <= 0 || amount > left) return refuse("invoicePaymentAmountExceeded", `Max amount: ${left}`)
  let allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
  if (params.allocation !== undefined) {
    const made = Allocation.make(params.allocation, {
      shopID: payment.shopID,
      amount,
      currency: payment.currency,
      partyShops: terms.partyShops,
      allowed: terms.allocationAllowed
    })
    if (Either.isLeft(made)) return Either.left(made.left)
    allocation = made.right
    const total = allocation.reduce((a, t) => a + (t.allocationBodyType === "AllocationBodyAmount" ? t.amount : t.total), 0)
    if (total !== amount) return refuse("invalidAllocation", `allocation: totals ${total}, the refund is ${amount}`)
  }
  return Either.right({ amount, cart, allocation, fee: terms.fee })
}

/** Whether the payment is refunded once `payment.refunds` stand as they do. @since 0.1.0 */
export const refundsPayment = (payment: RefundedPayment): boolean =>
  payment.status === "captured" && remainingOf(payment) === 0 && payment.refunds.every((r) => r.status !== "pending")
