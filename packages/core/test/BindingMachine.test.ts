import { assert, describe, it } from "@effect/vitest"
import * as BindingMachine from "@kassa/core/customer/BindingMachine"
import * as FastCheck from "effect/FastCheck"

type State = BindingMachine.BindingState
type Command = BindingMachine.BindingCommand
const { BindingCommand, decide, legalMoves, readies } = BindingMachine
const RUNS = { fastCheck: { numRuns: 300 } }

const redirect = (n: number) => ({
  interactionType: "Redirect" as const,
  request: { requestType: "BrowserGetRequest" as const, uriTemplate: `https://kassa.test/3ds/${n}` }
})

const commandArb: FastCheck.Arbitrary<Command> = FastCheck.oneof(
  FastCheck.nat(99).map((n) => BindingCommand.InteractionRequested({ interactionID: `i${n}`, userInteraction: redirect(n) })),
  FastCheck.nat(99).map((n) => BindingCommand.InteractionCompleted({ userInteraction: redirect(n) })),
  FastCheck.option(FastCheck.hexaString({ minLength: 1 }), { nil: undefined }).map((recurrentToken) =>
    BindingCommand.Authorized({ recurrentToken })
  ),
  FastCheck.constantFrom("preauthorization_failed", "rejected_by_issuer").map((code) =>
    BindingCommand.Declined({ error: { code, message: code } })
  )
)

const initial: State = { id: "b1", status: "pending", recurrentToken: undefined, interactionID: undefined }

describe("BindingMachine", () => {
  it.prop(
    "generated command sequences move a binding only along legalMoves, each change recorded once",
    [FastCheck.array(commandArb, { minLength: 1, maxLength: 20 })],
    ([commands]) => {
      let state = initial
      let requested = 0
      let completed = 0
      let ready = 0
      for (const command of commands) {
        const before = state
        const { changes, state: next } = decide(before, command)
        if (before.status !== "pending") {
          assert.strictEqual(next, before, "a settled binding changes nothing")
          assert.deepStrictEqual(changes, [])
        }
        if (next.status !== before.status) {
          assert.include(legalMoves[before.status], next.status)
          assert.deepStrictEqual(changes, [{
            changeType: "CustomerBindingStatusChanged",
            customerBindingID: "b1",
            status: next.status,
            ...(next.error === undefined ? {} : { error: next.error })
          }])
        }
        if (next.status === "succeeded" && command._tag === "Authorized" && before.status === "pending") {
          assert.strictEqual(next.recurrentToken, command.recurrentToken)
        }
        if (next.status === "failed") assert.isDefined(next.error)
        if (changes.some((c) => c.changeType === "CustomerBindingInteractionRequested")) requested++
        if (changes.some((c) => c.changeType === "CustomerBindingInteractionCompleted")) {
          completed++
          assert.isDefined(before.interactionID, "a challenge completes only once requested")
        }
        if (readies("unready", before, next)) ready++
        assert.strictEqual(changes.length > 0, next !== before, "a change is recorded exactly when the binding changes")
        state = next
      }
      assert.isAtMost(requested, 1, "one challenge per binding")
      assert.isAtMost(completed, 1, "the first answer decides")
      assert.strictEqual(ready, state.status === "succeeded" ? 1 : 0, "a customer becomes ready once, with its binding's success")
    },
    RUNS
  )

  it("a ready customer is not made ready again", () => {
    const succeeded = decide(initial, BindingCommand.Authorized({ recurrentToken: "t" })).state
    assert.isTrue(readies("unready", initial, succeeded))
    assert.isFalse(readies("ready", initial, succeeded))
    assert.isFalse(readies("unready", succeeded, succeeded))
  })
})
