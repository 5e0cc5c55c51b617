/** Assertions on what a service answered. */
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

/** The business code the effect fails with (it must fail with a `BusinessError`). */
export const businessCode = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => {
    if (Either.isRight(result)) return assert.fail("expected a BusinessError, the call succeeded")
    const error = result.left
    if (typeof error !== "object" || error === null || !("_tag" in error) || error._tag !== "BusinessError" || !("code" in error)) {
      return assert.fail(`expected a BusinessError, got ${String(error)}`)
    }
    return error.code
  })
