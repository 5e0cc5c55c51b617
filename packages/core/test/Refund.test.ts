import { assert, describe, it } from "@effect/vitest"
import { Chargeback, Refund } from "@kassa/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

type RefundLike = { readonly amount: number; readonly status: Refund.RefundStatus }

const { remaining } = Refund
const RUNS = { fastCheck: { numRuns: 200 } }

const statusArb = FastCheck.constantFrom<Refund.RefundStatus>("pending", "succeeded", "failed")
const refundArb = (max: number): FastCheck.Arbitrary<RefundLike> =>
  FastCheck.record({ amount: FastCheck.integer({ min: 1, max }), status: statusArb })

const counted = (refunds: ReadonlyArray<RefundLike>) =>
  refunds.filter((r) => r.status !== "failed").reduce((a, r) => a + r.amount, 0)

/**
 * A payment of `captured` with refunds and a charged-back part that together stay within it: the
 * states the services can reach.
 */
const consistentArb = FastCheck.integer({ min: 1, max: 10_000_000 }).chain((captured) =>
  FastCheck.tuple(
    FastCheck.constant(captured),
    FastCheck.array(refundArb(captured), { maxLength: 12 }),
    FastCheck.integer({ min: 0, max: captured })
  ).map(([c, refunds, chargedBack]) => {
    // keep only a prefix of the counted refunds that fits besides the charged-back part
    let room = c - chargedBack
    const kept = refunds.filter((r) => {
      if (r.status === "failed") return true
      if (r.amount > room) return false
      room -= r.amount
      return true
    })
    return { captured: c, refunds: kept, chargedBack }
  })
)

describe("Refund.remaining", () => {
  it("examples", () => {
    assert.strictEqual(remaining(10_000, []), 10_000)
    assert.strictEqual(remaining(10_000, [], 0), 10_000)
    assert.strictEqual(remaining(10_000, [{ amount: 3000, status: "succeeded" }]), 7000)
    assert.strictEqual(remaining(10_000, [{ amount: 3000, status: "pending" }]), 7000)
    assert.strictEqual(remaining(10_000, [{ amount: 3000, status: "failed" }]), 10_000)
    assert.strictEqual(
      remaining(10_000, [
        { amount: 1000, status: "succeeded" },
        { amount: 2000, status: "pending" },
        { amount: 4000, status: "failed" }
      ], 500),
      6500
    )
    assert.strictEqual(remaining(10_000, [{ amount: 10_000, status: "succeeded" }]), 0)
    assert.strictEqual(remaining(10_000, [], 10_000), 0)
  })

  it.prop("is captured − chargedBack − the non-failed refunds", [consistentArb], ([{ captured, refunds, chargedBack }]) => {
    assert.strictEqual(remaining(captured, refunds, chargedBack), captured - chargedBack - counted(refunds))
    assert.isAtLeast(remaining(captured, refunds, chargedBack), 0)
  }, RUNS)

  it.prop("never counts failed refunds, whatever their amounts", [
    consistentArb,
    FastCheck.array(FastCheck.integer({ min: 1, max: 1_000_000_000 }), { maxLength: 10 })
  ], ([{ captured, refunds, chargedBack }, failed]) => {
    const withFailed = [...refunds, ...failed.map((amount) => ({ amount, status: "failed" as const }))]
    assert.strictEqual(remaining(captured, withFailed, chargedBack), remaining(captured, refunds, chargedBack))
  }, RUNS)

  it.prop("does not depend on the order of the refunds", [consistentArb, FastCheck.integer()], ([{ captured, refunds, chargedBack }, seed]) => {
    const shuffled = [...refunds].sort((a, b) => ((a.amount * 31 + seed) % 7) - ((b.amount * 31 + seed) % 7))
    assert.strictEqual(remaining(captured, shuffled, chargedBack), remaining(captured, refunds, chargedBack))
  }, RUNS)

  it.prop("a pending or succeeded refund takes exactly its amount; the charged-back part defaults to 0", [
    consistentArb,
    FastCheck.constantFrom<Refund.RefundStatus>("pending", "succeeded")
  ], ([{ captured, refunds, chargedBack }, status]) => {
    const left = remaining(captured, refunds, chargedBack)
    if (left > 0) assert.strictEqual(remaining(captured, [...refunds, { amount: left, status }], chargedBack), 0)
    assert.strictEqual(remaining(captured, refunds), remaining(captured, refunds, 0))
  }, RUNS)

  // The documentation of `remaining` promises a result that is never negative.
  it.prop("is never negative, even when the inputs overdraw the payment", [
    FastCheck.integer({ min: 1, max: 1_000_000 }),
    FastCheck.array(refundArb(2_000_000), { maxLength: 8 }),
    FastCheck.integer({ min: 0, max: 2_000_000 })
  ], ([captured, refunds, chargedBack]) => {
    const left = remaining(captured, refunds, chargedBack)
    assert.isAtLeast(left, 0)
    assert.strictEqual(left, Math.max(0, captured - chargedBack - counted(refunds)))
  }, RUNS)
})

