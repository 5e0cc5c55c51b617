/**
 * A request's deadline (`X-Request-Deadline`) as the transactions see it. The first commit is
 * the point of no return: before it, a request past its deadline writes nothing (its transaction
 * rolls back and it is answered 504); from it on, the request runs to its end and answers what
 * was done, since its writes are kept.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** The request's deadline passed before anything was committed. @since 0.1.0 @category errors */
export class DeadlineExceeded extends Data.TaggedError("DeadlineExceeded")<{}> {}

/** @since 0.1.0 @category models */
export interface RequestDeadline {
  /** Epoch milliseconds on Effect's clock. */
  readonly at: number
  /** `open` till the first commit (`committing`) or the deadline (`expired`), whichever is first. */
  state: "open" | "committing" | "expired"
}

/** @since 0.1.0 @category constructors */
export const make = (at: number): RequestDeadline => ({ at, state: "open" })

/** The deadline of the request the fiber serves, if it has one. @since 0.1.0 */
export const current = FiberRef.unsafeMake<RequestDeadline | undefined>(undefined)

/**
 * The deadline passed: expires it unless the request is already committing. Answers whether
 * it did (then the request is to be stopped and answered 504).
 *
 * @since 0.1.0
 */
export const expire = (deadline: RequestDeadline): boolean => {
  if (deadline.state === "committing") return false
  deadline.state = "expired"
  return true
}

/**
 * Run by a transaction just before it commits: past the deadline it dies with
 * `DeadlineExceeded` (the transaction rolls back), otherwise the request is committing.
 *
 * @since 0.1.0
 */
export const beforeCommit: Effect.Effect<void> = Effect.flatMap(FiberRef.get(current), (deadline) => {
  if (deadline === undefined || deadline.state === "committing") return Effect.void
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (deadline.state === "expired" || now >= deadline.at) {
      deadline.state = "expired"
      return Effect.die(new DeadlineExceeded())
    }
    deadline.state = "committing"
    return Effect.void
  })
})

/** Runs `effect` free of the request's deadline: work in the background outlives the request. @since 0.1.0 */
export const detached = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.locally(effect, current, undefined)
