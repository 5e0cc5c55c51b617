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

  it.effect("keeps no failure: the uses that waited get it, the next use runs the effect again", () =>
    Effect.gen(function*() {
      let runs = 0
      const gate = yield* Deferred.make<void>()
      const data = once(Effect.zipRight(Deferred.await(gate), Effect.suspend(() => ++runs === 1 ? Effect.fail("failed 1") : Effect.succeed(runs))))
      const first = yield* Effect.fork(data)
      const waiting = yield* Effect.fork(data)
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* Fiber.await(first), Exit.fail("failed 1"))
      assert.deepStrictEqual(yield* Fiber.await(waiting), Exit.fail("failed 1"))
      assert.deepStrictEqual([yield* data, yield* data], [2, 2])
      assert.strictEqual(runs, 2)
    }))

  it.effect("keeps no interruption: a use that waited on an interrupted first use runs the effect itself", () =>
    Effect.gen(function*() {
      let runs = 0
      const gate = yield* Deferred.make<void>()
      const data = once(Effect.zipRight(Deferred.await(gate), Effect.sync(() => ++runs)))
      const first = yield* Effect.fork(data)
      yield* Effect.yieldNow()
      const waiting = yield* Effect.fork(data)
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(waiting), 1)
      assert.deepStrictEqual([yield* data, runs], [1, 1])
    }))
})