// --- a model of one captured payment ----------------------------------------------------------

interface Sim {
  readonly captured: number
  readonly refunds: Array<{ amount: number; status: Refund.RefundStatus }>
  readonly chargebacks: Array<Chargeback.ChargebackState>
}

type Op =
  | { readonly _tag: "CreateRefund"; readonly amount: number | undefined }
  | { readonly _tag: "SettleRefund"; readonly index: number; readonly ok: boolean }
  | { readonly _tag: "OpenChargeback"; readonly body: number | undefined; readonly levy: number }
  | { readonly _tag: "DecideChargeback"; readonly index: number; readonly command: Chargeback.ChargebackCommand }

/** Bodies of accepted chargebacks, as the refund service counts them. */
const chargedBackOf = (cbs: ReadonlyArray<Chargeback.ChargebackState>) =>
  cbs.filter((c) => c.status === "accepted").reduce((a, c) => a + c.body, 0)

const leftOf = (s: Sim) => remaining(s.captured, s.refunds, chargedBackOf(s.chargebacks))
const pendingChargeback = (s: Sim) => s.chargebacks.some((c) => c.status === "pending")

/**
 * One step of the simulated payment, with the services' rules around the pure functions:
 * refunds only while no chargeback is pending and within the remainder (the amount defaults
 * to it); a chargeback opens only when none is pending, its body within the remainder (default
 * the remainder); an accepted or reopened body may not exceed the remainder either. Answers
 * whether the step was applied.
 */
const step = (s: Sim, op: Op): boolean => {
  switch (op._tag) {
    case "CreateRefund": {
      if (pendingChargeback(s)) return false
      const left = leftOf(s)
      const amount = op.amount ?? left
      if (amount <= 0 || amount > left) return false
      s.refunds.push({ amount, status: "pending" })
      return true
    }
    case "SettleRefund": {
      if (s.refunds.length === 0) return false
      const r = s.refunds[op.index % s.refunds.length]!
      if (r.status !== "pending") return false
      r.status = op.ok ? "succeeded" : "failed"
      return true
    }
    case "OpenChargeback": {
      if (pendingChargeback(s)) return false
      const left = leftOf(s)
      const body = op.body ?? left
      if (body <= 0 || body > left) return false
      s.chargebacks.push({ stage: "chargeback", status: "pending", body, levy: op.levy })
      return true
    }
    case "DecideChargeback": {
      if (s.chargebacks.length === 0) return false
      const i = op.index % s.chargebacks.length
      const c = s.chargebacks[i]!
      const next = Chargeback.decide(c, op.command)
      if (Either.isLeft(next)) return false
      if (op.command._tag === "Reopen" && s.chargebacks.some((x, j) => j !== i && x.status === "pending")) return false
      // this chargeback is not accepted yet, so leftOf does not count it
      if ((op.command._tag === "Accept" || op.command._tag === "Reopen") && next.right.body > leftOf(s)) return false
      s.chargebacks[i] = next.right
      return true
    }
  }
}

const amountArb = FastCheck.integer({ min: 1, max: 6000 })
const opArb: FastCheck.Arbitrary<Op> = FastCheck.oneof(
  { weight: 4, arbitrary: FastCheck.option(amountArb, { nil: undefined, freq: 4 }).map((amount): Op => ({ _tag: "CreateRefund", amount })) },
  {
    weight: 4,
    arbitrary: FastCheck.tuple(FastCheck.nat(20), FastCheck.boolean()).map(([index, ok]): Op => ({ _tag: "SettleRefund", index, ok }))
  },
  {
    weight: 2,
    arbitrary: FastCheck.tuple(FastCheck.option(amountArb, { nil: undefined }), FastCheck.nat(500)).map(([body, levy]): Op => ({
      _tag: "OpenChargeback",
      body,
      levy
    }))
  },
  {
    weight: 3,
    arbitrary: FastCheck.tuple(
      FastCheck.nat(10),
      FastCheck.oneof(
        FastCheck.option(amountArb, { nil: undefined }).map((body) => Chargeback.ChargebackCommand.Accept({ body })),
        FastCheck.constant(Chargeback.ChargebackCommand.Reject({})),
        FastCheck.constant(Chargeback.ChargebackCommand.Cancel()),
        FastCheck.option(amountArb, { nil: undefined }).map((body) => Chargeback.ChargebackCommand.Reopen({ body }))
      )
    ).map(([index, command]): Op => ({ _tag: "DecideChargeback", index, command }))
  }
)

