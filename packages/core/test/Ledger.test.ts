import { assert, describe, it } from "@effect/vitest"
import * as Model from "@kassa/core/ledger/LedgerModel"
import type { Batch, PlanState, Posting } from "@kassa/core/ports/Ledger"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

type State = Model.LedgerState

// --- the ledger under test: seven accounts in two currencies, opened at zero ----------------

const RUB = [1, 2, 3, 4] as const
const USD = [5, 6, 7] as const
const CURRENCY: Record<number, string> = { 1: "RUB", 2: "RUB", 3: "RUB", 4: "RUB", 5: "USD", 6: "USD", 7: "USD" }
const ALL = [...RUB, ...USD]

const initial: State = ALL.reduce((s, id) => Model.withAccount(s, Model.makeAccount(id, CURRENCY[id]!)), Model.empty)

/** A deterministic picture of the state, to compare states and to catch mutated inputs. */
const snapshot = (s: State) => ({
  accounts: [...s.accounts.values()].sort((a, b) => a.id - b.id).map((a) => ({ ...a })),
  plans: [...s.plans.values()].sort((a, b) => a.id.localeCompare(b.id)).map((p) => JSON.parse(JSON.stringify(p)))
})

const posting = (from: number, to: number, amount: number, description = "d"): Posting => ({
  from,
  to,
  amount,
  currency: CURRENCY[from]!,
  description
})

const right = <A>(e: Either.Either<A, Model.LedgerError>): A => {
  if (Either.isLeft(e)) assert.fail(`refused: ${e.left.reason}`)
  return e.right
}

const reason = <A>(e: Either.Either<A, Model.LedgerError>): string => {
  if (Either.isRight(e)) return assert.fail("accepted, expected a refusal")
  assert.strictEqual(e.left._tag, "LedgerError")
  return e.left.reason
}

const holdAll = (s: State, planID: string, batches: ReadonlyArray<Batch>): State =>
  batches.reduce((acc, b) => right(Model.hold(acc, planID, b)), s)

const sumsByCurrency = (s: State) => {
  const sums: Record<string, { own: number; pending: number }> = { RUB: { own: 0, pending: 0 }, USD: { own: 0, pending: 0 } }
  for (const a of s.accounts.values()) {
    sums[a.currency]!.own += a.own
    sums[a.currency]!.pending += a.minDiff + a.maxDiff
  }
  return sums
}

// --- arbitraries ---------------------------------------------------------------------------

const amountArb = FastCheck.oneof(
  FastCheck.integer({ min: 0, max: 10_000 }),
  FastCheck.constantFrom(0, 1, 1_000_000_000_000)
)

const pairArb = (ids: ReadonlyArray<number>) =>
  FastCheck.tuple(FastCheck.constantFrom(...ids), FastCheck.constantFrom(...ids)).filter(([a, b]) => a !== b)

const validPostingArb: FastCheck.Arbitrary<Posting> = FastCheck.tuple(
  FastCheck.oneof(pairArb(RUB), pairArb(USD)),
  amountArb,
  FastCheck.constantFrom("payment", "fee", "")
).map(([[from, to], amount, description]) => posting(from, to, amount, description))

/** Postings the ledger must refuse. */
const invalidPostingArb: FastCheck.Arbitrary<Posting> = FastCheck.oneof(
  FastCheck.constantFrom(...ALL).map((id) => posting(id, id, 10)),
  FastCheck.tuple(FastCheck.constantFrom(...RUB), FastCheck.constantFrom(...USD)).map(([from, to]) => posting(from, to, 10)),
  pairArb(RUB).map(([from, to]) => ({ ...posting(from, to, 10), currency: "USD" })),
  pairArb(RUB).map(([from, to]) => posting(from, to, -1)),
  pairArb(RUB).map(([from, to]) => posting(from, to, 1.5)),
  FastCheck.constantFrom(...RUB).map((from) => posting(from, 99, 10))
)

