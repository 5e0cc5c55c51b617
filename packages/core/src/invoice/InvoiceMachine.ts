/**
 * The invoice state machine, as pure functions: `(state, command, now) → Either<error, {state,
 * changes}>`. Transitions as the reference platform has them:
 *
 * | from | command | guard | to |
 * |---|---|---|---|
 * | unpaid | StartPayment | before `dueDate`, no payment in flight | unpaid (payment in flight) |
 * | unpaid | SettlePayment captured | the payment in flight | paid |
 * | unpaid | SettlePayment failed/cancelled | the payment in flight | unpaid, open again (cancelled "overdue" if past due) |
 * | unpaid | Rescind(reason) | no payment in flight (`invoicePaymentPending`), before `dueDate` | cancelled(reason) |
 * | paid | Fulfill(reason) | | fulfilled(reason) |
 * | unpaid | Expire | at or after `dueDate`, no payment in flight | cancelled("overdue") |
 *
 * Anything else is `invalidInvoiceStatus` (Expire is then a no-op).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import { BusinessError } from "../Errors.js"
import type { InvoiceStatus } from "./Invoice.js"
import type { InvoiceChange } from "./InvoiceChange.js"

/** @since 0.1.0 @category models */
export interface InvoiceState {
  readonly status: InvoiceStatus
  readonly reason?: string | undefined
  readonly activePaymentID: string | undefined
  readonly dueDate: Date
}

/** @since 0.1.0 @category models */
export type InvoiceCommand = Data.TaggedEnum<{
  Fulfill: { readonly reason: string }
  Rescind: { readonly reason: string }
  Expire: {}
  StartPayment: { readonly paymentID: string }
  SettlePayment: { readonly paymentID: string; readonly outcome: "captured" | "failed" | "cancelled" }
}>

/** @since 0.1.0 @category constructors */
export const InvoiceCommand = Data.taggedEnum<InvoiceCommand>()

/** @since 0.1.0 @category models */
export interface Decision {
  readonly state: InvoiceState
  readonly changes: ReadonlyArray<InvoiceChange>
}

/** The reason an invoice cancelled at its due date carries. @since 0.1.0 */
export const OVERDUE = "overdue"

const unchanged = (state: InvoiceState): Either.Either<Decision, BusinessError> => Either.right({ state, changes: [] })

const moveTo = (state: InvoiceState, status: InvoiceStatus, reason?: string): Decision => ({
  state: { ...state, status, reason, activePaymentID: undefined },
  changes: [
    reason === undefined
      ? { changeType: "InvoiceStatusChanged", status }
      : { changeType: "InvoiceStatusChanged", status, reason }
  ]
})

const wrongStatus = (state: InvoiceState, action: string) =>
  Either.left(BusinessError.of("invalidInvoiceStatus", `Cannot ${action} an invoice in status ${state.status}`))

const pending = (state: InvoiceState) =>
  Either.left(BusinessError.of("invoicePaymentPending", `Payment ${state.activePaymentID} of the invoice is in progress`))

/** @since 0.1.0 */
export const decide = (state: InvoiceState, command: InvoiceCommand, now: Date): Either.Either<Decision, BusinessError> => {
  const overdue = now.getTime() >= state.dueDate.getTime()
  switch (command._tag) {
    case "Fulfill":
      return state.status === "paid" ? Either.right(moveTo(state, "fulfilled", command.reason)) : wrongStatus(state, "fulfill")
    case "Rescind":
      if (state.status !== "unpaid") return wrongStatus(state, "rescind")
      if (state.activePaymentID !== undefined) return pending(state)
      if (overdue) return Either.left(BusinessError.of("invalidInvoiceStatus", "The invoice is past its due date"))
      return Either.right(moveTo(state, "cancelled", command.reason))
    case "Expire":
      return state.status === "unpaid" && state.activePaymentID === undefined && overdue
        ? Either.right(moveTo(state, "cancelled", OVERDUE))
        : unchanged(state)
    case "StartPayment":
      if (state.status !== "unpaid") return wrongStatus(state, "pay")
      if (state.activePaymentID !== undefined) return pending(state)
      if (overdue) return Either.left(BusinessError.of("invalidInvoiceStatus", "The invoice is past its due date"))
      return Either.right({ state: { ...state, activePaymentID: command.paymentID }, changes: [] })
    case "SettlePayment":
      if (state.activePaymentID !== command.paymentID) return unchanged(state)
      if (command.outcome === "captured") return Either.right(moveTo(state, "paid"))
      return overdue
        ? Either.right(moveTo(state, "cancelled", OVERDUE))
        : Either.right({ state: { ...state, activePaymentID: undefined }, changes: [] })
  }
}

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<InvoiceStatus, ReadonlyArray<InvoiceStatus>>> = {
  unpaid: ["paid", "cancelled"],
  paid: ["fulfilled"],
  cancelled: [],
  fulfilled: []
}
