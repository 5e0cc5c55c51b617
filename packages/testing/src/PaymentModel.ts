/**
 * A model of one merchant's money and statuses, for model-based tests: what each command of the
 * payment life should do (pure functions of the model), and what must hold whatever was done.
 * `ModelRunner` drives Kassa and this model side by side with fast-check's `commands`.
 *
 * The model follows the demo terms of the shipped test payment institution: a payment fee of
 * 3.5 % of the captured amount (rounded half up), a fee of 100 per refund, both taken from the
 * shop's settlement account, which a refund may not overdraw.
 *
 * @since 0.1.0
 */
import type * as TestAcquirer from "@kassa/adapters/TestAcquirer"
import type { InvoiceStatus } from "@kassa/core/invoice/Invoice"
import * as InvoiceMachine from "@kassa/core/invoice/InvoiceMachine"
import type { PaymentStatus } from "@kassa/core/payment/Payment"
import * as PaymentMachine from "@kassa/core/payment/PaymentMachine"
import type { RefundStatus } from "@kassa/core/refund/Refund"
import * as RefundMachine from "@kassa/core/refund/RefundMachine"

/** The demo terms: the fees the shipped test institution takes. @since 0.1.0 */
export const demoTerms = { paymentRateBasisPoints: 350, refundFee: 100 } as const

/** The payment fee of a captured amount under the demo terms. @since 0.1.0 */
export const paymentFee = (captured: number): number =>
  Math.min(captured, Number((BigInt(captured) * BigInt(demoTerms.paymentRateBasisPoints) + 5000n) / 10000n))

/** @since 0.1.0 @category models */
export interface ModelInvoice {
  readonly id: string
  readonly amount: number
  readonly dueAt: number
  status: InvoiceStatus
}

/** @since 0.1.0 @category models */
export interface ModelRefund {
  readonly id: string
  readonly amount: number
  status: RefundStatus
}

/** @since 0.1.0 @category models */
export interface ModelPayment {
  readonly id: string
  readonly invoice: ModelInvoice
  readonly card: TestAcquirer.TestCard
  readonly flow: "PaymentFlowInstant" | "PaymentFlowHold"
  readonly onHoldExpiration: "cancel" | "capture"
  readonly heldUntil: number | undefined
  readonly createdAt: number
  readonly recurrent: boolean
  readonly makeRecurrent: boolean
  /** The authorised amount: the invoice's. */
  readonly amount: number
  status: PaymentStatus
  captured: number
  chargedBack: number
  readonly refunds: Array<ModelRefund>
}

/** What a run knows of the merchant's Kassa. @since 0.1.0 @category models */
export interface Model {
  readonly invoices: Array<ModelInvoice>
  readonly payments: Array<ModelPayment>
  /** What the shop's settlement account holds (`own`), by the model's count. */
  shopBalance: number
  /** Money the shop gave back through chargebacks (it may overdraw the shop). */
  chargebacks: number
}

/** @since 0.1.0 @category constructors */
export const empty = (): Model => ({ invoices: [], payments: [], shopBalance: 0, chargebacks: 0 })

/** What a card authorises to, by the test acquirer's table. @since 0.1.0 */
export const authorises = (card: TestAcquirer.TestCard): "authorised" | "declined" | "challenged" | "slow" => {
  switch (card.outcome._tag) {
    case "Authorized":
    case "RefundDeclined":
      return "authorised"
    case "Declined":
      return "declined"
    case "ThreeDSecure":
      return "challenged"
    case "Slow":
      return "slow"
  }
}

/** The status a new payment reaches once its processing settled. @since 0.1.0 */
export const statusAfterCreate = (card: TestAcquirer.TestCard, flow: ModelPayment["flow"]): PaymentStatus => {
  switch (authorises(card)) {
    case "authorised":
    case "slow":
      return flow === "PaymentFlowInstant" ? "captured" : "processed"
    case "declined":
      return "failed"
    case "challenged":
      return "pending"
  }
}

/** Whether an invoice takes a new payment: unpaid, none of its payments under way. @since 0.1.0 */
export const payable = (model: Model, invoice: ModelInvoice): boolean =>
  invoice.status === "unpaid" &&
  !model.payments.some((p) => p.invoice === invoice && (p.status === "pending" || p.status === "processed"))

