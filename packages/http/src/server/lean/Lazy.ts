/**
 * A value built on its first use, once: concurrent first uses wait for the one build; a build
 * that fails leaves nothing behind, and the next use builds again.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/** @since 0.1.0 @category constructors */
export const make = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  let built: Effect.Effect<A> | undefined
  const lock = Effect.unsafeMakeSemaphore(1)
  const buildOnce = lock.withPermits(1)(
    Effect.suspend(() => built ?? Effect.tap(build, (value) => void (built = Effect.succeed(value))))
  )
  return Effect.suspend(() => built ?? buildOnce)
}
