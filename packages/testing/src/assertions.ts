/**
 * A vitest setup file. Chai's deep equality, as `@effect/vitest` leaves it, holds `Option.none()`
 * equal to `Option.some(x)` (and says nothing useful about `Either`), so an assertion that an
 * `Option` is `some` could never fail. `assert.deepStrictEqual` and `assert.deepEqual` compare
 * `Option` and `Either` values by their tag and contents instead.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { assert } from "vitest"

/** Options and Eithers, wherever they are in arrays and plain objects, as plain data. */
export const plain = (u: unknown): unknown => {
  if (Option.isOption(u)) return Option.isSome(u) ? { _tag: "Some", value: plain(u.value) } : { _tag: "None" }
  if (Either.isEither(u)) {
    return Either.isRight(u) ? { _tag: "Right", right: plain(u.right) } : { _tag: "Left", left: plain(u.left) }
  }
  if (Array.isArray(u)) return u.map(plain)
  if (u !== null && typeof u === "object" && Object.getPrototypeOf(u) === Object.prototype) {
    return Object.fromEntries(Object.entries(u).map(([k, v]) => [k, plain(v)]))
  }
  return u
}

const patch = (name: "deepStrictEqual" | "deepEqual" | "notDeepStrictEqual" | "notDeepEqual") => {
  const original = (assert as any)[name] as (actual: unknown, expected: unknown, message?: string) => void
  ;(assert as any)[name] = (actual: unknown, expected: unknown, message?: string) => original(plain(actual), plain(expected), message)
}
patch("deepStrictEqual")
patch("deepEqual")
patch("notDeepStrictEqual")
patch("notDeepEqual")
