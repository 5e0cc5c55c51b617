import { assert, layer } from "@effect/vitest"
import { Contention } from "@kassa/core"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { ShopRepository } from "@kassa/core/ports/ShopRepository"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as RequestDeadline from "@kassa/core/RequestDeadline"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: transactions [${backend}]`, (it) => {
    it.effect("a transaction's reads see its own writes; a failure or a defect keeps none of them", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const idem = yield* Idempotency
        const party = Records.party()
        const shop = Records.shop(party.id)
        const key = { partyID: party.id, namespace: PARTY_NAMESPACE, operation: "tx", externalID: "x" }
        const writes = Effect.gen(function*() {
          yield* parties.insert(party)
          yield* shops.insert(shop)
          assert.isTrue(Option.isSome(yield* idem.claim(key, { entityID: "e", fingerprint: "f" })) === false)
          assert.isTrue(yield* parties.update({ ...party, isBlocked: true, version: 2 }, 1))
          assert.deepStrictEqual(Option.map(yield* parties.findById(party.id), (p) => p.version), Option.some(2))
          assert.deepStrictEqual((yield* shops.listByParty(party.id)).map((s) => s.id), [shop.id])
        })
        assert.strictEqual(yield* tx.withTransaction(Effect.zipRight(writes, Effect.fail("failed" as const))).pipe(Effect.flip), "failed")
        const defect = yield* tx.withTransaction(Effect.zipRight(writes, Effect.dieMessage("defect"))).pipe(Effect.exit)
        assert.strictEqual(defect._tag, "Failure")
        assert.isTrue(Option.isNone(yield* parties.findById(party.id)))
        assert.isTrue(Option.isNone(yield* shops.findById(party.id, shop.id)))
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        // and one that succeeds keeps them all
        yield* tx.withTransaction(writes)
        assert.deepStrictEqual(Option.map(yield* parties.findById(party.id), (p) => p.isBlocked), Option.some(true))
        assert.isTrue(Option.isSome(yield* idem.find(key)))
      }))

    it.effect("a nested transaction joins the outer one: the outer failure takes the inner writes with it", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const parties = yield* PartyRepository
        const inner = Records.party()
        const outer = Records.party()
        const exit = yield* tx.withTransaction(Effect.gen(function*() {
          yield* tx.withTransaction(parties.insert(inner))
          yield* parties.insert(outer)
          return yield* Effect.fail("outer failed" as const)
        })).pipe(Effect.exit)
        assert.strictEqual(exit._tag, "Failure")
        assert.isTrue(Option.isNone(yield* parties.findById(inner.id)))
        assert.isTrue(Option.isNone(yield* parties.findById(outer.id)))
      }))

    it.effect("contention: concurrent read-decide-write commands under Contention.expected queue, and none loses", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const invoices = yield* InvoiceRepository
        const { invoice } = yield* Records.invoice()
        const copy = { ...Option.getOrThrow(yield* invoices.findByIdUnscoped(invoice.id)), id: Records.fresh("inv") }
        yield* invoices.insert(copy)
        const bump = tx.withTransaction(Effect.gen(function*() {
          const read = Option.getOrThrow(yield* Contention.expected(invoices.findByIdUnscoped(copy.id)))
          yield* Effect.yieldNow()
          return yield* invoices.update({ ...read, version: read.version + 1 }, read.version)
        }))
        const results = yield* Effect.all(Array.from({ length: 10 }, () => bump), { concurrency: "unbounded" })
        assert.deepStrictEqual(results, Array.from({ length: 10 }, () => true))
        assert.deepStrictEqual(Option.map(yield* invoices.findByIdUnscoped(copy.id), (i) => i.version), Option.some(copy.version + 10))
      }))

    it.effect("background work runs detached from the caller's transaction: it commits though the caller fails", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const parties = yield* PartyRepository
        const party = Records.party()
        const done = yield* Deferred.make<void>()
        const exit = yield* tx.withTransaction(Effect.gen(function*() {
          yield* tx.background(parties.insert(party).pipe(Effect.ensuring(Deferred.succeed(done, undefined))))
          return yield* Effect.fail("caller failed" as const)
        })).pipe(Effect.exit)
        assert.strictEqual(exit._tag, "Failure")
        yield* Deferred.await(done)
        assert.isTrue(Option.isSome(yield* parties.findById(party.id)))
      }))

    it.effect("background work runs free of the caller's request deadline: it commits though the request expired", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const parties = yield* PartyRepository
        const party = Records.party()
        const done = yield* Deferred.make<void>()
        const expired = RequestDeadline.make(0)
        RequestDeadline.expire(expired)
        yield* tx.withTransaction(tx.background(
          tx.withTransaction(parties.insert(party)).pipe(Effect.ensuring(Deferred.succeed(done, undefined)))
        )).pipe(Effect.locally(RequestDeadline.current, expired), Effect.exit)
        yield* Deferred.await(done)
        assert.isTrue(Option.isSome(yield* parties.findById(party.id)))
      }))
  })
}