/** The refunds that hold or took money: all but the failed ones. @since 0.1.0 */
export const refundedOrPending = (p: ModelPayment): number =>
  p.refunds.filter((r) => r.status !== "failed").reduce((a, r) => a + r.amount, 0)

/** What a refund may still take back. @since 0.1.0 */
export const refundable = (p: ModelPayment): number => p.captured - refundedOrPending(p) - p.chargedBack

/** How a refund of `amount` ends, by the model: refused with a code, or accepted and then settled. @since 0.1.0 */
export const refundOutcome = (
  model: Model,
  p: ModelPayment,
  amount: number
): { readonly _tag: "Refused"; readonly code: string } | { readonly _tag: "Accepted"; readonly status: RefundStatus } => {
  if (p.status !== "captured") return { _tag: "Refused", code: "invalidPaymentStatus" }
  if (amount <= 0 || amount > refundable(p)) return { _tag: "Refused", code: "invoicePaymentAmountExceeded" }
  if (model.shopBalance - pendingRefunds(model) - amount - demoTerms.refundFee < 0) {
    return { _tag: "Refused", code: "insufficentAccountBalance" }
  }
  // the test acquirer declines refunds of amounts ending in 99 and of its refund-declining card
  const declined = amount % 100 === 99 || (p.card.outcome._tag === "RefundDeclined" && !p.recurrent)
  return { _tag: "Accepted", status: declined ? "failed" : "succeeded" }
}

const pendingRefunds = (model: Model) =>
  model.payments.flatMap((p) => p.refunds).filter((r) => r.status === "pending").reduce(
    (a, r) => a + r.amount + demoTerms.refundFee,
    0
  )

/** Books a capture of `amount` in the model. @since 0.1.0 */
export const capture = (model: Model, p: ModelPayment, amount: number): void => {
  p.status = "captured"
  p.captured = amount
  p.invoice.status = "paid"
  model.shopBalance += amount - paymentFee(amount)
}

/** Books a settled refund in the model. @since 0.1.0 */
export const refund = (model: Model, p: ModelPayment, r: ModelRefund): void => {
  p.refunds.push(r)
  if (r.status === "succeeded") {
    model.shopBalance -= r.amount + demoTerms.refundFee
    if (refundable(p) === 0) p.status = "refunded"
  }
}

const closure = <S extends string>(moves: Readonly<Record<S, ReadonlyArray<S>>>) => (from: S, to: S): boolean => {
  const seen = new Set<S>([from])
  const queue: Array<S> = [from]
  while (queue.length > 0) {
    for (const next of moves[queue.shift()!]) {
      if (!seen.has(next)) {
        seen.add(next)
        queue.push(next)
      }
    }
  }
  return seen.has(to)
}

/**
 * Whether a status may be observed after another: the same, or reachable by the machine's legal
 * moves (snapshots may skip the statuses in between).
 *
 * @since 0.1.0
 */
export const legal = {
  invoice: closure(InvoiceMachine.legalMoves),
  payment: closure(PaymentMachine.legalMoves),
  refund: closure(RefundMachine.legalMoves)
} as const

/**
 * What the clock moving to `now` does, by the model: unpaid invoices past due with no payment
 * under way are cancelled, holds past `heldUntil` end as their flow says, 3-D Secure challenges
 * left unanswered past `interactionTimeoutMs` fail (and their invoice, past due, is cancelled).
 *
 * @since 0.1.0
 */
export const elapse = (model: Model, now: number, interactionTimeoutMs: number): void => {
  for (const p of model.payments) {
    if (p.status === "processed" && p.heldUntil !== undefined && p.heldUntil <= now) {
      if (p.onHoldExpiration === "capture") capture(model, p, p.amount)
      else p.status = "cancelled"
    }
    if (p.status === "pending" && p.createdAt + interactionTimeoutMs <= now) p.status = "failed"
  }
  for (const invoice of model.invoices) {
    if (invoice.dueAt <= now && payable(model, invoice)) invoice.status = "cancelled"
  }
}
