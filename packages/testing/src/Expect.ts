/**
 * Assertions the HTTP tests share.
 *
 * @since 0.1.0
 */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"

/**
 * Fails unless the effect fails with a `BusinessError` of `code`; answers its message.
 *
 * @since 0.1.0
 */
export const businessError = <A, E, R>(effect: Effect.Effect<A, E, R>, code: string) =>
  Effect.gen(function*() {
    const error = (yield* Effect.flip(effect)) as { readonly _tag?: string; readonly code?: string; readonly message?: string }
    assert.strictEqual(error._tag, "BusinessError", `expected ${code}, got ${error._tag}: ${error.message}`)
    assert.strictEqual(error.code, code, error.message)
    return error.message as string
  })

/** The `_tag` of the error the effect fails with. @since 0.1.0 */
export const errorTag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => (e as { readonly _tag: string })._tag)

/**
 * Runs `read` until `done` holds, 25 ms apart on the clock in use, at most 400 times.
 *
 * @since 0.1.0
 */
export const poll = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const a = yield* read
      if (done(a)) return a
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })
