import { assert, layer } from "@effect/vitest"
import * as Statement from "@effect/sql/Statement"
import * as Database from "@kassa/adapters/Database"
import * as RandomIds from "@kassa/adapters/RandomIds"
import * as SqlLedger from "@kassa/adapters/SqlLedger"
import * as SqlTransactions from "@kassa/adapters/SqlTransactions"
import * as Model from "@kassa/core/ledger/LedgerModel"
import * as MemoryLedger from "@kassa/core/memory/MemoryLedger"
import * as MemoryStore from "@kassa/core/memory/MemoryStore"
import * as MemoryTransactions from "@kassa/core/memory/MemoryTransactions"
import { type AccountKey, type Batch, Ledger, type Posting } from "@kassa/core/ports/Ledger"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Dialects from "@kassa/testing/Dialects"
import * as TestDatabase from "@kassa/testing/TestDatabase"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import migration from "../src/internal/migrations/0006_ledger.js"

/**
 * The ledger and transactions alone: in memory, or on a scratch database with only the ledger's
 * migration run (it is registered elsewhere).
 */
const ledgerLayer = (backend: Dialects.Backend): Layer.Layer<Ledger | Transactions> =>
  backend === "memory"
    ? Layer.mergeAll(MemoryLedger.layerMemory, MemoryTransactions.layerMemory).pipe(Layer.provide(MemoryStore.layer))
    : Layer.unwrapScoped(
      Effect.map(TestDatabase.acquire(backend), ({ database }) =>
        Layer.mergeAll(SqlLedger.layer, SqlTransactions.layer).pipe(
          Layer.provideMerge(Layer.effectDiscard(Effect.orDie(migration)).pipe(Layer.provideMerge(Database.layer(database))))
        ))
    )

/** Runs the effect in its own transaction, as callers of the ledger do. */
const tx = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.flatMap(Transactions, (t) => t.withTransaction(effect))

/** The defect's message, or undefined when the effect succeeded. */
const defect = <A, R>(effect: Effect.Effect<A, never, R>) =>
  effect.pipe(
    Effect.as<string | undefined>(undefined),
    Effect.catchAllDefect((d) => Effect.succeed(d instanceof Error ? d.message : String(d)))
  )

const balanceOf = (id: number) =>
  Effect.flatMap(Ledger, (ledger) => ledger.balance(id)).pipe(
    Effect.map((b) => {
      const { own, minAvailable, maxAvailable } = Option.getOrThrow(b)
      return { own, minAvailable, maxAvailable }
    })
  )

const posting = (from: number, to: number, amount: number, currency = "RUB", description = "d"): Posting => ({
  from,
  to,
  amount,
  currency,
  description
})

/** A provider, a merchant and a system account in RUB, fresh for each test. */
const threeAccounts = Effect.gen(function*() {
  const ledger = yield* Ledger
  const party = `party-${RandomIds.make()}`
  const merchant = yield* tx(ledger.account({ kind: "settlement", partyID: party, shopID: "shop", currency: "RUB" }))
  const provider = yield* tx(ledger.account({ kind: "provider", partyID: party, currency: "RUB" }))
  const system = yield* tx(ledger.account({ kind: "system", partyID: party, currency: "RUB" }))
  return { merchant, provider, system }
})

const flow = (a: { provider: number; merchant: number; system: number }, amount: number) => [
  posting(a.provider, a.merchant, amount, "RUB", "payment"),
  posting(a.merchant, a.system, Math.round(amount * 0.045), "RUB", "merchant fee"),
  posting(a.system, a.provider, Math.round(amount * 0.02), "RUB", "provider fee")
]
const reverse = (postings: ReadonlyArray<Posting>) => postings.map((p) => ({ ...p, from: p.to, to: p.from }))

// --- the random sequence shared with the model ----------------------------------------------

/** Account slots: 0–3 in RUB, 4–6 in USD. */
const SLOTS = [0, 1, 2, 3, 4, 5, 6] as const
const slotCurrency = (slot: number) => (slot < 4 ? "RUB" : "USD")

type SlotPosting = { readonly from: number; readonly to: number; readonly amount: number; readonly currency: string }
type Step =
  | { readonly _tag: "hold"; readonly plan: number; readonly id: number | "next"; readonly postings: ReadonlyArray<SlotPosting> }
  | { readonly _tag: "commit" | "rollback"; readonly plan: number }

