/**
 * The standing of a party or a shop: blocked by the platform, suspended by the merchant (the
 * interface's table "Party and shop activity"; a payment's `activity` is another thing).
 *
 * One pure machine serves both aggregates.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category models */
export const Standing = Schema.Struct({
  isBlocked: Schema.Boolean,
  isSuspended: Schema.Boolean
})
/** @since 0.1.0 */
export type Standing = typeof Standing.Type

/**
 * `suspend` and `activate` are the merchant's; `block` and `unblock` the platform's.
 *
 * @since 0.1.0 @category models
 */
export const StandingCommand = Schema.Literal("suspend", "activate", "block", "unblock")
/** @since 0.1.0 */
export type StandingCommand = typeof StandingCommand.Type

/**
 * Why a command was refused.
 *
 * @since 0.1.0 @category errors
 */
export type StandingRefusal = "blocked"

/** @since 0.1.0 */
export const active: Standing = { isBlocked: false, isSuspended: false }

/** Operations run only on an active (neither blocked nor suspended) party or shop. @since 0.1.0 */
export const isActive = (a: Standing): boolean => !a.isBlocked && !a.isSuspended

/**
 * Decides a command. Suspending a suspended object and activating an active one change
 * nothing and succeed (the merchant's intent already holds); a blocked object refuses the
 * merchant's commands until the platform unblocks it.
 *
 * @since 0.1.0
 */
export const decide = (state: Standing, command: StandingCommand): Either.Either<Standing, StandingRefusal> => {
  switch (command) {
    case "block":
      return Either.right({ ...state, isBlocked: true })
    case "unblock":
      return Either.right({ ...state, isBlocked: false })
    case "suspend":
      return state.isBlocked ? Either.left("blocked") : Either.right({ ...state, isSuspended: true })
    case "activate":
      return state.isBlocked ? Either.left("blocked") : Either.right({ ...state, isSuspended: false })
  }
}
