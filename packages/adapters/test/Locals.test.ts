import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Locals from "../src/sql/driver/locals.js"
import { Steps } from "./support/Supervisors.js"

const refs = Array.from({ length: 5 }, (_, i) => FiberRef.unsafeMake(`outside ${i}`))
const values = refs.map((ref) => FiberRef.get(ref))

/** `effect` with the first `n` refs set to `inside …`. */
const withRefs = <A, E>(n: number, effect: Effect.Effect<A, E>) =>
  Locals.exitWith(() => refs.slice(0, n).map((ref, i): Locals.Local => [ref, `inside ${i}`]), effect)

describe("A transaction's fiber refs", () => {
  it.effect("are set for the effect and put back after it, after a failure too", () =>
    Effect.gen(function*() {
      const inside = yield* withRefs(5, Effect.all(values))
      assert.deepStrictEqual(inside, Exit.succeed(refs.map((_, i) => `inside ${i}`)))
      const failed = yield* withRefs(5, Effect.zipRight(Effect.all(values), Effect.fail("no")))
      assert.deepStrictEqual(failed, Exit.fail("no"))
      assert.deepStrictEqual(yield* Effect.all(values), refs.map((_, i) => `outside ${i}`))
    }))

  it.effect("are set and put back in as many steps whatever their number", () =>
    Effect.gen(function*() {
      const stepsOf = (n: number) =>
        Effect.suspend(() => {
          const steps = new Steps()
          const counted = Effect.withRuntimeFlagsPatch(withRefs(n, Effect.void), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
          return Effect.zipRight(Effect.supervised(counted, steps), steps.value)
        })
      assert.strictEqual(yield* stepsOf(5), yield* stepsOf(1))
    }))
})

/** Effect's fiber with the methods that update its refs (its public type does not show them). */
interface Updating {
  setFiberRef: (...args: Array<unknown>) => void
  setFiberRefs: (...args: Array<unknown>) => void
}

/** How many times `effect` updates its fiber's refs: each update copies them all. */
const updatesOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.withFiberRuntime<number>((fiber) => {
    const updating = fiber as unknown as Updating
    const { setFiberRef, setFiberRefs } = updating
    let updates = 0
    updating.setFiberRef = (...args) => {
      updates++
      setFiberRef.apply(fiber, args)
    }
    updating.setFiberRefs = (...args) => {
      updates++
      setFiberRefs.apply(fiber, args)
    }
    // (its exit, a failure too, is left for the count)
    return Effect.flatMap(Effect.exit(effect), () =>
      Effect.sync(() => {
        delete (updating as Partial<Updating>).setFiberRef
        delete (updating as Partial<Updating>).setFiberRefs
        return updates
      }))
  })

describe("A transaction's fiber refs, copied", () => {
  it.effect("as many times whatever their number", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* updatesOf(withRefs(5, Effect.void)), yield* updatesOf(withRefs(1, Effect.void)))
    }))
})