const pairArb = (slots: ReadonlyArray<number>) =>
  FastCheck.tuple(FastCheck.constantFrom(...slots), FastCheck.constantFrom(...slots)).filter(([a, b]) => a !== b)

const slotPostingArb: FastCheck.Arbitrary<SlotPosting> = FastCheck.oneof(
  { weight: 9, arbitrary: FastCheck.tuple(FastCheck.oneof(pairArb([0, 1, 2, 3]), pairArb([4, 5, 6])), FastCheck.integer({ min: 0, max: 5_000 })).map(
    ([[from, to], amount]) => ({ from, to, amount, currency: slotCurrency(from) })
  ) },
  // a currency mismatch, refused
  { weight: 1, arbitrary: FastCheck.constant({ from: 0, to: 4, amount: 10, currency: "RUB" }) }
)

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    weight: 5,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("hold" as const),
      plan: FastCheck.integer({ min: 0, max: 2 }),
      id: FastCheck.oneof(FastCheck.constant("next" as const), FastCheck.integer({ min: 1, max: 4 })),
      postings: FastCheck.array(slotPostingArb, { minLength: 1, maxLength: 3 })
    })
  },
  { weight: 2, arbitrary: FastCheck.record({ _tag: FastCheck.constantFrom("commit" as const, "rollback" as const), plan: FastCheck.integer({ min: 0, max: 2 }) }) }
)

