/**
 * The payment state machine, as pure functions: `(state, command) → Either<error, {state,
 * changes}>`.
 *
 * | status | activity | command | to |
 * |---|---|---|---|
 * | pending | processing | InteractionRequested | pending / interaction |
 * | pending | interaction | InteractionCompleted | pending / processing |
 * | pending | processing, interaction | Authorized | processed / waiting (hold) or capturing (instant) |
 * | pending | processing, interaction | Declined, DeadlineReached | failed |
 * | processed | waiting | Capture (merchant; hold only) | processed / capturing |
 * | processed | waiting | Cancel (merchant; hold only) | processed / cancelling |
 * | processed | waiting | HoldExpired | capturing or cancelling, by `onHoldExpiration` |
 * | processed | capturing | Finished | captured (amount = captured amount) |
 * | processed | cancelling | Finished | cancelled |
 *
 * The merchant's commands out of place are `invalidPaymentStatus` (checked first), then
 * `operationNotPermitted` for an instant payment; the acquirer's and the timers' commands out of
 * place change nothing (they can arrive twice).
 *
 * The rules that follow a decision live here too: the platform's fee is set by the authorisation
 * and set again by a partial capture (from the fee terms the command carries); a finished capture
 * makes the capture's cart and allocation the payment's; the authorisation keeps the recurrent
 * token, a challenge its interaction id.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type * as Allocation from "../allocation/Allocation.js"
import type * as Cart from "../cart/Cart.js"
import { BusinessError } from "../Errors.js"
import { type FeeTerms, paymentFee } from "../reference/Reference.js"
import type { Activity, CaptureIntent, Flow, PaymentStatus } from "./Payment.js"
import type { PaymentChange, UserInteraction } from "./PaymentChange.js"
import * as PaymentError from "./PaymentError.js"

/** @since 0.1.0 @category models */
export interface PaymentState {
  readonly id: string
  readonly status: PaymentStatus
  readonly activity: Activity
  readonly flow: Flow
  readonly currency: string
  readonly amount: number
  readonly authorizedAmount: number
  readonly capture: CaptureIntent | undefined
  readonly cancelReason: string | undefined
  readonly error?: PaymentError.PaymentError | undefined
  readonly transactionInfo?: { readonly rrn: string; readonly approvalCode: string } | undefined
  /** The platform's fee of the amount the payment books. */
  readonly fee: number
  readonly cart?: ReadonlyArray<Cart.InvoiceLine> | undefined
  readonly allocation?: ReadonlyArray<Allocation.AllocationTransaction> | undefined
  readonly recurrentToken?: string | undefined
  readonly interactionID?: string | undefined
}

/** @since 0.1.0 @category models */
export type PaymentCommand = Data.TaggedEnum<{
  InteractionRequested: { readonly interactionID: string; readonly userInteraction: UserInteraction }
  InteractionCompleted: { readonly userInteraction: UserInteraction | undefined }
  Authorized: {
    readonly transactionInfo: { readonly rrn: string; readonly approvalCode: string }
    readonly recurrentToken: string | undefined
    readonly fees: FeeTerms
  }
  Declined: { readonly error: PaymentError.PaymentError }
  DeadlineReached: {}
  Capture: {
    readonly reason: string
    readonly amount: number | undefined
    readonly currency: string | undefined
    readonly cart: ReadonlyArray<Cart.InvoiceLine> | undefined
    readonly allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
    readonly fees: FeeTerms
  }
  Cancel: { readonly reason: string }
  HoldExpired: {}
  Finished: {}
}>

/** @since 0.1.0 @category constructors */
export const PaymentCommand = Data.taggedEnum<PaymentCommand>()

/** @since 0.1.0 @category models */
export interface Decision {
  readonly state: PaymentState
  readonly changes: ReadonlyArray<PaymentChange>
}

/** The reason an instant or auto-captured payment's capture carries. @since 0.1.0 */
export const AUTO_CAPTURE_REASON = "Timeout"

const same = (state: PaymentState): Either.Either<Decision, BusinessError> => Either.right({ state, changes: [] })

const statusChanged = (state: PaymentState): PaymentChange =>
  state.error === undefined
    ? { changeType: "PaymentStatusChanged", paymentID: state.id, status: state.status }
    : { changeType: "PaymentStatusChanged", paymentID: state.id, status: state.status, error: state.error }

const fail = (state: PaymentState, error: PaymentError.PaymentError): Decision => {
  const next: PaymentState = { ...state, status: "failed", activity: "done", error }
  return { state: next, changes: [statusChanged(next)] }
}

const merchantCommandAllowed = (state: PaymentState, action: string): Either.Either<void, BusinessError> => {
  if (state.status !== "processed" || state.activity !== "waiting") {
    return Either.left(BusinessError.of("invalidPaymentStatus", `Cannot ${action} a payment in status ${state.status}`))
  }
  if (state.flow.type !== "PaymentFlowHold") {
    return Either.left(BusinessError.of("operationNotPermitted", `Cannot ${action} an instant payment`))
  }
  return Either.void
}

