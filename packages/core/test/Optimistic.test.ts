import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { knownFirst, retryOnConflict, VersionConflict } from "../src/internal/optimistic.js"

/** A store of one versioned value, and a command on it in the shape the services use. */
const setup = (stored: { version: number; value: string }) => {
  let reads = 0
  const read = Effect.sync(() => {
    reads++
    return { ...stored }
  })
  const write = (next: { version: number; value: string }) =>
    Effect.sync(() => {
      if (stored.version !== next.version - 1) return false
      Object.assign(stored, next)
      return true
    })
  /** Appends `suffix` unless the value already ends with it (then: refused). */
  const command = (known: { version: number; value: string } | undefined, suffix: string) =>
    Effect.suspend(() => {
      const current = knownFirst(known, read)
      return retryOnConflict(Effect.gen(function*() {
        const { value: before, stale } = yield* current
        if (before.value.endsWith(suffix)) {
          return yield* stale ? new VersionConflict({ what: "value" }) : Effect.fail("refused" as const)
        }
        const after = { version: before.version + 1, value: before.value + suffix }
        if (!(yield* write(after))) return yield* new VersionConflict({ what: "value" })
        return after
      }))
    })
  return { command, reads: () => reads }
}

describe("knownFirst", () => {
  it.effect("a current copy saves the read", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ ...stored }, "b"), { version: 2, value: "ab" })
      assert.strictEqual(reads(), 0)
    }))

  it.effect("a stale copy loses the write and the command runs again on a fresh read", () =>
    Effect.gen(function*() {
      const stored = { version: 3, value: "abc" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ version: 1, value: "a" }, "d"), { version: 4, value: "abcd" })
      assert.strictEqual(reads(), 1)
    }))

  it.effect("a refusal decided on a stale copy is decided again: the fresh state may allow it", () =>
    Effect.gen(function*() {
      const stored = { version: 2, value: "ab" }
      const { command, reads } = setup(stored)
      assert.deepStrictEqual(yield* command({ version: 3, value: "abx" }, "x"), { version: 3, value: "abx" })
      assert.strictEqual(reads(), 1)
      // and on a fresh read a refusal stands
      assert.strictEqual(yield* Effect.flip(command(undefined, "x")), "refused")
    }))

  it.effect("without a copy every attempt reads", () =>
    Effect.gen(function*() {
      const stored = { version: 1, value: "a" }
      const { command, reads } = setup(stored)
      yield* command(undefined, "b")
      yield* command(undefined, "c")
      assert.strictEqual(reads(), 2)
      assert.deepStrictEqual(stored, { version: 3, value: "abc" })
    }))
})