for (const backend of Dialects.backends()) {
  layer(ledgerLayer(backend), { timeout: "60 seconds" })(`Ledger [${backend}]`, (it) => {
    it.effect("account is get-or-create: the same key answers the same id, on every kind", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const party = `party-${RandomIds.make()}`
        const settlement: AccountKey = { kind: "settlement", partyID: party, shopID: "shop-1", currency: "RUB" }
        const id = yield* tx(ledger.account(settlement))
        assert.strictEqual(yield* tx(ledger.account(settlement)), id)
        assert.strictEqual(yield* tx(ledger.account({ ...settlement })), id)
        const others = [
          { ...settlement, currency: "USD" },
          { ...settlement, kind: "guarantee" as const },
          { ...settlement, shopID: "shop-2" }
        ]
        const otherIds = []
        for (const key of others) otherIds.push(yield* tx(ledger.account(key)))
        assert.strictEqual(new Set([id, ...otherIds]).size, 4)

        // a platform account (no party, no shop) is unique too: '' rather than NULL in the key
        const currency = `P${RandomIds.make(2).toUpperCase()}`
        const platform: AccountKey = { kind: "system", currency }
        const systemID = yield* tx(ledger.account(platform))
        assert.strictEqual(yield* tx(ledger.account(platform)), systemID)
        assert.strictEqual(yield* tx(ledger.account({ kind: "system", partyID: undefined, shopID: undefined, currency })), systemID)
        assert.notStrictEqual(yield* tx(ledger.account({ kind: "provider", currency })), systemID)

        assert.deepStrictEqual(
          yield* ledger.balance(id),
          Option.some({ id, currency: "RUB", own: 0, minAvailable: 0, maxAvailable: 0, key: settlement })
        )
        assert.deepStrictEqual(
          yield* ledger.balance(systemID),
          Option.some({ id: systemID, currency, own: 0, minAvailable: 0, maxAvailable: 0, key: platform })
        )
        assert.isTrue(Option.isNone(yield* ledger.balance(999_999_999)))
        assert.isTrue(Option.isNone(yield* ledger.balance(1.5)))
      }))

    it.effect("20 concurrent get-or-creates of one key open one account", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const key: AccountKey = { kind: "guarantee", partyID: `party-${RandomIds.make()}`, shopID: "shop", currency: "RUB" }
        const ids = yield* Effect.all(Array.from({ length: 20 }, () => tx(ledger.account(key))), { concurrency: "unbounded" })
        assert.strictEqual(new Set(ids).size, 1)
        const platform: AccountKey = { kind: "provider", currency: `C${RandomIds.make(2).toUpperCase()}` }
        const platformIds = yield* Effect.all(Array.from({ length: 20 }, () => tx(ledger.account(platform))), { concurrency: "unbounded" })
        assert.strictEqual(new Set(platformIds).size, 1)
      }))

    it.effect("an account opened in a transaction that rolls back is opened afresh, never answered by a stale id", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const key: AccountKey = { kind: "settlement", partyID: `party-${RandomIds.make()}`, shopID: "shop", currency: "RUB" }
        yield* tx(Effect.gen(function*() {
          const first = yield* ledger.account(key)
          // read again in the same transaction: the row is the transaction's own, not yet committed
          assert.strictEqual(yield* ledger.account(key), first)
          return yield* Effect.fail("rolled back" as const)
        })).pipe(Effect.flip, Effect.orDie)
        // (SQLite may give the rolled-back row's id again; PostgreSQL never does)
        const id = yield* tx(ledger.account(key))
        assert.deepStrictEqual(Option.map(yield* ledger.balance(id), (b) => b.key), Option.some(key))
        assert.strictEqual(yield* tx(ledger.account(key)), id)
        // opened in a nested transaction whose outer one then rolls back
        const nested: AccountKey = { ...key, kind: "guarantee" }
        yield* tx(Effect.gen(function*() {
          yield* tx(ledger.account(nested))
          yield* ledger.account(nested)
          return yield* Effect.fail("rolled back" as const)
        })).pipe(Effect.flip, Effect.orDie)
        const again = yield* tx(ledger.account(nested))
        assert.deepStrictEqual(Option.map(yield* ledger.balance(again), (b) => b.key), Option.some(nested))
        // opened in a savepoint that rolls back inside a transaction that commits, then read in it
        const inner: AccountKey = { ...key, kind: "provider" }
        yield* tx(Effect.gen(function*() {
          // (SQLite's nested transaction turns the failure into a defect)
          yield* Effect.exit(tx(Effect.zipRight(ledger.account(inner), Effect.fail("rolled back" as const))))
          yield* ledger.account({ ...inner, kind: "system" })
        }))
        const innerId = yield* tx(ledger.account(inner))
        assert.deepStrictEqual(Option.map(yield* ledger.balance(innerId), (b) => b.key), Option.some(inner))
        assert.strictEqual(yield* tx(ledger.account(inner)), innerId)
      }))

    if (backend !== "memory") it.effect("an account's id is kept once its row is committed: no read for it again", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const key: AccountKey = { kind: "settlement", partyID: `party-${RandomIds.make()}`, shopID: "shop", currency: "RUB" }
        const sent = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
          const texts: Array<string> = []
          return Effect.map(
            effect.pipe(Statement.withTransformer((statement) => {
              texts.push(statement.compile()[0])
              return Effect.succeed(statement)
            })),
            (a) => [a, texts.length] as const
          )
        }
        // opened, and read again in its own transaction (its row: not kept yet)
        const [id, opening] = yield* sent(tx(Effect.zipLeft(ledger.account(key), ledger.account(key))))
        assert.isAtLeast(opening, 3)
        // committed: read once more, then kept
        assert.deepStrictEqual(yield* sent(tx(ledger.account(key))), [id, 1])
        assert.deepStrictEqual(yield* sent(tx(ledger.account(key))), [id, 0])
      }))

    if (backend === "pg") it.effect("a committed account's id is kept while another transaction stays open: no read for it again", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const key: AccountKey = { kind: "settlement", partyID: `party-${RandomIds.make()}`, shopID: "shop", currency: "RUB" }
        // a transaction that wrote (an account of its own), open throughout (on a shared server,
        // any database's)
        const opened = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const holder = yield* tx(Effect.gen(function*() {
          yield* ledger.account({ ...key, kind: "guarantee" })
          yield* Deferred.succeed(opened, undefined)
          yield* Deferred.await(release)
        })).pipe(Effect.fork)
        yield* Deferred.await(opened)
        // opened (the transaction's own row: not kept), then read once more, committed
        const id = yield* tx(ledger.account(key))
        assert.strictEqual(yield* tx(ledger.account(key)), id)
        const texts: Array<string> = []
        const again = yield* tx(ledger.account(key)).pipe(Statement.withTransformer((statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        }))
        assert.strictEqual(again, id)
        assert.deepStrictEqual(texts, [])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)
      }))

    it.effect("hold, then commit: pending amounts move into own (partial capture)", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const plan = `invoice-${RandomIds.make()}.payment-1`
        const batches: ReadonlyArray<Batch> = [
          { id: 1, postings: flow(a, 1000) },
          { id: 2, postings: reverse(flow(a, 1000)) },
          { id: 3, postings: flow(a, 600) }
        ]
        yield* tx(ledger.hold(plan, batches[0]!))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: 0, maxAvailable: 955 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: 0, minAvailable: -980, maxAvailable: 0 })
        assert.deepStrictEqual(yield* balanceOf(a.system), { own: 0, minAvailable: 0, maxAvailable: 25 })
        yield* tx(ledger.hold(plan, batches[1]!))
        yield* tx(ledger.hold(plan, batches[2]!))
        // re-sending a held batch is a no-op
        yield* tx(ledger.hold(plan, JSON.parse(JSON.stringify(batches[1]!))))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: -955, maxAvailable: 1528 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: 0, minAvailable: -1568, maxAvailable: 980 })
        assert.deepStrictEqual(yield* balanceOf(a.system), { own: 0, minAvailable: -25, maxAvailable: 40 })
        assert.deepStrictEqual(yield* ledger.plan(plan), Option.some({ id: plan, state: "hold" as const, batches }))

        yield* tx(ledger.commit(plan))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 573, minAvailable: 573, maxAvailable: 573 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: -588, minAvailable: -588, maxAvailable: -588 })
        assert.deepStrictEqual(yield* balanceOf(a.system), { own: 15, minAvailable: 15, maxAvailable: 15 })
        // a repeated commit is a no-op
        yield* tx(ledger.commit(plan))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 573, minAvailable: 573, maxAvailable: 573 })
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.state), Option.some("commit" as const))
        assert.isTrue(Option.isNone(yield* ledger.plan(`${plan}-unknown`)))
      }))

    it.effect("hold, balance and commit in one transaction: each sees the ones before (SQL: the rows it keeps are read once)", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const plan = `invoice-${RandomIds.make()}.payment-1`
        const texts: Array<string> = []
        const [held, committed] = yield* tx(Effect.gen(function*() {
          yield* ledger.hold(plan, { id: 1, postings: flow(a, 1000) })
          const held = yield* balanceOf(a.merchant)
          yield* ledger.commit(plan)
          return [held, yield* balanceOf(a.merchant)] as const
        })).pipe(Statement.withTransformer((statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        }))
        assert.deepStrictEqual(held, { own: 0, minAvailable: 0, maxAvailable: 955 })
        assert.deepStrictEqual(committed, { own: 955, minAvailable: 955, maxAvailable: 955 })
        assert.deepStrictEqual(yield* balanceOf(a.merchant), committed)
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.state), Option.some("commit" as const))
        // the plan opened with its accounts locked, then the hold's and the commit's writes in one
        // statement (the accounts' moves netted: a statement updates a row once); no read of the
        // plan, its accounts or the balance
        if (backend === "pg") assert.strictEqual(texts.length, 2, texts.join("\n---\n"))
        // SQLite, one write at a time: the plan's insert, the batch and the accounts' update, which
        // answers them (no read of them first); the commit's update of the accounts and the plan
        // (the unit holds the one connection: what it read and wrote is as it left it)
        if (backend === "sqlite") assert.strictEqual(texts.length, 5, texts.join("\n---\n"))
      }))

    it.effect("post holds and commits a batch at once: as a hold then a commit, in fewer statements; again it is a no-op", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const b = yield* threeAccounts
        const plan = `invoice-${RandomIds.make()}.payment-1`
        const batch: Batch = { id: 1, postings: flow(a, 1000) }
        const texts: Array<string> = []
        yield* tx(ledger.post(plan, batch)).pipe(Statement.withTransformer((statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        }))
        yield* tx(Effect.zipRight(ledger.hold(`${plan}-b`, { id: 1, postings: flow(b, 1000) }), ledger.commit(`${plan}-b`)))
        for (const account of ["merchant", "provider", "system"] as const) {
          assert.deepStrictEqual(yield* balanceOf(a[account]), yield* balanceOf(b[account]), account)
        }
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 955, minAvailable: 955, maxAvailable: 955 })
        assert.deepStrictEqual(yield* ledger.plan(plan), Option.some({ id: plan, state: "commit" as const, batches: [batch] }))
        // PostgreSQL: the plan opened with its accounts locked, then the batch and the accounts'
        // update in one statement. SQLite: the plan's insert, the batch's, the accounts' update
        // (which answers them: no read first)
        if (backend === "pg") assert.strictEqual(texts.length, 2, texts.join("\n---\n"))
        if (backend === "sqlite") assert.strictEqual(texts.length, 3, texts.join("\n---\n"))

        // a repeated post is a no-op, in a transaction of its own or after other work in one
        yield* tx(ledger.post(plan, JSON.parse(JSON.stringify(batch))))
        yield* tx(Effect.zipRight(ledger.hold(`${plan}-c`, { id: 1, postings: flow(a, 10) }), ledger.post(plan, batch)))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 955, minAvailable: 955, maxAvailable: 965 })
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.batches), Option.some([batch]))

        // a post of a plan held with this batch alone commits it
        yield* tx(ledger.post(`${plan}-c`, { id: 1, postings: flow(a, 10) }))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 965, minAvailable: 965, maxAvailable: 965 })
        assert.deepStrictEqual(Option.map(yield* ledger.plan(`${plan}-c`), (p) => p.state), Option.some("commit" as const))
      }))

    it.effect("post: misuse is a defect with the reason, and a refused or rolled-back post leaves no trace", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const usd = yield* tx(ledger.account({ kind: "system", partyID: `p-${a.merchant}`, currency: "USD" }))
        const plan = `post-misuse-${a.merchant}`
        yield* tx(ledger.post(plan, { id: 1, postings: flow(a, 100) }))
        const before = yield* Effect.all([balanceOf(a.merchant), balanceOf(a.provider), balanceOf(a.system)])
        // another batch on a posted plan, a held plan with other batches, a rolled-back plan
        assert.match((yield* defect(tx(ledger.post(plan, { id: 1, postings: flow(a, 101) }))))!, /Ledger\.post: plan .* held with other batches/)
        assert.match((yield* defect(tx(ledger.post(plan, { id: 2, postings: flow(a, 100) }))))!, /held with other batches/)
        const held = `${plan}-held`
        yield* tx(ledger.hold(held, { id: 1, postings: flow(a, 50) }))
        yield* tx(ledger.hold(held, { id: 2, postings: flow(a, 60) }))
        assert.match((yield* defect(tx(ledger.post(held, { id: 1, postings: flow(a, 50) }))))!, /held with other batches/)
        assert.deepStrictEqual(Option.map(yield* ledger.plan(held), (p) => p.state), Option.some("hold" as const))
        yield* tx(ledger.rollback(held))
        const rolledBack = `${plan}-rolled-back`
        yield* tx(ledger.hold(rolledBack, { id: 1, postings: flow(a, 70) }))
        yield* tx(ledger.rollback(rolledBack))
        assert.match((yield* defect(tx(ledger.post(rolledBack, { id: 1, postings: flow(a, 70) }))))!, /rolled back/)
        // refused on a plan its transaction opens (SQLite writes first, then checks): nothing stays
        const fresh = `${plan}-fresh`
        assert.match((yield* defect(tx(ledger.post(fresh, { id: 1, postings: [posting(a.provider, a.merchant, 5), posting(a.provider, usd, 1)] }))))!, /Ledger\.post: .*is in RUB/)
        assert.match((yield* defect(tx(ledger.post(fresh, { id: 1, postings: [] }))))!, /no postings/)
        assert.isTrue(Option.isNone(yield* ledger.plan(fresh)))
        // a post whose transaction fails
        assert.strictEqual(yield* tx(Effect.zipRight(ledger.post(fresh, { id: 1, postings: flow(a, 30) }), Effect.fail("abort" as const))).pipe(Effect.flip), "abort")
        assert.isTrue(Option.isNone(yield* ledger.plan(fresh)))
        assert.deepStrictEqual(yield* Effect.all([balanceOf(a.merchant), balanceOf(a.provider), balanceOf(a.system)]), before)
      }))

    // (memory has no savepoints: a nested transaction joins the outer one)
    if (backend !== "memory") it.effect("a savepoint rolled back inside a transaction: what its hold wrote is forgotten, then read again", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const plan = `invoice-${RandomIds.make()}.payment-1`
        yield* tx(Effect.gen(function*() {
          yield* ledger.hold(plan, { id: 1, postings: flow(a, 1000) })
          // a nested transaction is a savepoint: a defect in it rolls back to it
          const aborted = yield* defect(tx(Effect.zipRight(ledger.hold(plan, { id: 2, postings: flow(a, 500) }), Effect.dieMessage("abort"))))
          assert.strictEqual(aborted, "abort")
          assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: 0, maxAvailable: 955 })
          yield* ledger.commit(plan)
        }))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 955, minAvailable: 955, maxAvailable: 955 })
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.batches.map((b) => b.id)), Option.some([1]))
      }))

    it.effect("plans held, committed and rolled back in one transaction add up as in one transaction each (PostgreSQL: their moves netted)", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const steps = (a: { provider: number; merchant: number; system: number }, run: string) => [
          ledger.hold(`${run}-1`, { id: 1, postings: flow(a, 1000) }),
          ledger.hold(`${run}-2`, { id: 1, postings: reverse(flow(a, 400)) }),
          ledger.commit(`${run}-1`),
          ledger.rollback(`${run}-2`),
          ledger.hold(`${run}-3`, { id: 1, postings: flow(a, 300) }),
          // a hold and its rollback: moves that cancel out
          ledger.hold(`${run}-4`, { id: 1, postings: flow(a, 700) }),
          ledger.rollback(`${run}-4`)
        ]
        const together = yield* threeAccounts
        const apart = yield* threeAccounts
        const run = `invoice-${RandomIds.make()}`
        const texts: Array<string> = []
        yield* tx(Effect.forEach(steps(together, `${run}.together`), (step) => step, { discard: true })).pipe(
          Statement.withTransformer((statement) => {
            texts.push(statement.compile()[0])
            return Effect.succeed(statement)
          })
        )
        yield* Effect.forEach(steps(apart, `${run}.apart`), tx, { discard: true })
        for (const account of ["merchant", "provider", "system"] as const) {
          assert.deepStrictEqual(yield* balanceOf(together[account]), yield* balanceOf(apart[account]), account)
        }
        assert.deepStrictEqual(yield* balanceOf(together.merchant), { own: 955, minAvailable: 955, maxAvailable: 955 + 286 })
        for (const [n, state] of [[1, "commit"], [2, "rollback"], [3, "hold"], [4, "rollback"]] as const) {
          assert.deepStrictEqual(Option.map(yield* ledger.plan(`${run}.together-${n}`), (p) => p.state), Option.some(state), `plan ${n}`)
        }
        // PostgreSQL: a plan's opening reads its accounts, so the moves held go before it; the
        // ones after it join its hold's: seven moves in four updates (hold 1; hold 2, commit 1,
        // rollback 2; hold 3; hold 4, rollback 4)
        if (backend === "pg") {
          assert.strictEqual(texts.filter((text) => /UPDATE ledger_accounts/.test(text)).length, 4, texts.join("\n---\n"))
        }
      }))

    it.effect("a commit in a transaction of its own: PostgreSQL locks the plan and its accounts in one read, SQLite reads nothing first", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const plan = `invoice-${RandomIds.make()}.payment-1`
        yield* tx(ledger.hold(plan, { id: 1, postings: flow(a, 1000) }))
        yield* tx(ledger.hold(plan, { id: 2, postings: reverse(flow(a, 400)) }))
        const texts: Array<string> = []
        yield* tx(ledger.commit(plan)).pipe(Statement.withTransformer((statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        }))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 573, minAvailable: 573, maxAvailable: 573 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: -588, minAvailable: -588, maxAvailable: -588 })
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.state), Option.some("commit" as const))
        // PostgreSQL: the read; the writes. SQLite: the plan's update, which answers its batches,
        // then the accounts', which answers them as moved
        if (backend !== "memory") assert.strictEqual(texts.length, 2, texts.join("\n---\n"))
      }))

    it.effect("hold, then rollback: pending amounts are released, own is unchanged", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        yield* tx(ledger.hold(`first-${a.merchant}`, { id: 1, postings: flow(a, 2000) }))
        yield* tx(ledger.commit(`first-${a.merchant}`))
        const plan = `refund-${a.merchant}`
        yield* tx(ledger.hold(plan, { id: 7, postings: [posting(a.merchant, a.provider, 500), posting(a.merchant, a.system, 10)] }))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 1910, minAvailable: 1400, maxAvailable: 1910 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: -1960, minAvailable: -1960, maxAvailable: -1460 })
        yield* tx(ledger.rollback(plan))
        yield* tx(ledger.rollback(plan))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 1910, minAvailable: 1910, maxAvailable: 1910 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: -1960, minAvailable: -1960, maxAvailable: -1960 })
        assert.deepStrictEqual(yield* balanceOf(a.system), { own: 50, minAvailable: 50, maxAvailable: 50 })
      }))

    it.effect("misuse is a defect with the reason, and changes nothing", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const usd = yield* tx(ledger.account({ kind: "system", partyID: `p-${a.merchant}`, currency: "USD" }))
        const plan = `misuse-${a.merchant}`
        const batch = { id: 2, postings: [posting(a.provider, a.merchant, 100)] }
        yield* tx(ledger.hold(plan, batch))
        const before = yield* Effect.all([balanceOf(a.merchant), balanceOf(a.provider), ledger.plan(plan)])

        const changed = yield* defect(tx(ledger.hold(plan, { id: 2, postings: [posting(a.provider, a.merchant, 101)] })))
        assert.match(changed!, /Ledger\.hold: batch 2 of plan misuse-\d+ was held with other postings/)
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 1, postings: [posting(a.provider, a.merchant, 1)] }))))!, /must be greater/)
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 3, postings: [posting(a.provider, usd, 1)] }))))!, /is in RUB/)
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 3, postings: [posting(a.merchant, a.merchant, 1)] }))))!, /to itself/)
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 3, postings: [] }))))!, /no postings/)
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 3, postings: [posting(a.provider, a.merchant, -5)] }))))!, /invalid amount/)
        assert.match((yield* defect(tx(ledger.commit(`${plan}-unknown`))))!, /Ledger\.commit: plan .* is not held/)
        // refused on a plan its transaction opens (SQLite writes first, then checks): nothing stays
        const fresh = `${plan}-fresh`
        assert.match((yield* defect(tx(ledger.hold(fresh, { id: 1, postings: [posting(a.provider, a.merchant, 5), posting(a.provider, usd, 1)] }))))!, /is in RUB/)
        assert.match((yield* defect(tx(ledger.hold(fresh, { id: 1, postings: [posting(a.provider, a.merchant, 5), posting(a.provider, -1, 1)] }))))!, /unknown account -1/)
        assert.isTrue(Option.isNone(yield* ledger.plan(fresh)))
        assert.deepStrictEqual(yield* Effect.all([balanceOf(a.merchant), balanceOf(a.provider), ledger.plan(plan)]), before)

        yield* tx(ledger.commit(plan))
        assert.match((yield* defect(tx(ledger.hold(plan, { id: 3, postings: [posting(a.provider, a.merchant, 1)] }))))!, /Unable to change plan state: plan .* is committed/)
        assert.match((yield* defect(tx(ledger.hold(plan, batch))))!, /Unable to change plan state/)
        assert.match((yield* defect(tx(ledger.rollback(plan))))!, /Ledger\.rollback: Unable to change plan state/)
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 100, minAvailable: 100, maxAvailable: 100 })

        const other = `misuse-2-${a.merchant}`
        yield* tx(ledger.hold(other, batch))
        yield* tx(ledger.rollback(other))
        assert.match((yield* defect(tx(ledger.commit(other))))!, /Ledger\.commit: Unable to change plan state: plan .* is rolled back/)
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 100, minAvailable: 100, maxAvailable: 100 })
      }))

    it.effect("a rolled-back transaction around a hold leaves no trace", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const plan = `aborted-${a.merchant}`
        const party = `party-${RandomIds.make()}`
        let opened = -1
        const aborted = yield* tx(Effect.gen(function*() {
          opened = yield* ledger.account({ kind: "guarantee", partyID: party, shopID: "s", currency: "RUB" })
          yield* ledger.hold(plan, { id: 1, postings: [...flow(a, 300), posting(a.merchant, opened, 7)] })
          assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: 0, maxAvailable: 279 })
          return yield* Effect.fail("the command failed" as const)
        })).pipe(Effect.flip)
        assert.strictEqual(aborted, "the command failed")
        assert.isTrue(Option.isNone(yield* ledger.plan(plan)))
        assert.isTrue(Option.isNone(yield* ledger.balance(opened)))
        for (const id of [a.merchant, a.provider, a.system]) {
          assert.deepStrictEqual(yield* balanceOf(id), { own: 0, minAvailable: 0, maxAvailable: 0 })
        }

        // a commit that is rolled back leaves the plan held
        yield* tx(ledger.hold(plan, { id: 1, postings: flow(a, 300) }))
        assert.strictEqual(yield* tx(Effect.zipRight(ledger.commit(plan), Effect.fail("abort"))).pipe(Effect.flip), "abort")
        assert.deepStrictEqual(Option.map(yield* ledger.plan(plan), (p) => p.state), Option.some("hold" as const))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: 0, maxAvailable: 286 })
        // a defect inside the transaction rolls back the hold before it
        yield* defect(tx(Effect.zipRight(
          ledger.hold(`${plan}-b`, { id: 1, postings: flow(a, 100) }),
          ledger.hold(`${plan}-b`, { id: 1, postings: flow(a, 200) })
        )))
        assert.isTrue(Option.isNone(yield* ledger.plan(`${plan}-b`)))
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: 0, maxAvailable: 286 })
      }))

    it.effect("concurrent plans over shared accounts, posted in both directions, add up exactly", () =>
      Effect.gen(function*() {
        const ledger = yield* Ledger
        const a = yield* threeAccounts
        const run = RandomIds.make()
        const plans = Array.from({ length: 20 }, (_, i) => `conc-${run}-${i}`)
        yield* Effect.all(
          plans.map((plan, i) =>
            tx(ledger.hold(plan, {
              id: 1,
              postings: i % 2 === 0
                ? [posting(a.provider, a.merchant, 100), posting(a.merchant, a.system, 10)]
                : [posting(a.system, a.merchant, 1), posting(a.merchant, a.provider, 50)]
            }))
          ),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 0, minAvailable: -490, maxAvailable: 900 })
        yield* Effect.all(
          plans.map((plan, i) => tx(i % 4 < 2 ? ledger.commit(plan) : ledger.rollback(plan))),
          { concurrency: "unbounded" }
        )
        // committed: 5 of each kind
        assert.deepStrictEqual(yield* balanceOf(a.merchant), { own: 5 * 90 - 5 * 49, minAvailable: 205, maxAvailable: 205 })
        assert.deepStrictEqual(yield* balanceOf(a.provider), { own: -5 * 100 + 5 * 50, minAvailable: -250, maxAvailable: -250 })
        assert.deepStrictEqual(yield* balanceOf(a.system), { own: 5 * 10 - 5 * 1, minAvailable: 45, maxAvailable: 45 })
      }))

    it.effect.prop(
      "agrees with the pure model on a random sequence",
      [FastCheck.array(stepArb, { minLength: 5, maxLength: 25 })],
      ([steps]) =>
        Effect.gen(function*() {
          const ledger = yield* Ledger
          const run = RandomIds.make()
          const ids: Array<number> = []
          for (const slot of SLOTS) {
            ids.push(yield* tx(ledger.account({ kind: "settlement", partyID: `prop-${run}`, shopID: `shop-${slot}`, currency: slotCurrency(slot) })))
          }
          let model = ids.reduce(
            (s, id, slot) => Model.withAccount(s, Model.makeAccount(id, slotCurrency(slot))),
            Model.empty
          )
          const planID = (n: number) => `prop-${run}-${n}`
          for (const step of steps) {
            const plan = planID(step.plan)
            let decided: Either.Either<Model.LedgerState, Model.LedgerError>
            let refused: string | undefined
            if (step._tag === "hold") {
              const held = model.plans.get(plan)?.batches ?? []
              const id = step.id === "next" ? held.reduce((max, b) => Math.max(max, b.id), 0) + 1 : step.id
              const batch: Batch = {
                id,
                postings: step.postings.map((p) => posting(ids[p.from]!, ids[p.to]!, p.amount, p.currency))
              }
              decided = Model.hold(model, plan, batch)
              refused = yield* defect(tx(ledger.hold(plan, batch)))
            } else {
              decided = (step._tag === "commit" ? Model.commit : Model.rollback)(model, plan)
              refused = yield* defect(tx(step._tag === "commit" ? ledger.commit(plan) : ledger.rollback(plan)))
            }
            if (Either.isLeft(decided)) {
              assert.strictEqual(refused, `Ledger.${step._tag}: ${decided.left.reason}`)
            } else {
              assert.isUndefined(refused)
              model = decided.right
            }
            for (const id of ids) {
              assert.deepStrictEqual(yield* balanceOf(id), Model.balanceOf(model.accounts.get(id)!), `account ${id}`)
            }
            for (const n of [0, 1, 2]) {
              const expected = model.plans.get(planID(n))
              assert.deepStrictEqual(
                yield* ledger.plan(planID(n)),
                expected === undefined ? Option.none() : Option.some({ id: expected.id, state: expected.state, batches: expected.batches })
              )
            }
          }
          assert.deepStrictEqual(Model.invariants(model), [])
        }),
      { timeout: 120_000, fastCheck: { numRuns: 30 } }
    )
  })
}
