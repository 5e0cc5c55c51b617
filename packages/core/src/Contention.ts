/**
 * Contention on one aggregate. A command reads under `expected` an aggregate that other commands
 * change at the same time (a payment its refunds and chargebacks settle, an invoice its payment
 * settles, or any aggregate a command lost a race on). Storage may keep what such a read finds
 * for the rest of the transaction, so concurrent commands queue instead of racing again; an
 * `update` at the version so read then cannot lose.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/**
 * Whether the current reads are of a contended aggregate (read by storage adapters).
 *
 * @since 0.1.0 @category fiber refs
 */
export const current: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/**
 * Runs `read` as a read of a contended aggregate.
 *
 * @since 0.1.0 @category combinators
 */
export const expected = <A, E, R>(read: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(read, current, true)

/**
 * Whether the transaction about to open belongs to a command that runs again when it answers
 * `Conflict` (read by storage adapters when a transaction opens). Storage may then check an
 * update's version when it sends the update with the transaction's other writes, not when the
 * update is made.
 *
 * @since 0.1.0 @category fiber refs
 */
export const retried: FiberRef.FiberRef<boolean> = FiberRef.unsafeMake(false)

/**
 * Storage's answer (a defect) when a transaction of a `retried` command wrote a row at a version
 * that had changed, found only as the write was sent: the transaction rolled back, and the
 * command runs again.
 *
 * @since 0.1.0 @category errors
 */
export class Conflict extends Data.TaggedError("kassa/Contention/Conflict")<{}> {}
