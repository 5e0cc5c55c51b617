import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Scope from "effect/Scope"
import * as Batcher from "../src/sql/driver/batcher.js"
import { Steps } from "./support/Supervisors.js"

/** A writer that records its batches and holds the k-th one until `release` is called the k-th time. */
const gatedWriter = Effect.gen(function*() {
  const batches: Array<ReadonlyArray<number>> = []
  const gates = yield* Effect.forEach(Array.from({ length: 10 }), () => Deferred.make<void>())
  let released = 0
  const started = yield* Deferred.make<void>()
  const write = (items: ReadonlyArray<number>) =>
    Effect.gen(function*() {
      const gate = gates[batches.length]!
      batches.push(items)
      yield* Deferred.succeed(started, undefined)
      yield* Deferred.await(gate)
      if (items.includes(13)) return yield* Effect.fail(`batch ${items.join(",")} failed`)
    })
  const release = Effect.suspend(() => Deferred.succeed(gates[released++]!, undefined))
  return { batches, write, release, started }
})

/** A batcher over `gatedWriter` whose first batch, call 1's, is being written and held. */
const firstHeld = (options: Parameters<typeof Batcher.make<number, string>>[1]) =>
  Effect.gen(function*() {
    const w = yield* gatedWriter
    const call = yield* Batcher.make(w.write, options)
    const first = yield* Effect.fork(call(1))
    yield* Deferred.await(w.started)
    return { call, first, w }
  })

describe("Batcher", () => {
  it.scoped("calls made while a batch is written go together in the next one; a failed batch is written call by call, failing only the bad one", () =>
    Effect.gen(function*() {
      const { call, first, w } = yield* firstHeld({ maxBatch: 10 })
      const others = yield* Effect.forEach([2, 3, 13, 4], (n) => Effect.fork(call(n)))
      yield* Effect.yieldNow()
      yield* w.release
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(first)))
      for (let i = 0; i < 5; i++) yield* w.release
      const exits = yield* Effect.forEach(others, Fiber.await)
      assert.deepStrictEqual(w.batches, [[1], [2, 3, 13, 4], [2], [3], [13], [4]])
      assert.deepStrictEqual(exits.map(Exit.isSuccess), [true, true, false, true])
      const after = yield* Effect.fork(call(5))
      yield* w.release
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(after)))
      assert.deepStrictEqual(w.batches.at(-1), [5])
    }))

  it.scoped("a batch holds at most maxBatch calls", () =>
    Effect.gen(function*() {
      const { call, first, w } = yield* firstHeld({ maxBatch: 2 })
      const others = yield* Effect.forEach([2, 3, 4, 5, 6], (n) => Effect.fork(call(n)))
      yield* Effect.yieldNow()
      for (let i = 0; i < 4; i++) yield* w.release
      yield* Fiber.await(first)
      yield* Effect.forEach(others, Fiber.join)
      assert.deepStrictEqual(w.batches, [[1], [2, 3], [4, 5], [6]])
    }))

  it.scoped("with two writers, two batches are written at once; calls wait together only while both are busy", () =>
    Effect.gen(function*() {
      const { call, first, w } = yield* firstHeld({ maxBatch: 10, writers: 2 })
      const second = yield* Effect.fork(call(2))
      for (let i = 0; i < 100 && w.batches.length < 2; i++) yield* Effect.yieldNow()
      // the second writer took call 2 while the first batch is still held
      const whileHeld = w.batches.map((b) => [...b])
      const others = yield* Effect.forEach([3, 4, 5], (n) => Effect.fork(call(n)))
      yield* Effect.yieldNow()
      for (let i = 0; i < 4; i++) yield* w.release
      yield* Effect.forEach([first, second, ...others], Fiber.join)
      assert.deepStrictEqual(whileHeld, [[1], [2]])
      assert.deepStrictEqual(w.batches, [[1], [2], [3, 4, 5]])
    }))

  it.scoped("a batch that fails so that retryAlone refuses fails all its calls, and none is written again", () =>
    Effect.gen(function*() {
      const { call, first, w } = yield* firstHeld({ maxBatch: 10, retryAlone: (e) => !e.includes("13") })
      const others = yield* Effect.forEach([2, 13, 3], (n) => Effect.fork(call(n)))
      yield* Effect.yieldNow()
      // enough for the calls' own batches too, were they written again
      for (let i = 0; i < 5; i++) yield* w.release
      yield* Fiber.join(first)
      const exits = yield* Effect.forEach(others, Fiber.await)
      assert.deepStrictEqual(exits.map(Exit.isSuccess), [false, false, false])
      assert.deepStrictEqual(w.batches, [[1], [2, 13, 3]])
    }))

  it.scoped("a call whose caller is interrupted while it is queued is not written; one already taken is", () =>
    Effect.gen(function*() {
      const { call, first, w } = yield* firstHeld({ maxBatch: 10 })
      const given = yield* Effect.fork(call(2))
      const kept = yield* Effect.fork(call(3))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(given)
      yield* Fiber.interrupt(first)
      for (let i = 0; i < 3; i++) yield* w.release
      yield* Fiber.join(kept)
      assert.deepStrictEqual(w.batches, [[1], [3]])
    }))

  it.live("with a linger, a batch waits that long for more calls before it is written", () =>
    Effect.gen(function*() {
      const batches: Array<ReadonlyArray<number>> = []
      const call = yield* Batcher.make((items: ReadonlyArray<number>) => Effect.sync(() => void batches.push(items)), {
        maxBatch: 10,
        linger: "300 millis"
      })
      const first = yield* Effect.fork(call(1))
      yield* Effect.sleep("30 millis")
      // a writer that answers at once would have written [1] by now
      assert.deepStrictEqual(batches, [])
      const second = yield* Effect.fork(call(2))
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(batches, [[1, 2]])
    }).pipe(Effect.scoped))

  it.effect("closing the scope finishes the batch being written; calls still queued are interrupted, not left waiting", () =>
    Effect.gen(function*() {
      const w = yield* gatedWriter
      const scope = yield* Scope.make()
      const call = yield* Batcher.make(w.write, { maxBatch: 1 }).pipe(Scope.extend(scope))
      const inFlight = yield* Effect.fork(call(1))
      yield* Deferred.await(w.started)
      const queued = yield* Effect.fork(call(2))
      yield* Effect.yieldNow()
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* w.release
      yield* Fiber.join(closing)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(inFlight)))
      const exit = yield* Fiber.await(queued)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.deepStrictEqual(w.batches, [[1]])
    }))
})

