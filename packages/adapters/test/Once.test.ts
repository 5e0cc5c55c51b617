import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { once } from "../src/internal/once.js"

describe("once", () => {
  it.effect("runs the effect at the first use only; uses meanwhile wait for its outcome", () =>
    Effect.gen(function*() {
      let runs = 0
      const gate = yield* Deferred.make<void>()
      const data = once(Effect.zipRight(Deferred.await(gate), Effect.sync(() => ++runs)))
      const first = yield* Effect.fork(data)
      const second = yield* Effect.fork(data)
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual([yield* Fiber.join(first), yield* Fiber.join(second), yield* data], [1, 1, 1])
      assert.strictEqual(runs, 1)
    }))

  it.effect("keeps a failure as Effect.cached does", () =>
    Effect.gen(function*() {
      let runs = 0
      const data = once(Effect.suspend(() => Effect.fail(`failed ${++runs}`)))
      assert.deepStrictEqual(yield* Effect.exit(data), Exit.fail("failed 1"))
      assert.deepStrictEqual(yield* Effect.exit(data), Exit.fail("failed 1"))
      assert.strictEqual(runs, 1)
    }))
})