/** A batch and whether it is valid. */
const batchArb: FastCheck.Arbitrary<{ batch: Batch; valid: boolean }> = FastCheck.tuple(
  FastCheck.integer({ min: 1, max: 6 }),
  FastCheck.array(validPostingArb, { minLength: 1, maxLength: 4 }),
  FastCheck.oneof(
    { weight: 8, arbitrary: FastCheck.constant<"valid" | "invalid" | "empty">("valid") },
    { weight: 1, arbitrary: FastCheck.constant<"valid" | "invalid" | "empty">("invalid") },
    { weight: 1, arbitrary: FastCheck.constant<"valid" | "invalid" | "empty">("empty") }
  ),
  invalidPostingArb,
  FastCheck.nat()
).map(([id, postings, kind, bad, at]) => {
  if (kind === "empty") return { batch: { id, postings: [] }, valid: false }
  if (kind === "valid") return { batch: { id, postings }, valid: true }
  const spoiled = [...postings]
  spoiled.splice(at % (postings.length + 1), 0, bad)
  return { batch: { id, postings: spoiled }, valid: false }
})

type Op =
  | { readonly _tag: "hold" | "post"; readonly plan: string; readonly batch: Batch; readonly valid: boolean }
  | { readonly _tag: "commit" | "rollback"; readonly plan: string }

/**
 * A generated step: `next` holds with the id after the plan's last, `resend` re-holds a held
 * batch, `repost` posts a copy of the plan's first batch.
 */
type Step =
  | Op
  | { readonly _tag: "next"; readonly plan: string; readonly batch: Batch; readonly valid: boolean }
  | { readonly _tag: "resend"; readonly plan: string; readonly pick: number }
  | { readonly _tag: "repost"; readonly plan: string }

const planArb = FastCheck.constantFrom("plan-a", "plan-b", "plan-c", "plan-d", "plan-e")

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  { weight: 3, arbitrary: FastCheck.tuple(planArb, batchArb).map(([plan, b]): Step => ({ _tag: "hold", plan, ...b })) },
  { weight: 3, arbitrary: FastCheck.tuple(planArb, batchArb).map(([plan, b]): Step => ({ _tag: "next", plan, ...b })) },
  { weight: 1, arbitrary: FastCheck.tuple(planArb, FastCheck.nat()).map(([plan, pick]): Step => ({ _tag: "resend", plan, pick })) },
  { weight: 2, arbitrary: FastCheck.tuple(planArb, batchArb).map(([plan, b]): Step => ({ _tag: "post", plan, ...b })) },
  { weight: 1, arbitrary: planArb.map((plan): Step => ({ _tag: "repost", plan })) },
  { weight: 2, arbitrary: planArb.map((plan): Step => ({ _tag: "commit", plan })) },
  { weight: 2, arbitrary: planArb.map((plan): Step => ({ _tag: "rollback", plan })) }
)

/** Turns a step into an op, given the plans held so far (a copy of a held batch for `resend`). */
const resolve = (plans: ReadonlyMap<string, { readonly batches: ReadonlyArray<Batch> }>, step: Step): Op => {
  const batches = plans.get(step.plan)?.batches ?? []
  switch (step._tag) {
    case "next": {
      const id = batches.reduce((max, b) => Math.max(max, b.id), 0) + 1
      return { _tag: "hold", plan: step.plan, batch: { ...step.batch, id }, valid: step.valid }
    }
    case "resend": {
      const batch = batches[step.pick % Math.max(batches.length, 1)]
      return batch === undefined
        ? { _tag: "commit", plan: step.plan }
        : { _tag: "hold", plan: step.plan, batch: JSON.parse(JSON.stringify(batch)), valid: true }
    }
    case "repost": {
      const batch = batches[0]
      return batch === undefined
        ? { _tag: "commit", plan: step.plan }
        : { _tag: "post", plan: step.plan, batch: JSON.parse(JSON.stringify(batch)), valid: true }
    }
    default:
      return step
  }
}

const apply = (s: State, op: Op) =>
  op._tag === "hold" ? Model.hold(s, op.plan, op.batch) : op._tag === "post" ? Model.post(s, op.plan, op.batch) : (op._tag === "commit" ? Model.commit : Model.rollback)(s, op.plan)

