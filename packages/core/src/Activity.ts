/**
 * The activity of a party or a shop: blocked by the platform, suspended by the merchant.
 *
 * One pure machine serves both aggregates; the interface's table "Party and shop activity".
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category models */
export const Activity = Schema.Struct({
  isBlocked: Schema.Boolean,
  isSuspended: Schema.Boolean
})
/** @since 0.1.0 */
export type Activity = typeof Activity.Type

/**
 * `suspend` and `activate` are the merchant's; `block` and `unblock` the platform's.
 *
 * @since 0.1.0 @category models
 */
export const ActivityCommand = Schema.Literal("suspend", "activate", "block", "unblock")
/** @since 0.1.0 */
export type ActivityCommand = typeof ActivityCommand.Type

/**
 * Why a command was refused.
 *
 * @since 0.1.0 @category errors
 */
export type ActivityRefusal = "blocked"

/** @since 0.1.0 */
export const active: Activity = { isBlocked: false, isSuspended: false }

/** Operations run only on an active (neither blocked nor suspended) party or shop. @since 0.1.0 */
export const isActive = (a: Activity): boolean => !a.isBlocked && !a.isSuspended

/**
 * Decides a command. Suspending a suspended object and activating an active one change
 * nothing and succeed (the merchant's intent already holds); a blocked object refuses the
 * merchant's commands until the platform unblocks it.
 *
 * @since 0.1.0
 */
export const decide = (state: Activity, command: ActivityCommand): Either.Either<Activity, ActivityRefusal> => {
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
