import { assert, describe, it } from "@effect/vitest"
import { Chargeback } from "@kassa/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

type State = Chargeback.ChargebackState
type Command = Chargeback.ChargebackCommand
type Stage = Chargeback.ChargebackStage
type Status = Chargeback.ChargebackStatus

const { decide, ChargebackCommand } = Chargeback

const STAGES: ReadonlyArray<Stage> = ["chargeback", "pre-arbitration", "arbitration"]
const STATUSES: ReadonlyArray<Status> = ["pending", "accepted", "rejected", "cancelled"]
const stageIndex = (s: Stage) => STAGES.indexOf(s)

const state = (overrides: Partial<State> = {}): State => ({
  stage: "chargeback",
  status: "pending",
  body: 1000,
  levy: 100,
  ...overrides
})

const freeze = <A extends object>(a: A): A => Object.freeze({ ...a })

/** Fails unless the command is refused with invalidRequest; answers the message. */
const refused = (result: Either.Either<State, unknown>, why: string): string => {
  assert.isTrue(Either.isLeft(result), `${why}: expected a refusal, got ${JSON.stringify(Either.getOrUndefined(result))}`)
  const error = (result as Either.Left<any, State>).left
  assert.strictEqual(error._tag, "BusinessError", why)
  assert.strictEqual(error.code, "invalidRequest", why)
  assert.isString(error.message)
  return error.message
}

const accepted = (result: Either.Either<State, unknown>, why: string): State => {
  assert.isTrue(Either.isRight(result), `${why}: expected success, got ${JSON.stringify(Either.isLeft(result) ? result.left : "")}`)
  return (result as Either.Right<unknown, State>).right
}