// --- an independent oracle: plan states and batches, and balances posting by posting ----------

interface OraclePlan {
  state: PlanState
  batches: Array<Batch>
}

const samePostings = (a: Batch, b: Batch) => JSON.stringify(a.postings) === JSON.stringify(b.postings)

/** Whether the op is accepted, and whether it changes anything. */
const oracleStep = (plans: Map<string, OraclePlan>, op: Op): "refused" | "noop" | "applied" => {
  const plan = plans.get(op.plan)
  if (op._tag === "hold") {
    if (plan !== undefined) {
      if (plan.state !== "hold") return "refused"
      const saved = plan.batches.find((b) => b.id === op.batch.id)
      if (saved !== undefined) return samePostings(saved, op.batch) ? "noop" : "refused"
      if (plan.batches.some((b) => b.id > op.batch.id)) return "refused"
    }
    if (!op.valid) return "refused"
    plans.set(op.plan, { state: "hold", batches: [...(plan?.batches ?? []), op.batch] })
    return "applied"
  }
  if (op._tag === "post") {
    if (plan === undefined) {
      if (!op.valid) return "refused"
      plans.set(op.plan, { state: "commit", batches: [op.batch] })
      return "applied"
    }
    const only = plan.batches.length === 1 ? plan.batches[0]! : undefined
    if (only === undefined || only.id !== op.batch.id || !samePostings(only, op.batch)) return "refused"
    if (plan.state === "commit") return "noop"
    if (plan.state !== "hold") return "refused"
    plan.state = "commit"
    return "applied"
  }
  if (plan === undefined) return "refused"
  if (plan.state === op._tag) return "noop"
  if (plan.state !== "hold") return "refused"
  plan.state = op._tag
  return "applied"
}

const oracleBalances = (plans: Map<string, OraclePlan>) => {
  const own = new Map<number, number>(ALL.map((id) => [id, 0]))
  const min = new Map<number, number>(ALL.map((id) => [id, 0]))
  const max = new Map<number, number>(ALL.map((id) => [id, 0]))
  for (const plan of plans.values()) {
    for (const batch of plan.batches) {
      const net = new Map<number, number>()
      for (const p of batch.postings) {
        net.set(p.to, (net.get(p.to) ?? 0) + p.amount)
        net.set(p.from, (net.get(p.from) ?? 0) - p.amount)
      }
      for (const [id, n] of net) {
        if (plan.state === "commit") own.set(id, own.get(id)! + n)
        if (plan.state === "hold" && n < 0) min.set(id, min.get(id)! + n)
        if (plan.state === "hold" && n > 0) max.set(id, max.get(id)! + n)
      }
    }
  }
  return ALL.map((id) => ({ id, own: own.get(id)!, minAvailable: own.get(id)! + min.get(id)!, maxAvailable: own.get(id)! + max.get(id)! }))
}

const balances = (s: State) => ALL.map((id) => ({ id, ...Model.balanceOf(s.accounts.get(id)!) }))

// --- the tests -----------------------------------------------------------------------------

