import { assert, describe, it } from "@effect/vitest"
import * as RefundMachine from "@kassa/core/refund/RefundMachine"
import type { RefundStatus } from "@kassa/core/refund/Refund"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const { chargedBackOf, decide, legalMoves, refundsPayment, remainingOf, RefundCommand, start } = RefundMachine
const RUNS = { fastCheck: { numRuns: 200 } }
const TERMS: RefundMachine.RefundTerms = { fee: 100, allocationAllowed: true, partyShops: new Set(["s1", "s2"]) }

interface Sim {
  status: string
  readonly amount: number
  readonly currency: "RUB"
  readonly shopID: "s1"
  refunds: Array<RefundMachine.RefundState & { readonly amount: number; readonly status: RefundStatus }>
  chargebacks: Array<{ status: string; body: number }>
}

type Step =
  | { readonly _tag: "Start"; readonly amount: "rest" | { readonly ratio: number } | { readonly delta: number }; readonly currency: string | undefined }
  | { readonly _tag: "Settle"; readonly pick: number; readonly succeeded: boolean }
  | { readonly _tag: "Chargeback"; readonly ratio: number; readonly accepted: boolean }
  | { readonly _tag: "ChargebackDecided" }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    weight: 4,
    arbitrary: FastCheck.record({
      amount: FastCheck.oneof(
        FastCheck.constant("rest" as const),
        FastCheck.double({ min: 0, max: 1.2, noNaN: true }).map((ratio) => ({ ratio })),
        FastCheck.integer({ min: -2, max: 2 }).map((delta) => ({ delta }))
      ),
      currency: FastCheck.constantFrom(undefined, "RUB", "USD")
    }).map((s): Step => ({ _tag: "Start", ...s }))
  },
  {
    weight: 4,
    arbitrary: FastCheck.record({ pick: FastCheck.nat(20), succeeded: FastCheck.boolean() }).map((s): Step => ({ _tag: "Settle", ...s }))
  },
  {
    weight: 1,
    arbitrary: FastCheck.record({ ratio: FastCheck.double({ min: 0, max: 1, noNaN: true }), accepted: FastCheck.boolean() })
      .map((s): Step => ({ _tag: "Chargeback", ...s }))
  },
  { weight: 1, arbitrary: FastCheck.constant<Step>({ _tag: "ChargebackDecided" }) }
)

const counted = (s: Sim) => s.refunds.filter((r) => r.status !== "failed").reduce((a, r) => a + r.amount, 0)

/** Runs one step as the services do; checks the machine's answer and answers the simulation's next state. */
const run = (s: Sim, step: Step): void => {
  const left = remainingOf(s)
  switch (step._tag) {
    case "Start": {
      const amount = step.amount === "rest"
        ? undefined
        : "ratio" in step.amount
        ? Math.max(1, Math.round(left * step.amount.ratio))
        : Math.max(1, left + step.amount.delta)
      const started = start(s, { amount, currency: step.currency }, TERMS)
      const expected = s.status !== "captured"
        ? "invalidPaymentStatus"
        : s.chargebacks.some((c) => c.status === "pending")
        ? "chargebackInProgress"
        : step.currency !== undefined && step.currency !== s.currency
        ? "inconsistentRefundCurrency"
        : (amount ?? left) <= 0 || (amount ?? left) > left
        ? "invoicePaymentAmountExceeded"
        : undefined
      assert.strictEqual(Either.isLeft(started) ? started.left.code : undefined, expected)
      if (Either.isRight(started)) {
        assert.strictEqual(started.right.amount, amount ?? left, "by default all that remains")
        assert.isAbove(started.right.amount, 0)
        assert.isAtMost(started.right.amount, left, "a refund never exceeds the remainder")
        assert.strictEqual(started.right.fee, TERMS.fee)
        s.refunds.push({ id: String(s.refunds.length + 1), paymentID: "1", status: "pending", amount: started.right.amount })
      }
      return
    }
    case "Settle": {
      if (s.refunds.length === 0) return
      const i = step.pick % s.refunds.length
      const before = s.refunds[i]!
      const command = step.succeeded
        ? RefundCommand.Succeeded()
        : RefundCommand.Failed({ error: { code: "refund_failed", message: "declined" } })
      const { changes, state } = decide(before, command)
      if (before.status !== "pending") {
        assert.strictEqual(state, before, "a settled refund changes nothing")
        assert.deepStrictEqual(changes, [])
        return
      }
      assert.include(legalMoves[before.status], state.status)
      assert.deepStrictEqual(changes.map((c) => c.status), [state.status])
      assert.strictEqual(changes[0]!.refundID, before.id)
      if (state.status === "failed") assert.isDefined(state.error)
      s.refunds[i] = { ...before, ...state }
      if (state.status === "succeeded" && refundsPayment(s)) s.status = "refunded"
      return
    }
    case "Chargeback": {
      // the operator opens one only on a captured payment with room and none pending
      if (s.status !== "captured" || left === 0 || s.chargebacks.some((c) => c.status === "pending")) return
      s.chargebacks.push({ status: step.accepted ? "accepted" : "pending", body: Math.max(1, Math.round(left * step.ratio)) })
      return
    }
    case "ChargebackDecided": {
      const pending = s.chargebacks.find((c) => c.status === "pending")
      if (pending !== undefined && pending.body <= left) pending.status = "accepted"
      else if (pending !== undefined) pending.status = "rejected"
      return
    }
  }
}