describe("Batcher's calls", () => {
  it.scoped("wait for their batch in a few steps of the caller's fiber", () =>
    Effect.gen(function*() {
      const call = yield* Batcher.make((_: ReadonlyArray<number>) => Effect.void, { maxBatch: 10 })
      const steps = new Steps()
      yield* Effect.supervised(
        Effect.withRuntimeFlagsPatch(call(1), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)),
        steps
      )
      // 12 steps: the wait and its canceller; a Deferred, an effectful offer and an `onInterrupt`
      // around the wait took 29
      assert.isAtMost(steps.steps, 15)
    }))
  it.scoped("are answered by the writer in as many steps whatever their number", () =>
    Effect.gen(function*() {
      // the writer's steps: for the held batch of call 0, then for the batch of the `n` calls queued meanwhile
      const writerSteps = (n: number) =>
        Effect.gen(function*() {
          const w = yield* gatedWriter
          const steps = new Steps()
          const call = yield* Effect.supervised(
            Effect.withRuntimeFlagsPatch(Batcher.make(w.write, { maxBatch: 10 }), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)),
            steps
          )
          const first = yield* Effect.fork(call(0))
          yield* Deferred.await(w.started)
          const others = yield* Effect.forEach(Array.from({ length: n }, (_, i) => i + 1), (i) => Effect.fork(call(i)))
          yield* Effect.yieldNow()
          yield* w.release
          yield* w.release
          yield* Effect.forEach([first, ...others], Fiber.join)
          assert.strictEqual(w.batches.length, 2)
          return steps.steps
        }).pipe(Effect.scoped)
      assert.strictEqual(yield* writerSteps(5), yield* writerSteps(1))
    }))
})
