/**
 * @internal
 * Waits on the real clock, whatever clock the fiber runs with: background loops pause and writers
 * linger in real time, so under a TestClock that jumps days ahead they do not wake once per
 * interval of the jump.
 */
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"

/** @internal `Effect.sleep` on the real clock. */
export const sleep = (duration: Duration.DurationInput): Effect.Effect<void> =>
  Effect.sleep(duration).pipe(Effect.withClock(Clock.make()))

/**
 * @internal
 * A finalizer's wait for the work in `set` to end, at most `grace`. Finalizers run
 * uninterruptibly: the wait must be interruptible for the bound to end it.
 */
export const awaitWork = <A, E>(set: FiberSet.FiberSet<A, E>, grace: Duration.DurationInput): Effect.Effect<void> =>
  FiberSet.awaitEmpty(set).pipe(Effect.interruptible, Effect.timeout(grace), Effect.ignore, Effect.withClock(Clock.make()))

/** @internal Until the event loop has turned once (its I/O polled): what arrives meanwhile is in. */
export const nextTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  setImmediate(() => resume(Effect.void))
})
