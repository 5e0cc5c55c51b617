import { assert, describe, it } from "@effect/vitest"
import { InvoiceMachine } from "@kassa/core"
import type { Invoice } from "@kassa/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

type State = InvoiceMachine.InvoiceState
type Command = InvoiceMachine.InvoiceCommand
type Status = Invoice.InvoiceStatus

const { decide, legalMoves, InvoiceCommand, OVERDUE } = InvoiceMachine

const DUE = 1_000_000
const dueDate = new Date(DUE)
const TERMINAL: ReadonlyArray<Status> = ["cancelled", "fulfilled"]
const PAYMENT_IDS = ["p1", "p2", "p3"] as const

const deepFreeze = <A>(a: A): A => {
  if (a !== null && typeof a === "object" && !(a instanceof Date)) {
    for (const v of Object.values(a)) deepFreeze(v)
    Object.freeze(a)
  }
  return a
}

const snapshot = (s: State) => ({ ...s, dueDate: s.dueDate.getTime() })

// --- arbitraries ---------------------------------------------------------------------------

const statusArb = FastCheck.constantFrom<Status>("unpaid", "cancelled", "paid", "fulfilled")
const paymentIdArb = FastCheck.constantFrom(...PAYMENT_IDS)
const reasonArb = FastCheck.string({ maxLength: 12 })

/** A valid state: a payment is in flight only while unpaid. */
const stateArb: FastCheck.Arbitrary<State> = FastCheck.tuple(
  statusArb,
  FastCheck.option(paymentIdArb, { nil: undefined }),
  FastCheck.option(reasonArb, { nil: undefined })
).map(([status, payment, reason]) => ({
  status,
  ...(status === "cancelled" || status === "fulfilled" ? { reason: reason ?? "r" } : {}),
  activePaymentID: status === "unpaid" ? payment : undefined,
  dueDate
}))

const commandArb: FastCheck.Arbitrary<Command> = FastCheck.oneof(
  reasonArb.map((reason) => InvoiceCommand.Fulfill({ reason })),
  reasonArb.map((reason) => InvoiceCommand.Rescind({ reason })),
  FastCheck.constant(InvoiceCommand.Expire()),
  paymentIdArb.map((paymentID) => InvoiceCommand.StartPayment({ paymentID })),
  FastCheck.tuple(paymentIdArb, FastCheck.constantFrom<"captured" | "failed" | "cancelled">("captured", "failed", "cancelled")).map(
    ([paymentID, outcome]) => InvoiceCommand.SettlePayment({ paymentID, outcome })
  )
)

/** `now` around the due date, with the due date itself and its neighbours often. */
const nowArb = FastCheck.oneof(
  FastCheck.constantFrom(DUE - 1, DUE, DUE + 1),
  FastCheck.integer({ min: DUE - 10_000, max: DUE + 10_000 }),
  FastCheck.integer({ min: 0, max: 3 * DUE })
).map((ms) => new Date(ms))

const stepsArb = FastCheck.array(FastCheck.tuple(commandArb, nowArb), { minLength: 1, maxLength: 30 })

const RUNS = { fastCheck: { numRuns: 200 } }

/** Runs the sequence, checking each step's invariants; answers the trace. */
const run = (
  initial: State,
  steps: ReadonlyArray<readonly [Command, Date]>,
  check: (before: State, command: Command, now: Date, result: ReturnType<typeof decide>) => void
) => {
  let state = initial
  for (const [command, now] of steps) {
    const before = deepFreeze({ ...state })
    const copy = snapshot(before)
    const result = decide(before, command, now)
    // decide is pure: the input state is never modified, whatever the outcome
    assert.deepStrictEqual(snapshot(before), copy)
    check(before, command, now, result)
    if (Either.isRight(result)) state = result.right.state
  }
  return state
}

