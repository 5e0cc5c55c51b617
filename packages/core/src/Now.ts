/**
 * The clock's time read in the step of Effect's run loop the caller is in. `Clock.currentTimeMillis`
 * is two steps (the services, then the clock), a third for what follows it and a fourth for a
 * `map`; a request reads the clock several times.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

/**
 * The time of `fiber`'s clock, as `Clock.currentTimeMillis` reads it, for code that already holds
 * its fiber (`Effect.withFiberRuntime`).
 *
 * @since 0.1.0
 */
export const unsafeOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): number =>
  Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()

/**
 * `Effect.flatMap(Clock.currentTimeMillis, f)` in one step: the fiber's clock read as
 * `Clock.currentTimeMillis` reads it.
 *
 * @since 0.1.0
 */
export const flatMap = <A, E, R>(f: (now: number) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => f(unsafeOf(fiber)))

/**
 * `Effect.map(Clock.currentTimeMillis, f)` in two steps, not four.
 *
 * @since 0.1.0
 */
export const map = <A>(f: (now: number) => A): Effect.Effect<A> => flatMap((now) => Effect.succeed(f(now)))
