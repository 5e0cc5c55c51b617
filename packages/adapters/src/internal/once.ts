/**
 * @internal
 * An effect run once, its outcome kept: `Effect.cached` without its cost at every use.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/**
 * @internal
 * `effect` run by the first use, later uses waiting for its outcome, which every use then gets,
 * a failure too (as `Effect.cached`'s). Once known, the outcome is handed out in the use's one
 * step: `Effect.cached` takes a dozen at every use, two of them copies of the fiber's refs (it
 * applies to them what the run changed in its own).
 */
export const once = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  let outcome: Exit.Exit<A, E> | undefined
  let running: Deferred.Deferred<A, E> | undefined
  return Effect.suspend(() => {
    if (outcome !== undefined) return outcome
    if (running !== undefined) return Deferred.await(running)
    const done = (running = Deferred.unsafeMake<A, E>(FiberId.none))
    return Effect.onExit(effect, (exit) => {
      outcome = exit
      return Deferred.done(done, exit)
    })
  })
}