describe("InvoiceMachine.decide", () => {
  it.prop("statuses only move along legalMoves", [stateArb, stepsArb], ([initial, steps]) => {
    run(initial, steps, (before, _command, _now, result) => {
      if (Either.isLeft(result)) return
      const after = result.right.state.status
      if (after !== before.status) {
        assert.include(legalMoves[before.status], after, `${before.status} → ${after}`)
      }
    })
  }, RUNS)

  it.prop("terminal statuses never change", [stateArb, stepsArb], ([initial, steps]) => {
    run(initial, steps, (before, _command, _now, result) => {
      if (!TERMINAL.includes(before.status)) return
      if (Either.isRight(result)) {
        assert.strictEqual(result.right.state.status, before.status)
        assert.strictEqual(result.right.state.reason, before.reason)
        assert.deepStrictEqual(result.right.changes, [])
      }
    })
  }, RUNS)

  it.prop("an error is a business error and leaves the state untouched", [stateArb, stepsArb], ([initial, steps]) => {
    run(initial, steps, (before, command, _now, result) => {
      if (Either.isRight(result)) return
      assert.strictEqual(result.left._tag, "BusinessError")
      assert.include(["invalidInvoiceStatus", "invoicePaymentPending"], result.left.code)
      // Expire and SettlePayment never fail: they are no-ops when they do not apply
      assert.notInclude(["Expire", "SettlePayment"], command._tag)
      // the caller keeps its state: nothing in the input moved
      assert.isTrue(Object.isFrozen(before))
    })
  }, RUNS)

  it.prop("a payment is in flight only while unpaid", [stateArb, stepsArb], ([initial, steps]) => {
    const last = run(initial, steps, (_before, _command, _now, result) => {
      if (Either.isLeft(result)) return
      const s = result.right.state
      if (s.activePaymentID !== undefined) assert.strictEqual(s.status, "unpaid")
    })
    if (last.activePaymentID !== undefined) assert.strictEqual(last.status, "unpaid")
  }, RUNS)

  it.prop("each status change emits exactly one InvoiceStatusChanged with the new status", [stateArb, stepsArb], ([
    initial,
    steps
  ]) => {
    run(initial, steps, (before, _command, _now, result) => {
      if (Either.isLeft(result)) return
      const { changes, state } = result.right
      if (state.status === before.status) {
        assert.deepStrictEqual(changes, [])
      } else {
        assert.strictEqual(changes.length, 1)
        const change = changes[0]!
        assert.strictEqual(change.changeType, "InvoiceStatusChanged")
        if (change.changeType !== "InvoiceStatusChanged") return
        assert.strictEqual(change.status, state.status)
        assert.strictEqual(change.reason, state.reason)
        assert.isUndefined(state.activePaymentID)
      }
    })
  }, RUNS)

  it.prop("Rescind with a payment in flight is invoicePaymentPending", [
    paymentIdArb,
    reasonArb,
    nowArb
  ], ([paymentID, reason, now]) => {
    const state = deepFreeze<State>({ status: "unpaid", activePaymentID: paymentID, dueDate })
    const result = decide(state, InvoiceCommand.Rescind({ reason }), now)
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.strictEqual(result.left.code, "invoicePaymentPending")
      assert.include(result.left.message, paymentID)
    }
  }, RUNS)

  it.prop("Expire before due or with a payment in flight changes nothing", [stateArb, nowArb], ([state, now]) => {
    const frozen = deepFreeze(state)
    const result = decide(frozen, InvoiceCommand.Expire(), now)
    assert.isTrue(Either.isRight(result))
    if (Either.isLeft(result)) return
    const applies = frozen.status === "unpaid" && frozen.activePaymentID === undefined && now.getTime() >= DUE
    if (applies) {
      assert.deepStrictEqual(result.right.state, { ...frozen, status: "cancelled", reason: OVERDUE, activePaymentID: undefined })
      assert.deepStrictEqual(result.right.changes, [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: OVERDUE }])
    } else {
      assert.strictEqual(result.right.state, frozen)
      assert.deepStrictEqual(result.right.changes, [])
    }
  }, RUNS)

  it.prop("StartPayment needs an open unpaid invoice before its due date", [stateArb, paymentIdArb, nowArb], ([
    state,
    paymentID,
    now
  ]) => {
    const result = decide(deepFreeze(state), InvoiceCommand.StartPayment({ paymentID }), now)
    if (state.status !== "unpaid") {
      assert.isTrue(Either.isLeft(result) && result.left.code === "invalidInvoiceStatus")
    } else if (state.activePaymentID !== undefined) {
      assert.isTrue(Either.isLeft(result) && result.left.code === "invoicePaymentPending")
    } else if (now.getTime() >= DUE) {
      assert.isTrue(Either.isLeft(result) && result.left.code === "invalidInvoiceStatus")
    } else {
      assert.isTrue(Either.isRight(result))
      if (Either.isRight(result)) {
        assert.deepStrictEqual(result.right.state, { ...state, activePaymentID: paymentID })
        assert.deepStrictEqual(result.right.changes, [])
      }
    }
  }, RUNS)

  it.prop("a settled payment: captured → paid, failed/cancelled → open again or overdue", [
    paymentIdArb,
    FastCheck.constantFrom<"captured" | "failed" | "cancelled">("captured", "failed", "cancelled"),
    nowArb
  ], ([paymentID, outcome, now]) => {
    const state = deepFreeze<State>({ status: "unpaid", activePaymentID: paymentID, dueDate })
    const result = decide(state, InvoiceCommand.SettlePayment({ paymentID, outcome }), now)
    assert.isTrue(Either.isRight(result))
    if (Either.isLeft(result)) return
    const { changes, state: after } = result.right
    if (outcome === "captured") {
      assert.strictEqual(after.status, "paid")
      assert.deepStrictEqual(changes, [{ changeType: "InvoiceStatusChanged", status: "paid" }])
    } else if (now.getTime() >= DUE) {
      assert.strictEqual(after.status, "cancelled")
      assert.strictEqual(after.reason, OVERDUE)
      assert.deepStrictEqual(changes, [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: OVERDUE }])
    } else {
      assert.strictEqual(after.status, "unpaid")
      assert.deepStrictEqual(changes, [])
    }
    assert.isUndefined(after.activePaymentID)
    // another payment's outcome changes nothing
    const other = PAYMENT_IDS.find((p) => p !== paymentID)!
    const ignored = decide(state, InvoiceCommand.SettlePayment({ paymentID: other, outcome }), now)
    assert.isTrue(Either.isRight(ignored) && ignored.right.state === state && ignored.right.changes.length === 0)
  }, RUNS)

  it("the transitions of the reference table", () => {
    const at = (ms: number) => new Date(ms)
    const unpaid: State = { status: "unpaid", activePaymentID: undefined, dueDate }
    const ok = (r: ReturnType<typeof decide>) => {
      assert.isTrue(Either.isRight(r), Either.isLeft(r) ? r.left.message : "")
      return Either.getOrThrow(r)
    }
    const code = (r: ReturnType<typeof decide>) => (Either.isLeft(r) ? r.left.code : undefined)

    // unpaid → cancelled by Rescind, with the reason
    const rescinded = ok(decide(unpaid, InvoiceCommand.Rescind({ reason: "no longer needed" }), at(0)))
    assert.deepStrictEqual(rescinded.state, { ...unpaid, status: "cancelled", reason: "no longer needed" })
    assert.deepStrictEqual(rescinded.changes, [
      { changeType: "InvoiceStatusChanged", status: "cancelled", reason: "no longer needed" }
    ])
    // rescind twice, fulfil an unpaid or cancelled invoice → invalidInvoiceStatus
    assert.strictEqual(code(decide(rescinded.state, InvoiceCommand.Rescind({ reason: "again" }), at(0))), "invalidInvoiceStatus")
    assert.strictEqual(code(decide(unpaid, InvoiceCommand.Fulfill({ reason: "x" }), at(0))), "invalidInvoiceStatus")
    assert.strictEqual(code(decide(rescinded.state, InvoiceCommand.Fulfill({ reason: "x" }), at(0))), "invalidInvoiceStatus")

    // unpaid → (payment) → paid → fulfilled
    const started = ok(decide(unpaid, InvoiceCommand.StartPayment({ paymentID: "p1" }), at(DUE - 1)))
    assert.strictEqual(started.state.activePaymentID, "p1")
    assert.strictEqual(code(decide(started.state, InvoiceCommand.StartPayment({ paymentID: "p2" }), at(0))), "invoicePaymentPending")
    const paid = ok(decide(started.state, InvoiceCommand.SettlePayment({ paymentID: "p1", outcome: "captured" }), at(DUE + 5)))
    assert.strictEqual(paid.state.status, "paid")
    // a paid invoice never expires and cannot be rescinded
    assert.strictEqual(ok(decide(paid.state, InvoiceCommand.Expire(), at(DUE * 2))).state, paid.state)
    assert.strictEqual(code(decide(paid.state, InvoiceCommand.Rescind({ reason: "x" }), at(0))), "invalidInvoiceStatus")
    const fulfilled = ok(decide(paid.state, InvoiceCommand.Fulfill({ reason: "delivered" }), at(DUE * 2)))
    assert.deepStrictEqual(fulfilled.state, { ...paid.state, status: "fulfilled", reason: "delivered" })
    assert.deepStrictEqual(fulfilled.changes, [{ changeType: "InvoiceStatusChanged", status: "fulfilled", reason: "delivered" }])
    assert.strictEqual(code(decide(fulfilled.state, InvoiceCommand.Fulfill({ reason: "x" }), at(0))), "invalidInvoiceStatus")

    // unpaid → cancelled("overdue") at the due date, not a millisecond before
    assert.strictEqual(ok(decide(unpaid, InvoiceCommand.Expire(), at(DUE - 1))).state, unpaid)
    assert.deepStrictEqual(ok(decide(unpaid, InvoiceCommand.Expire(), at(DUE))).state, {
      ...unpaid,
      status: "cancelled",
      reason: OVERDUE
    })
    // no payment can start at or after the due date
    assert.strictEqual(code(decide(unpaid, InvoiceCommand.StartPayment({ paymentID: "p1" }), at(DUE))), "invalidInvoiceStatus")
  })
})