describe("LedgerModel", () => {
  it.prop(
    "random hold/post/commit/rollback sequences keep the invariants, conserve money and match the oracle",
    [FastCheck.array(stepArb, { minLength: 10, maxLength: 40 })],
    ([steps]) => {
      let state = initial
      const plans = new Map<string, OraclePlan>()
      for (const step of steps) {
        const op = resolve(plans, step)
        const before = snapshot(state)
        const result = apply(state, op)
        assert.deepStrictEqual(snapshot(state), before, "the input state is never mutated")
        const expected = oracleStep(plans, op)
        if (expected === "refused") {
          reason(result)
        } else {
          const next = right(result)
          if (expected === "noop") assert.strictEqual(next, state, `${op._tag} is a no-op`)
          else assert.notDeepEqual(snapshot(next), before)
          state = next
        }
        assert.deepStrictEqual(Model.invariants(state), [])
        assert.deepStrictEqual(sumsByCurrency(state), { RUB: { own: 0, pending: 0 }, USD: { own: 0, pending: 0 } })
        assert.deepStrictEqual(balances(state), oracleBalances(plans))
        for (const [id, plan] of plans) assert.strictEqual(state.plans.get(id)!.state, plan.state)
      }
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "a committed plan refuses hold and rollback and changes nothing; commit again is a no-op",
    [FastCheck.uniqueArray(batchArb.filter((b) => b.valid).map((b) => b.batch), { minLength: 1, maxLength: 4, selector: (b) => b.id }), batchArb],
    ([batches, other]) => {
      const sorted = [...batches].sort((a, b) => a.id - b.id)
      const committed = right(Model.commit(holdAll(initial, "p", sorted), "p"))
      const before = snapshot(committed)
      assert.match(reason(Model.hold(committed, "p", other.batch)), /Unable to change plan state: plan p is committed/)
      assert.match(reason(Model.hold(committed, "p", sorted[0]!)), /Unable to change plan state/)
      assert.match(reason(Model.rollback(committed, "p")), /Unable to change plan state/)
      assert.strictEqual(right(Model.commit(committed, "p")), committed)
      assert.strictEqual(right(Model.commit(right(Model.commit(committed, "p")), "p")), committed)
      assert.deepStrictEqual(snapshot(committed), before)
      assert.deepStrictEqual(Model.invariants(committed), [])
      for (const a of committed.accounts.values()) assert.deepStrictEqual([a.minDiff, a.maxDiff], [0, 0])
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "a rolled-back plan refuses hold and commit and changes nothing; rollback again is a no-op",
    [FastCheck.uniqueArray(batchArb.filter((b) => b.valid).map((b) => b.batch), { minLength: 1, maxLength: 4, selector: (b) => b.id }), batchArb],
    ([batches, other]) => {
      const sorted = [...batches].sort((a, b) => a.id - b.id)
      const rolledBack = right(Model.rollback(holdAll(initial, "p", sorted), "p"))
      assert.deepStrictEqual(snapshot(rolledBack).accounts, snapshot(initial).accounts)
      assert.match(reason(Model.hold(rolledBack, "p", other.batch)), /Unable to change plan state: plan p is rolled back/)
      assert.match(reason(Model.commit(rolledBack, "p")), /Unable to change plan state/)
      assert.strictEqual(right(Model.rollback(rolledBack, "p")), rolledBack)
      assert.strictEqual(rolledBack.plans.get("p")!.state, "rollback")
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "re-holding an identical batch is a no-op; a changed batch with the same id or a lower id is refused",
    [
      FastCheck.uniqueArray(batchArb.filter((b) => b.valid).map((b) => b.batch), { minLength: 2, maxLength: 4, selector: (b) => b.id }),
      FastCheck.nat(),
      validPostingArb
    ],
    ([batches, pick, extra]) => {
      const sorted = [...batches].sort((a, b) => a.id - b.id)
      const held = holdAll(initial, "p", sorted)
      const saved = sorted[pick % sorted.length]!
      // an equal copy, not the same object
      assert.strictEqual(right(Model.hold(held, "p", JSON.parse(JSON.stringify(saved)))), held)
      assert.match(
        reason(Model.hold(held, "p", { id: saved.id, postings: [...saved.postings, extra] })),
        new RegExp(`batch ${saved.id} of plan p was held with other postings`)
      )
      const first = saved.postings[0]!
      const changed = { id: saved.id, postings: [{ ...first, amount: first.amount + 1 }, ...saved.postings.slice(1)] }
      reason(Model.hold(held, "p", changed))
      reason(Model.hold(held, "p", { id: saved.id, postings: [{ ...first, description: first.description + "!" }, ...saved.postings.slice(1)] }))
      // an unsaved id below the last one
      const last = sorted[sorted.length - 1]!.id
      const gap = sorted.length < last ? [1, 2, 3, 4, 5].find((id) => id < last && !sorted.some((b) => b.id === id)) : undefined
      if (gap !== undefined) {
        assert.match(reason(Model.hold(held, "p", { id: gap, postings: [extra] })), /must be greater than held batch/)
      }
      assert.match(reason(Model.hold(held, "p", { id: Number.MIN_SAFE_INTEGER, postings: [extra] })), /must be greater/)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("partial capture: flow of 1000, its reverse, a flow of 600, commit leaves the 600 flow", () => {
    const [provider, merchant, system] = [1, 2, 3]
    const flow = (amount: number) => [
      posting(provider, merchant, amount, "payment"),
      posting(merchant, system, Math.round(amount * 0.045), "merchant fee"),
      posting(system, provider, Math.round(amount * 0.02), "provider fee")
    ]
    const reverse = (postings: ReadonlyArray<Posting>) => postings.map((p) => ({ ...p, from: p.to, to: p.from }))
    const held = holdAll(initial, "invoice.payment", [
      { id: 1, postings: flow(1000) },
      { id: 2, postings: reverse(flow(1000)) },
      { id: 3, postings: flow(600) }
    ])
    const b = (s: State, id: number) => Model.balanceOf(s.accounts.get(id)!)
    // merchant: +955, −955, +573 pending
    assert.deepStrictEqual(b(held, merchant), { own: 0, minAvailable: -955, maxAvailable: 1528 })
    assert.deepStrictEqual(b(held, system), { own: 0, minAvailable: -25, maxAvailable: 40 })
    assert.deepStrictEqual(b(held, provider), { own: 0, minAvailable: -1568, maxAvailable: 980 })
    const committed = right(Model.commit(held, "invoice.payment"))
    assert.deepStrictEqual(b(committed, merchant), { own: 573, minAvailable: 573, maxAvailable: 573 })
    assert.deepStrictEqual(b(committed, system), { own: 15, minAvailable: 15, maxAvailable: 15 })
    assert.deepStrictEqual(b(committed, provider), { own: -588, minAvailable: -588, maxAvailable: -588 })
    assert.deepStrictEqual(b(committed, 4), { own: 0, minAvailable: 0, maxAvailable: 0 })
    assert.deepStrictEqual(Model.invariants(committed), [])
  })

  it.prop(
    "partial capture of any amount leaves exactly the captured flow",
    [FastCheck.integer({ min: 1, max: 1_000_000_000 }), FastCheck.integer({ min: 0, max: 1_000_000_000 })],
    ([a, b]) => {
      const [amount, captured] = a >= b ? [a, b] : [b, a]
      const flow = (x: number) => [posting(1, 2, x), posting(2, 3, Math.round(x * 0.045)), posting(3, 1, Math.round(x * 0.02))]
      const reverse = (ps: ReadonlyArray<Posting>) => ps.map((p) => ({ ...p, from: p.to, to: p.from }))
      const partial = right(Model.commit(holdAll(initial, "p", [
        { id: 1, postings: flow(amount) },
        { id: 2, postings: reverse(flow(amount)) },
        { id: 3, postings: flow(captured) }
      ]), "p"))
      const direct = right(Model.commit(holdAll(initial, "q", [{ id: 1, postings: flow(captured) }]), "q"))
      assert.deepStrictEqual(balances(partial), balances(direct))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "a post is a hold then a commit; again it is a no-op; on a plan held with other batches or rolled back it is refused",
    [batchArb, batchArb.filter((b) => b.valid)],
    ([{ batch, valid }, other]) => {
      const posted = Model.post(initial, "p", batch)
      if (!valid) return void reason(posted)
      const state = right(posted)
      assert.deepStrictEqual(snapshot(state), snapshot(right(Model.commit(right(Model.hold(initial, "p", batch)), "p"))))
      assert.strictEqual(right(Model.post(state, "p", JSON.parse(JSON.stringify(batch)))), state)
      assert.match(reason(Model.post(state, "p", { ...batch, postings: [...batch.postings, ...other.batch.postings] })), /held with other batches/)
      const held = right(Model.hold(right(Model.hold(initial, "q", batch)), "q", { ...other.batch, id: batch.id + 1 }))
      assert.match(reason(Model.post(held, "q", batch)), /held with other batches/)
      assert.match(reason(Model.post(right(Model.rollback(right(Model.hold(initial, "r", batch)), "r")), "r", batch)), /rolled back/)
      assert.deepStrictEqual(snapshot(right(Model.post(right(Model.hold(initial, "s", batch)), "s", batch))), snapshot(right(Model.commit(right(Model.hold(initial, "s", batch)), "s"))))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it("commit or rollback of an unknown plan is refused", () => {
    assert.match(reason(Model.commit(initial, "nope")), /plan nope is not held/)
    assert.match(reason(Model.rollback(initial, "nope")), /plan nope is not held/)
  })

  it("validateBatch refuses bad postings with a reason", () => {
    const ok = (postings: ReadonlyArray<Posting>, id = 1) => Model.validateBatch({ id, postings }, initial.accounts)
    const left = (e: Either.Either<void, string>) => (Either.isLeft(e) ? e.left : assert.fail("valid"))
    assert.isTrue(Either.isRight(ok([posting(1, 2, 0)])))
    assert.isTrue(Either.isRight(ok([posting(1, 2, Number.MAX_SAFE_INTEGER)])))
    assert.match(left(ok([])), /no postings/)
    assert.match(left(ok([posting(1, 1, 5)])), /to itself/)
    assert.match(left(ok([posting(1, 2, -1)])), /invalid amount/)
    assert.match(left(ok([posting(1, 2, 0.5)])), /invalid amount/)
    assert.match(left(ok([posting(1, 2, Number.MAX_SAFE_INTEGER + 1)])), /invalid amount/)
    assert.match(left(ok([posting(1, 5, 5)])), /is in RUB, account 1 in RUB, account 5 in USD/)
    assert.match(left(ok([{ ...posting(1, 2, 5), currency: "EUR" }])), /is in EUR/)
    assert.match(left(ok([posting(1, 42, 5)])), /unknown account 42/)
    assert.match(left(ok([posting(1, 2, 5)], 1.5)), /not a safe integer/)
    assert.match(
      left(ok([posting(1, 2, Number.MAX_SAFE_INTEGER), posting(3, 2, Number.MAX_SAFE_INTEGER)])),
      /overflows on account/
    )
  })

  it("netOf, diffsOf and balanceOf", () => {
    const batch = { id: 1, postings: [posting(1, 2, 100), posting(2, 3, 30), posting(3, 1, 10)] }
    assert.deepStrictEqual([...Model.netOf(batch)], [[1, -90], [2, 70], [3, 20]])
    assert.deepStrictEqual(Model.accountsOf([batch, { id: 2, postings: [posting(4, 1, 1)] }]), [1, 2, 3, 4])
    const reverse = { id: 2, postings: [posting(2, 1, 100)] }
    assert.deepStrictEqual(Model.diffsOf([batch, reverse]).get(1), { net: 10, minDiff: -90, maxDiff: 100 })
    assert.deepStrictEqual(Model.diffsOf([batch, reverse]).get(2), { net: -30, minDiff: -100, maxDiff: 70 })
    assert.deepStrictEqual(
      Model.balanceOf({ id: 1, currency: "RUB", own: 50, minDiff: -70, maxDiff: 20 }),
      { own: 50, minAvailable: -20, maxAvailable: 70 }
    )
  })

  it("invariants name what is broken", () => {
    const held = right(Model.hold(initial, "p", { id: 1, postings: [posting(1, 2, 100)] }))
    const broken = Model.withAccount(held, { ...held.accounts.get(2)!, own: 5 })
    assert.deepStrictEqual(Model.invariants(broken), ["account 2: own 5, committed 0"])
    const skewed = Model.withAccount(held, { ...held.accounts.get(1)!, minDiff: 10 })
    assert.includeMembers([...Model.invariants(skewed)], [
      "account 1: minDiff 10, pending -100",
      "account 1: minAvailable 10, own 0, maxAvailable 0"
    ])
  })
})
