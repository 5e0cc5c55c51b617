/**
 * A movement of wallet money (a deposit, its revert or adjustment, a wallet-to-wallet transfer):
 * its ledger plan is held when it starts, then committed when it succeeds or rolled back when it
 * fails. Its status, as the wallet interface writes it, moves once: Pending → Succeeded | Failed.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category schemas */
export const MovementStatus = Schema.Literal("Pending", "Succeeded", "Failed")
/** @since 0.1.0 */
export type MovementStatus = typeof MovementStatus.Type

/** `{code, subError}` of the interface's failures. @since 0.1.0 @category models */
export interface SubFailure {
  readonly code: string
  readonly subError?: SubFailure | undefined
}

/** @since 0.1.0 @category schemas */
export const SubFailure: Schema.Schema<SubFailure> = Schema.Struct({
  code: Schema.String,
  subError: Schema.optional(Schema.suspend((): Schema.Schema<SubFailure> => SubFailure))
})

/** The failure when the money is not there: `account_limit_exceeded` > `amount`. @since 0.1.0 */
export const insufficientFunds: SubFailure = { code: "account_limit_exceeded", subError: { code: "amount" } }

/** @since 0.1.0 @category models */
export interface MovementState {
  readonly status: MovementStatus
  readonly failure?: SubFailure | undefined
}

/** @since 0.1.0 @category models */
export type MovementCommand = Data.TaggedEnum<{
  Succeed: {}
  Fail: { readonly failure: SubFailure }
}>

/** @since 0.1.0 @category constructors */
export const MovementCommand = Data.taggedEnum<MovementCommand>()

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<MovementStatus, ReadonlyArray<MovementStatus>>> = {
  Pending: ["Succeeded", "Failed"],
  Succeeded: [],
  Failed: []
}

/** What the ledger does with the movement's plan when it settles. @since 0.1.0 @category models */
export type PlanAction = "commit" | "rollback"

/** @since 0.1.0 @category models */
export interface Decision {
  readonly state: MovementState
  /** The plan's fate when the status moved; none when the command changed nothing. */
  readonly plan?: PlanAction | undefined
}

/** A command to a settled movement changes nothing (an answer can arrive twice). @since 0.1.0 */
export const decide = (state: MovementState, command: MovementCommand): Decision => {
  if (state.status !== "Pending") return { state }
  return command._tag === "Succeed"
    ? { state: { status: "Succeeded" }, plan: "commit" }
    : { state: { status: "Failed", failure: command.failure }, plan: "rollback" }
}

/** The status as the interface shows it: `{status, failure?}`. @since 0.1.0 */
export const toStatus = (s: MovementState) => ({
  status: s.status,
  ...(s.failure === undefined ? {} : { failure: s.failure })
})
