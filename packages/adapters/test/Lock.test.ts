import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Lock from "../src/sql/driver/lock.js"
import { Steps } from "./support/Supervisors.js"

/** `lock` held for `effect`, as a transaction holds it: it waits interruptibly, then holds it uninterruptibly. */
const holding = <A>(lock: Lock.Lock, effect: Effect.Effect<A>) =>
  Effect.uninterruptibleMask((restore) => Effect.zipRight(restore(lock.take), Effect.ensuring(effect, lock.release)))

describe("Lock", () => {
  it.effect("one fiber holds it at a time; its waiters get it in the order they came", () =>
    Effect.gen(function*() {
      const lock = Lock.make()
      const order: Array<number> = []
      yield* lock.take
      const waiters = yield* Effect.forEach([1, 2, 3], (i) => Effect.fork(holding(lock, Effect.sync(() => order.push(i)))))
      yield* Effect.yieldNow()
      assert.deepStrictEqual(order, [], "nobody takes a held lock")
      // a taker that comes as it is released waits behind those that waited
      yield* lock.release
      yield* holding(lock, Effect.sync(() => order.push(4)))
      yield* Fiber.joinAll(waiters)
      assert.deepStrictEqual(order, [1, 2, 3, 4])
      assert.isFalse(lock.held())
    }))

  it.effect("a waiter interrupted gives up its place, or the lock if it was just handed it", () =>
    Effect.gen(function*() {
      const lock = Lock.make()
      yield* lock.take
      const skipped = yield* Effect.fork(holding(lock, Effect.void))
      const handed = yield* Effect.fork(holding(lock, Effect.void))
      const last = yield* Effect.fork(holding(lock, Effect.void))
      yield* Effect.yieldNow()
      assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(skipped)))
      // handed the lock, then interrupted before it saw so
      yield* lock.release
      yield* Fiber.interrupt(handed)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(last)))
      assert.isFalse(lock.held())
    }))

  it.effect("a free lock is taken in one step and given back in one", () =>
    Effect.gen(function*() {
      const lock = Lock.make()
      const steps = new Steps()
      yield* Effect.supervised(
        Effect.withRuntimeFlagsPatch(Effect.zipRight(lock.take, lock.release), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)),
        steps
      )
      // (the take, its answer, the release, and the steps that sequence them)
      assert.isAtMost(yield* steps.value, 5)
    }))
})