describe("RefundMachine", () => {
  it.prop(
    "generated command sequences conserve money: refunds never exceed the remainder, which is never negative",
    [FastCheck.integer({ min: 1, max: 1_000_000 }), FastCheck.array(stepArb, { minLength: 1, maxLength: 40 })],
    ([amount, steps]) => {
      const s: Sim = { status: "captured", amount, currency: "RUB", shopID: "s1", refunds: [], chargebacks: [] }
      for (const step of steps) {
        const statuses = s.refunds.map((r) => r.status)
        run(s, step)
        // captured = remaining + refunds taken + charged back
        assert.isAtLeast(remainingOf(s), 0)
        assert.strictEqual(remainingOf(s) + counted(s) + chargedBackOf(s.chargebacks), amount)
        // statuses move only along legalMoves
        statuses.forEach((before, i) => {
          const after = s.refunds[i]!.status
          if (after !== before) assert.include(legalMoves[before], after)
        })
        // refunded exactly when nothing remains and nothing is pending
        if (s.status === "refunded") {
          assert.strictEqual(remainingOf(s), 0)
          assert.isTrue(s.refunds.every((r) => r.status !== "pending"))
        }
      }
    },
    RUNS
  )

  it("a cart refund takes what the final cart leaves; a conflicting one is refused", () => {
    const payment = { status: "captured", amount: 1000, currency: "RUB", shopID: "s1", refunds: [], chargebacks: [] }
    const cart = [{ product: "kept", quantity: 1, price: 300 }]
    const started = start(payment, { cart }, TERMS)
    assert.isTrue(Either.isRight(started))
    if (Either.isRight(started)) assert.strictEqual(started.right.amount, 700)
    const wrong = start(payment, { cart, amount: 500 }, TERMS)
    assert.strictEqual(Either.isLeft(wrong) ? wrong.left.code : undefined, "invalidInvoiceCart")
  })

  it("an allocation must total the refund and is refused where the contract does not permit it", () => {
    const payment = { status: "captured", amount: 1000, currency: "RUB", shopID: "s1", refunds: [], chargebacks: [] }
    const allocation = [{
      target: { allocationTargetType: "AllocationTargetShop" as const, shopID: "s2" },
      allocationBodyType: "AllocationBodyAmount" as const,
      amount: 400,
      currency: "RUB"
    }]
    const ok = start(payment, { amount: 400, allocation }, TERMS)
    assert.isTrue(Either.isRight(ok))
    const off = start(payment, { amount: 500, allocation }, TERMS)
    assert.strictEqual(Either.isLeft(off) ? off.left.code : undefined, "invalidAllocation")
    const denied = start(payment, { amount: 400, allocation }, { ...TERMS, allocationAllowed: false })
    assert.strictEqual(Either.isLeft(denied) ? denied.left.code : undefined, "allocationNotPermitted")
  })
})