describe("a simulated payment (Refund.remaining with Chargeback.decide)", () => {
  it.prop(
    "succeeded and pending refunds plus accepted chargeback bodies never exceed the captured amount",
    [FastCheck.integer({ min: 1, max: 20_000 }), FastCheck.array(opArb, { minLength: 1, maxLength: 60 })],
    ([captured, ops]) => {
      const s: Sim = { captured, refunds: [], chargebacks: [] }
      for (const op of ops) {
        const pendingBefore = pendingChargeback(s)
        const refundsBefore = s.refunds.length
        const leftBefore = leftOf(s)
        const applied = step(s, op)
        const taken = counted(s.refunds) + chargedBackOf(s.chargebacks)
        assert.isAtMost(taken, captured, `after ${JSON.stringify(op)}`)
        assert.strictEqual(leftOf(s), captured - taken)
        assert.isAtLeast(leftOf(s), 0)
        // a refund never starts while a chargeback is pending
        if (pendingBefore) assert.strictEqual(s.refunds.length, refundsBefore)
        // an omitted amount refunds exactly the remainder
        if (applied && op._tag === "CreateRefund" && op.amount === undefined) {
          assert.strictEqual(s.refunds.at(-1)!.amount, leftBefore)
          assert.strictEqual(leftOf(s), 0)
        }
        // at most one chargeback is pending at a time
        assert.isAtMost(s.chargebacks.filter((c) => c.status === "pending").length, 1)
      }
      // once everything settles, the money taken back is what the refunds and chargebacks say
      for (const r of s.refunds) if (r.status === "pending") r.status = "succeeded"
      assert.isAtMost(counted(s.refunds) + chargedBackOf(s.chargebacks), captured)
    },
    RUNS
  )

  it.prop(
    "a burst of refund requests accepted in any order never exceeds the remainder, and fills it greedily",
    [FastCheck.integer({ min: 1, max: 5000 }), FastCheck.array(FastCheck.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 50 })],
    ([captured, amounts]) => {
      const s: Sim = { captured, refunds: [], chargebacks: [] }
      let accepted = 0
      for (const amount of amounts) {
        const left = leftOf(s)
        const ok = step(s, { _tag: "CreateRefund", amount })
        assert.strictEqual(ok, amount <= left, `${amount} with ${left} left`)
        if (ok) accepted += amount
      }
      assert.strictEqual(accepted, counted(s.refunds))
      assert.isAtMost(accepted, captured)
      assert.strictEqual(leftOf(s), captured - accepted)
    },
    RUNS
  )

  it("an accepted chargeback takes its body out of the remainder; a rejected or cancelled one does not", () => {
    const s: Sim = { captured: 10_000, refunds: [], chargebacks: [] }
    assert.isTrue(step(s, { _tag: "CreateRefund", amount: 2000 }))
    assert.isTrue(step(s, { _tag: "OpenChargeback", body: undefined, levy: 100 }))
    assert.strictEqual(s.chargebacks[0]!.body, 8000, "the body defaults to the remainder")
    assert.isFalse(step(s, { _tag: "CreateRefund", amount: 1 }), "blocked while pending")
    assert.isFalse(step(s, { _tag: "OpenChargeback", body: 1, levy: 0 }), "one pending chargeback at a time")
    assert.isTrue(step(s, { _tag: "DecideChargeback", index: 0, command: Chargeback.ChargebackCommand.Reject({}) }))
    assert.strictEqual(leftOf(s), 8000)
    assert.isTrue(step(s, { _tag: "DecideChargeback", index: 0, command: Chargeback.ChargebackCommand.Reopen({ body: 3000 }) }))
    assert.isTrue(step(s, { _tag: "DecideChargeback", index: 0, command: Chargeback.ChargebackCommand.Accept({}) }))
    assert.strictEqual(leftOf(s), 5000)
    assert.isTrue(step(s, { _tag: "SettleRefund", index: 0, ok: false }))
    assert.strictEqual(leftOf(s), 7000)
    assert.isTrue(step(s, { _tag: "OpenChargeback", body: 500, levy: 0 }))
    assert.isTrue(step(s, { _tag: "DecideChargeback", index: 1, command: Chargeback.ChargebackCommand.Cancel() }))
    assert.strictEqual(leftOf(s), 7000)
    assert.isTrue(step(s, { _tag: "CreateRefund", amount: undefined }))
    assert.strictEqual(s.refunds.at(-1)!.amount, 7000)
    assert.strictEqual(leftOf(s), 0)
  })
})
