import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Lazy from "@kassa/http/server/lean/Lazy"

/** `lean/Lazy`: built on the first use, once; a failed build is tried again. */
describe("lean/Lazy", () => {
  it.effect("builds nothing until used, then once, whoever asks", () =>
    Effect.gen(function*() {
      let builds = 0
      const lazy = Lazy.make(Effect.sync(() => ++builds))
      assert.strictEqual(builds, 0)
      assert.strictEqual(yield* lazy, 1)
      assert.strictEqual(yield* lazy, 1)
      assert.strictEqual(builds, 1)
    }))

  it.effect("concurrent first uses share the one build", () =>
    Effect.gen(function*() {
      let builds = 0
      const gate = yield* Deferred.make<void>()
      const lazy = Lazy.make(Effect.zipRight(Deferred.await(gate), Effect.sync(() => ++builds)))
      const users = yield* Effect.fork(Effect.all([lazy, lazy, lazy], { concurrency: "unbounded" }))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* Fiber.join(users), [1, 1, 1])
      assert.strictEqual(builds, 1)
    }))

  it.effect("a build that fails is tried again on the next use", () =>
    Effect.gen(function*() {
      let attempts = 0
      const lazy = Lazy.make(Effect.suspend(() => ++attempts === 1 ? Effect.fail("unavailable" as const) : Effect.succeed(attempts)))
      assert.deepStrictEqual(yield* Effect.exit(lazy), Exit.fail("unavailable" as const))
      assert.strictEqual(yield* lazy, 2)
      assert.strictEqual(yield* lazy, 2)
      assert.strictEqual(attempts, 2)
    }))
})
