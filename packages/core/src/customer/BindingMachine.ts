/**
 * The customer binding's state machine, as pure functions: `(state, command) → {state, changes}`.
 *
 * | status | command | to |
 * |---|---|---|
 * | pending | InteractionRequested (once) | pending, with its interaction |
 * | pending | InteractionCompleted (once, after the request) | pending, answered |
 * | pending | Authorized | succeeded, with the recurrent token |
 * | pending | Declined | failed, with the error |
 *
 * Commands out of place change nothing: the acquirer's answers and the payer's can arrive twice,
 * and the first decides. A binding that succeeds makes its customer ready (`readies`).
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type { UserInteraction } from "../payment/PaymentChange.js"
import type { CustomerChange } from "./Customer.js"

/** @since 0.1.0 @category models */
export type BindingStatus = "pending" | "succeeded" | "failed"

/** @since 0.1.0 @category models */
export interface BindingState {
  readonly id: string
  readonly status: BindingStatus
  readonly error?: { readonly code: string; readonly message: string } | undefined
  readonly recurrentToken: string | undefined
  readonly interactionID: string | undefined
  readonly interactionCompleted?: boolean | undefined
}

/** @since 0.1.0 @category models */
export type BindingCommand = Data.TaggedEnum<{
  InteractionRequested: { readonly interactionID: string; readonly userInteraction: UserInteraction }
  InteractionCompleted: { readonly userInteraction: UserInteraction }
  Authorized: { readonly recurrentToken: string | undefined }
  Declined: { readonly error: { readonly code: string; readonly message: string } }
}>

/** @since 0.1.0 @category constructors */
export const BindingCommand = Data.taggedEnum<BindingCommand>()

/** @since 0.1.0 @category models */
export interface Decision<S extends BindingState> {
  readonly state: S
  readonly changes: ReadonlyArray<CustomerChange>
}

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<BindingStatus, ReadonlyArray<BindingStatus>>> = {
  pending: ["succeeded", "failed"],
  succeeded: [],
  failed: []
}

const statusChanged = (b: BindingState): CustomerChange =>
  b.error === undefined
    ? { changeType: "CustomerBindingStatusChanged", customerBindingID: b.id, status: b.status }
    : { changeType: "CustomerBindingStatusChanged", customerBindingID: b.id, status: b.status, error: b.error }

/** @since 0.1.0 */
export const decide = <S extends BindingState>(state: S, command: BindingCommand): Decision<S> => {
  const same = { state, changes: [] }
  if (state.status !== "pending") return same
  switch (command._tag) {
    case "InteractionRequested":
      if (state.interactionID !== undefined) return same
      return {
        state: { ...state, interactionID: command.interactionID },
        changes: [{
          changeType: "CustomerBindingInteractionRequested",
          customerBindingID: state.id,
          userInteraction: command.userInteraction
        }]
      }
    case "InteractionCompleted":
      if (state.interactionID === undefined || state.interactionCompleted === true) return same
      return {
        state: { ...state, interactionCompleted: true },
        changes: [{
          changeType: "CustomerBindingInteractionCompleted",
          customerBindingID: state.id,
          userInteraction: command.userInteraction
        }]
      }
    case "Authorized": {
      const next: S = { ...state, status: "succeeded", recurrentToken: command.recurrentToken }
      return { state: next, changes: [statusChanged(next)] }
    }
    case "Declined": {
      const next: S = { ...state, status: "failed", error: command.error }
      return { state: next, changes: [statusChanged(next)] }
    }
  }
}

/** Whether a binding now `after` makes a customer of `status` ready. @since 0.1.0 */
export const readies = (customerStatus: "ready" | "unready", before: BindingState, after: BindingState): boolean =>
  customerStatus === "unready" && after.status === "succeeded" && before.status !== "succeeded"