const capture = (state: PaymentState, intent: CaptureIntent): Decision => ({
  state: { ...state, activity: "capturing", capture: intent },
  changes: []
})

/** @since 0.1.0 */
export const decide = (state: PaymentState, command: PaymentCommand): Either.Either<Decision, BusinessError> => {
  const authorising = state.activity === "processing" || state.activity === "interaction"
  switch (command._tag) {
    case "InteractionRequested":
      if (state.activity !== "processing") return same(state)
      return Either.right({
        state: { ...state, activity: "interaction", interactionID: command.interactionID },
        changes: [{ changeType: "PaymentInteractionRequested", paymentID: state.id, userInteraction: command.userInteraction }]
      })
    case "InteractionCompleted":
      if (state.activity !== "interaction") return same(state)
      return Either.right({
        state: { ...state, activity: "processing" },
        changes: [
          command.userInteraction === undefined
            ? { changeType: "PaymentInteractionCompleted", paymentID: state.id }
            : { changeType: "PaymentInteractionCompleted", paymentID: state.id, userInteraction: command.userInteraction }
        ]
      })
    case "Authorized": {
      if (!authorising) return same(state)
      const next: PaymentState = {
        ...state,
        status: "processed",
        activity: "waiting",
        transactionInfo: command.transactionInfo,
        recurrentToken: command.recurrentToken,
        fee: paymentFee(command.fees, state.amount)
      }
      const decision: Decision = { state: next, changes: [statusChanged(next)] }
      if (state.flow.type === "PaymentFlowInstant") {
        const captured = capture(next, { amount: state.amount, reason: AUTO_CAPTURE_REASON })
        return Either.right({ state: captured.state, changes: decision.changes })
      }
      return Either.right(decision)
    }
    case "Declined":
      return authorising ? Either.right(fail(state, command.error)) : same(state)
    case "DeadlineReached":
      return authorising
        ? Either.right(fail(state, PaymentError.of("authorization_failed", "processing_deadline_reached")))
        : same(state)
    case "Capture": {
      const allowed = merchantCommandAllowed(state, "capture")
      if (Either.isLeft(allowed)) return Either.left(allowed.left)
      if (command.currency !== undefined && command.currency !== state.currency) {
        return Either.left(BusinessError.of("inconsistentCaptureCurrency", `Correct currency: ${state.currency}`))
      }
      const amount = command.amount ?? state.authorizedAmount
      if (amount > state.authorizedAmount) {
        return Either.left(BusinessError.of("amountExceededCaptureBalance", `Max amount: ${state.authorizedAmount}`))
      }
      // a partial capture books the fee of the amount it takes
      const fee = amount === state.authorizedAmount ? state.fee : paymentFee(command.fees, amount)
      return Either.right(capture({ ...state, fee }, {
        amount,
        reason: command.reason,
        ...(command.cart === undefined ? {} : { cart: command.cart }),
        ...(command.allocation === undefined ? {} : { allocation: command.allocation })
      }))
    }
    case "Cancel": {
      const allowed = merchantCommandAllowed(state, "cancel")
      if (Either.isLeft(allowed)) return Either.left(allowed.left)
      return Either.right({ state: { ...state, activity: "cancelling", cancelReason: command.reason }, changes: [] })
    }
    case "HoldExpired":
      if (state.status !== "processed" || state.activity !== "waiting" || state.flow.type !== "PaymentFlowHold") {
        return same(state)
      }
      return Either.right(
        state.flow.onHoldExpiration === "capture"
          ? capture(state, { amount: state.authorizedAmount, reason: AUTO_CAPTURE_REASON })
          : { state: { ...state, activity: "cancelling" }, changes: [] }
      )
    case "Finished": {
      if (state.activity === "capturing" && state.capture !== undefined) {
        const { allocation, amount, cart } = state.capture
        const next: PaymentState = {
          ...state,
          status: "captured",
          activity: "done",
          amount,
          ...(cart === undefined ? {} : { cart }),
          ...(allocation === undefined ? {} : { allocation })
        }
        return Either.right({ state: next, changes: [statusChanged(next)] })
      }
      if (state.activity === "cancelling") {
        const next: PaymentState = { ...state, status: "cancelled", activity: "done" }
        return Either.right({ state: next, changes: [statusChanged(next)] })
      }
      return same(state)
    }
  }
}

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<PaymentStatus, ReadonlyArray<PaymentStatus>>> = {
  pending: ["processed", "failed"],
  processed: ["captured", "cancelled"],
  captured: ["refunded"],
  cancelled: [],
  refunded: [],
  failed: []
}