describe("Chargeback.decide: table", () => {
  it("Accept: pending → accepted, keeping body and levy unless given", () => {
    assert.deepStrictEqual(accepted(decide(state(), ChargebackCommand.Accept({})), "accept"), state({ status: "accepted" }))
    assert.deepStrictEqual(
      accepted(decide(state(), ChargebackCommand.Accept({ body: 700 })), "accept body"),
      state({ status: "accepted", body: 700 })
    )
    assert.deepStrictEqual(
      accepted(decide(state(), ChargebackCommand.Accept({ levy: 5 })), "accept levy"),
      state({ status: "accepted", levy: 5 })
    )
    assert.deepStrictEqual(
      accepted(decide(state({ stage: "arbitration" }), ChargebackCommand.Accept({ body: 1, levy: 2 })), "accept at arbitration"),
      state({ stage: "arbitration", status: "accepted", body: 1, levy: 2 })
    )
  })

  it("Reject: pending → rejected, the levy may change, the body and stage stay", () => {
    assert.deepStrictEqual(accepted(decide(state(), ChargebackCommand.Reject({})), "reject"), state({ status: "rejected" }))
    assert.deepStrictEqual(
      accepted(decide(state({ stage: "pre-arbitration" }), ChargebackCommand.Reject({ levy: 250 })), "reject levy"),
      state({ stage: "pre-arbitration", status: "rejected", levy: 250 })
    )
  })

  it("Cancel: pending → cancelled, nothing else changes", () => {
    for (const stage of STAGES) {
      assert.deepStrictEqual(
        accepted(decide(state({ stage }), ChargebackCommand.Cancel()), `cancel at ${stage}`),
        state({ stage, status: "cancelled" })
      )
    }
  })

  it("Accept, Reject and Cancel are refused from every status but pending", () => {
    for (const status of STATUSES.filter((s) => s !== "pending")) {
      for (const stage of STAGES) {
        const s = state({ status, stage })
        assert.include(refused(decide(s, ChargebackCommand.Accept({})), `accept ${status}`), status)
        assert.include(refused(decide(s, ChargebackCommand.Reject({})), `reject ${status}`), status)
        assert.include(refused(decide(s, ChargebackCommand.Cancel()), `cancel ${status}`), status)
      }
    }
  })

  it("Reopen: rejected → pending, one stage further by default", () => {
    assert.deepStrictEqual(
      accepted(decide(state({ status: "rejected" }), ChargebackCommand.Reopen({})), "reopen chargeback"),
      state({ stage: "pre-arbitration", status: "pending" })
    )
    assert.deepStrictEqual(
      accepted(decide(state({ stage: "pre-arbitration", status: "rejected" }), ChargebackCommand.Reopen({})), "reopen pre-arb"),
      state({ stage: "arbitration", status: "pending" })
    )
    // body and levy may change on reopening
    assert.deepStrictEqual(
      accepted(decide(state({ status: "rejected" }), ChargebackCommand.Reopen({ body: 300, levy: 30 })), "reopen body levy"),
      state({ stage: "pre-arbitration", status: "pending", body: 300, levy: 30 })
    )
  })

  it("Reopen: from the first stage it may jump to a named later stage, never back or in place", () => {
    assert.deepStrictEqual(
      accepted(decide(state({ status: "rejected" }), ChargebackCommand.Reopen({ stage: "arbitration" })), "skip"),
      state({ stage: "arbitration", status: "pending" })
    )
    assert.deepStrictEqual(
      accepted(decide(state({ status: "rejected" }), ChargebackCommand.Reopen({ stage: "pre-arbitration" })), "named next"),
      state({ stage: "pre-arbitration", status: "pending" })
    )
    refused(decide(state({ status: "rejected" }), ChargebackCommand.Reopen({ stage: "chargeback" })), "same stage")
    refused(
      decide(state({ stage: "pre-arbitration", status: "rejected" }), ChargebackCommand.Reopen({ stage: "pre-arbitration" })),
      "pre-arb in place"
    )
    refused(
      decide(state({ stage: "pre-arbitration", status: "rejected" }), ChargebackCommand.Reopen({ stage: "chargeback" })),
      "pre-arb back"
    )
    assert.deepStrictEqual(
      accepted(
        decide(state({ stage: "pre-arbitration", status: "rejected" }), ChargebackCommand.Reopen({ stage: "arbitration" })),
        "pre-arb to arb named"
      ),
      state({ stage: "arbitration", status: "pending" })
    )
  })

  it("Reopen: refused after arbitration and from every status but rejected", () => {
    assert.include(
      refused(decide(state({ stage: "arbitration", status: "rejected" }), ChargebackCommand.Reopen({})), "after arbitration"),
      "arbitration"
    )
    for (const stage of ["arbitration", "chargeback", "pre-arbitration"] as const) {
      refused(decide(state({ stage, status: "rejected" }), ChargebackCommand.Reopen({ stage: "chargeback" })), `to chargeback from ${stage}`)
    }
    for (const status of ["pending", "accepted", "cancelled"] as const) {
      for (const stage of STAGES) {
        assert.include(refused(decide(state({ status, stage }), ChargebackCommand.Reopen({})), `reopen ${status}`), status)
      }
    }
  })

  it("decide never modifies its input", () => {
    const s = freeze(state({ status: "rejected" }))
    accepted(decide(s, ChargebackCommand.Reopen({ body: 1 })), "frozen reopen")
    const p = freeze(state())
    accepted(decide(p, ChargebackCommand.Accept({ body: 1, levy: 1 })), "frozen accept")
    assert.deepStrictEqual(s, state({ status: "rejected" }))
    assert.deepStrictEqual(p, state())
  })
})

// --- properties ------------------------------------------------------------------------------

const amountArb = FastCheck.integer({ min: 1, max: 1_000_000 })
const optAmount = FastCheck.option(amountArb, { nil: undefined })
const stageArb = FastCheck.constantFrom<Stage>(...STAGES)

const commandArb: FastCheck.Arbitrary<Command> = FastCheck.oneof(
  FastCheck.tuple(optAmount, optAmount).map(([body, levy]) => ChargebackCommand.Accept({ body, levy })),
  optAmount.map((levy) => ChargebackCommand.Reject({ levy })),
  FastCheck.constant(ChargebackCommand.Cancel()),
  FastCheck.tuple(optAmount, optAmount, FastCheck.option(stageArb, { nil: undefined })).map(([body, levy, stage]) =>
    ChargebackCommand.Reopen({ body, levy, stage })
  )
)

const initialArb: FastCheck.Arbitrary<State> = FastCheck.tuple(amountArb, FastCheck.integer({ min: 0, max: 100_000 })).map((
  [body, levy]
) => ({ stage: "chargeback", status: "pending", body, levy }))

/** Any state, also unreachable ones: decide must be safe on them too. */
const anyStateArb: FastCheck.Arbitrary<State> = FastCheck.record({
  stage: stageArb,
  status: FastCheck.constantFrom<Status>(...STATUSES),
  body: amountArb,
  levy: FastCheck.integer({ min: 0, max: 100_000 })
})

