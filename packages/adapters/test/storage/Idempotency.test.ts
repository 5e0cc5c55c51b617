import { assert, layer } from "@effect/vitest"
import { RandomIds } from "@kassa/adapters"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: idempotency [${backend}]`, (it) => {
    it.effect("Idempotency.claim: the first claim wins, later claims answer its record", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createInvoice", externalID: "ext-1" }
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        assert.isTrue(Option.isNone(yield* idem.claim(key, { entityID: "inv-1", fingerprint: "f1" })))
        assert.deepStrictEqual(
          yield* idem.claim(key, { entityID: "inv-2", fingerprint: "f2" }),
          Option.some({ entityID: "inv-1", fingerprint: "f1" })
        )
        assert.deepStrictEqual(yield* idem.find(key), Option.some({ entityID: "inv-1", fingerprint: "f1" }))
        // the key is per party, per namespace, per operation and per external id
        for (
          const other of [
            { ...key, partyID: `p-${RandomIds.make()}` },
            { ...key, namespace: "invoiceTemplate/t-1" },
            { ...key, operation: "createRefund" },
            { ...key, externalID: "ext-2" }
          ]
        ) {
          assert.isTrue(Option.isNone(yield* idem.claim(other, { entityID: "x", fingerprint: "fx" })))
        }
      }))

    it.effect("Idempotency.claim: 20 concurrent claims in transactions, exactly one wins", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const tx = yield* Transactions
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createPayment", externalID: "race" }
        const results = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            tx.withTransaction(
              idem.claim(key, { entityID: `e${i}`, fingerprint: `f${i}` }).pipe(Effect.map((r) => [i, r] as const))
            )),
          { concurrency: "unbounded" }
        )
        const winners = results.filter(([, r]) => Option.isNone(r))
        assert.strictEqual(winners.length, 1)
        const w = winners[0]![0]
        const record = { entityID: `e${w}`, fingerprint: `f${w}` }
        for (const [, r] of results) if (Option.isSome(r)) assert.deepStrictEqual(r.value, record)
        assert.deepStrictEqual(yield* idem.find(key), Option.some(record))
      }))

    it.effect("Idempotency: a claim inside a rolled-back transaction is not kept", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const tx = yield* Transactions
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createInvoice", externalID: "rb" }
        yield* tx.withTransaction(
          idem.claim(key, { entityID: "a", fingerprint: "fa" }).pipe(Effect.zipRight(Effect.fail("rollback")))
        ).pipe(Effect.ignore)
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        assert.isTrue(Option.isNone(yield* idem.claim(key, { entityID: "b", fingerprint: "fb" })))
      }))
  })
}
