import { assert, describe, it } from "@effect/vitest"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"

const { ScriptedAcquirer } = Scripted

const request = (operationID: string) => ({
  operationID,
  amount: 100,
  currency: "RUB",
  tool: { type: "Recurrent", recurrentToken: "rt" } as const,
  hold: false,
  makeRecurrent: false
})

describe("ScriptedAcquirer", () => {
  it.effect("answers the script's steps in order, then the default", () =>
    Effect.gen(function*() {
      const acquirer = yield* Acquirer
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.declined()), Scripted.answer(Scripted.challenge))
      assert.strictEqual((yield* acquirer.authorize(request("a")))._tag, "Declined")
      assert.strictEqual((yield* acquirer.authorize(request("b")))._tag, "InteractionRequired")
      assert.strictEqual((yield* acquirer.authorize(request("c")))._tag, "Authorized")
    }).pipe(Effect.provide(Scripted.layer)))

  it.effect("answers a repeated operation with its last answer once the script is spent", () =>
    Effect.gen(function*() {
      const acquirer = yield* Acquirer
      yield* (yield* ScriptedAcquirer).script.refund(Scripted.answer(Scripted.declined("rejected")))
      assert.strictEqual((yield* acquirer.refund("op", "1", 100, "RUB"))._tag, "Declined")
      assert.strictEqual((yield* acquirer.refund("op", "1", 100, "RUB"))._tag, "Declined")
      assert.strictEqual((yield* acquirer.refund("op", "2", 100, "RUB"))._tag, "Done")
    }).pipe(Effect.provide(Scripted.layer)))

  it.effect("a hanging authorisation with a deadline answers DeadlineReached at it, having authorised nothing", () =>
    Effect.gen(function*() {
      const acquirer = yield* Acquirer
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.hang)
      const deadline = new Date((yield* Clock.currentTimeMillis) + 3_000)
      const hanging = yield* Effect.fork(acquirer.authorize({ ...request("op"), deadline }))
      yield* TestClock.adjust("2999 millis")
      assert.isTrue((yield* Fiber.poll(hanging))._tag === "None")
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(hanging), { _tag: "DeadlineReached" })
      assert.deepStrictEqual(yield* acquirer.status("op"), { _tag: "Nothing" })
    }).pipe(Effect.provide(Scripted.layer)))

  it.effect("a failing step dies and is not remembered; a hanging one never answers; every call is recorded", () =>
    Effect.gen(function*() {
      const acquirer = yield* Acquirer
      const scripted = yield* ScriptedAcquirer
      yield* scripted.script.capture(Scripted.fail("connection reset"), Scripted.hang)
      const failed = yield* Effect.exit(acquirer.capture("op", 100, "RUB"))
      assert.isTrue(Exit.isFailure(failed) && !Exit.isInterrupted(failed))
      const hanging = yield* Effect.fork(acquirer.capture("op", 100, "RUB"))
      yield* scripted.awaitCalls("capture", 2)
      assert.isTrue((yield* Fiber.poll(hanging))._tag === "None")
      yield* Fiber.interrupt(hanging)
      assert.strictEqual((yield* acquirer.capture("op", 100, "RUB"))._tag, "Done")
      assert.deepStrictEqual(yield* scripted.calls, [
        { method: "capture", operationID: "op", amount: 100, currency: "RUB" },
        { method: "capture", operationID: "op", amount: 100, currency: "RUB" },
        { method: "capture", operationID: "op", amount: 100, currency: "RUB" }
      ])
    }).pipe(Effect.provide(Scripted.layer)))

  it.effect("a lost step is done and remembered but dies; status answers from what was done", () =>
    Effect.gen(function*() {
      const acquirer = yield* Acquirer
      const scripted = yield* ScriptedAcquirer
      assert.deepStrictEqual(yield* acquirer.status("op"), { _tag: "Nothing" })
      yield* scripted.script.authorize(Scripted.lost(Scripted.authorized))
      const lost = yield* Effect.exit(acquirer.authorize(request("op")))
      assert.isTrue(Exit.isFailure(lost) && !Exit.isInterrupted(lost))
      const { transaction } = Scripted.authorized as Extract<typeof Scripted.authorized, { readonly _tag: "Authorized" }>
      assert.deepStrictEqual(yield* acquirer.status("op"), { _tag: "Authorized", transaction })
      // the repeated call answers what was done
      assert.strictEqual((yield* acquirer.authorize(request("op")))._tag, "Authorized")
      yield* scripted.script.capture(Scripted.lost(Scripted.done))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(acquirer.capture("op", 100, "RUB"))))
      assert.deepStrictEqual(yield* acquirer.status("op"), { _tag: "Captured", transaction })
      yield* acquirer.authorize(request("held"))
      yield* acquirer.cancel("held")
      assert.deepStrictEqual(yield* acquirer.status("held"), { _tag: "Cancelled" })
      yield* scripted.script.authorize(Scripted.answer(Scripted.declined()), Scripted.answer(Scripted.challenge))
      yield* acquirer.authorize(request("no"))
      assert.deepStrictEqual(yield* acquirer.status("no"), { _tag: "Declined" })
      yield* acquirer.authorize(request("3ds"))
      assert.deepStrictEqual(yield* acquirer.status("3ds"), { _tag: "Nothing" })
      yield* acquirer.completeInteraction("3ds", true)
      assert.deepStrictEqual(yield* acquirer.status("3ds"), { _tag: "Authorized", transaction })
    }).pipe(Effect.provide(Scripted.layer)))

  it.effect("authorises with a recurrent token when one is asked for", () =>
    Effect.gen(function*() {
      const answer = yield* (yield* Acquirer).authorize({ ...request("r"), makeRecurrent: true })
      assert.isTrue(answer._tag === "Authorized" && answer.recurrentToken !== undefined)
    }).pipe(Effect.provide(Scripted.layer)))
})
