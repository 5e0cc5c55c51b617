/**
 * @internal
 * An effect run until it succeeds once, its value kept: `Effect.cached` without its cost at every
 * use, and without keeping a failure or an interruption.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/**
 * @internal
 * `effect` run by the first use, later uses waiting for its outcome. A success is kept and handed
 * out in the use's one step (`Effect.cached` takes a dozen at every use, two of them copies of the
 * fiber's refs). A failure goes to the uses that waited for it and an interruption (the first
 * use's request gone) sends them to run it again; neither is kept, so the next use runs it again:
 * a store that failed a moment is read again, not held failed for the life of the process.
 */
export const once = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  let value: Exit.Exit<A, E> | undefined
  let running: Deferred.Deferred<A, E> | undefined
  const use: Effect.Effect<A, E> = Effect.suspend(() => {
    if (value !== undefined) return value
    if (running !== undefined) {
      return Effect.catchAllCause(Deferred.await(running), (cause) => Cause.isInterruptedOnly(cause) ? use : Effect.failCause(cause))
    }
    const done = (running = Deferred.unsafeMake<A, E>(FiberId.none))
    return Effect.onExit(effect, (exit) => {
      running = undefined
      if (Exit.isSuccess(exit)) value = exit
      return Deferred.done(done, exit)
    })
  })
  return use
}