const commandsArb = FastCheck.array(commandArb, { minLength: 1, maxLength: 25 })

/** Whether the command is legal, written independently of decide. */
const legal = (s: State, c: Command): boolean => {
  switch (c._tag) {
    case "Accept":
    case "Reject":
    case "Cancel":
      return s.status === "pending"
    case "Reopen": {
      if (s.status !== "rejected" || s.stage === "arbitration") return false
      const from = stageIndex(s.stage)
      const to = c.stage === undefined ? from + 1 : stageIndex(c.stage)
      return to === from + 1 || (to > from && s.stage === "chargeback")
    }
  }
}

/** What decide should answer for a legal command, written independently of decide. */
const expected = (s: State, c: Command): State => {
  switch (c._tag) {
    case "Accept":
      return { ...s, status: "accepted", body: c.body ?? s.body, levy: c.levy ?? s.levy }
    case "Reject":
      return { ...s, status: "rejected", levy: c.levy ?? s.levy }
    case "Cancel":
      return { ...s, status: "cancelled" }
    case "Reopen":
      return {
        stage: c.stage ?? STAGES[stageIndex(s.stage) + 1]!,
        status: "pending",
        body: c.body ?? s.body,
        levy: c.levy ?? s.levy
      }
  }
}

const MOVES: Readonly<Record<Status, ReadonlyArray<Status>>> = {
  pending: ["accepted", "rejected", "cancelled"],
  rejected: ["pending"],
  accepted: [],
  cancelled: []
}

const RUNS = { fastCheck: { numRuns: 200 } }

describe("Chargeback.decide: properties", () => {
  it.prop("on any state, a command succeeds exactly when legal, with the expected state", [anyStateArb, commandArb], ([s, c]) => {
    const before = freeze(s)
    const result = decide(before, c)
    assert.deepStrictEqual(before, s)
    if (legal(s, c)) assert.deepStrictEqual(accepted(result, c._tag), expected(s, c))
    else refused(result, `${c._tag} from ${s.status}/${s.stage}`)
  }, RUNS)

  it.prop(
    "random sequences: statuses move only pending → accepted/rejected/cancelled and rejected → pending; reopens advance the stage, never after arbitration",
    [initialArb, commandsArb],
    ([initial, commands]) => {
      let s = initial
      let reopens = 0
      const stagesSeen: Array<Stage> = [s.stage]
      for (const c of commands) {
        const result = decide(freeze(s), c)
        assert.strictEqual(Either.isRight(result), legal(s, c), `${c._tag} from ${s.status}/${s.stage}`)
        if (Either.isLeft(result)) {
          refused(result, c._tag)
          continue
        }
        const next = result.right
        if (next.status !== s.status) assert.include(MOVES[s.status], next.status, `${s.status} → ${next.status}`)
        if (c._tag === "Reopen") {
          assert.strictEqual(s.status, "rejected")
          assert.notStrictEqual(s.stage, "arbitration")
          assert.strictEqual(next.status, "pending")
          assert.isAbove(stageIndex(next.stage), stageIndex(s.stage), "a reopening advances the stage")
          reopens++
        } else {
          assert.strictEqual(next.stage, s.stage, "only a reopening changes the stage")
          assert.strictEqual(s.status, "pending")
        }
        if (c._tag === "Reject" || c._tag === "Cancel") assert.strictEqual(next.body, s.body, "the body stays")
        if (c._tag === "Cancel") assert.strictEqual(next.levy, s.levy, "the levy stays")
        stagesSeen.push(next.stage)
        s = next
      }
      // the stage never goes back, and there are at most two reopenings
      for (let i = 1; i < stagesSeen.length; i++) {
        assert.isAtLeast(stageIndex(stagesSeen[i]!), stageIndex(stagesSeen[i - 1]!))
      }
      assert.isAtMost(reopens, 2)
      // final statuses accept no command at all
      if (s.status === "accepted" || s.status === "cancelled") {
        for (const c of [ChargebackCommand.Accept({}), ChargebackCommand.Reject({}), ChargebackCommand.Cancel(), ChargebackCommand.Reopen({})]) {
          refused(decide(s, c), `${c._tag} after ${s.status}`)
        }
      }
    },
    RUNS
  )
})
