/**
 * The storage contract of wallet webhooks, on memory, SQLite and PostgreSQL: reads scoped by
 * party and identity, oldest first, subscribers by topic, deletes only of the party's own.
 */
import { assert, layer } from "@effect/vitest"
import { WalletWebhookRepository } from "@kassa/core/ports/WalletWebhookRepository"
import type { WalletWebhookRecord, WalletWebhookScope } from "@kassa/core/wallet-webhook/WalletWebhook"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import { fresh } from "./records.js"

const at = (ms: number) => new Date(1_700_000_000_000 + ms)

const hook = (partyID: string, identityID: string, scope: WalletWebhookScope, ms: number): WalletWebhookRecord => ({
  id: fresh("wh"),
  partyID,
  identityID,
  scope,
  url: "https://hooks.example.com/kassa",
  createdAt: at(ms)
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Wallet webhook storage [${backend}]`, (it) => {
    it.effect("reads by party and identity, oldest first; subscribers by topic; a delete only of the party's own", () =>
      Effect.gen(function*() {
        const repo = yield* WalletWebhookRepository
        const party = fresh("p")
        const identity = fresh("i")
        const later = hook(party, identity, { topic: "DestinationsTopic", eventTypes: ["DestinationCreated"] }, 2)
        const first = hook(party, identity, { topic: "WithdrawalsTopic", walletID: "wallet-1", eventTypes: ["WithdrawalStarted"] }, 1)
        const unscoped = hook(party, identity, { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalFailed"] }, 3)
        const elsewhere = hook(party, fresh("i"), { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalFailed"] }, 0)
        for (const h of [later, first, unscoped, elsewhere]) yield* repo.insert(h)

        assert.deepStrictEqual((yield* repo.listByIdentity(party, identity)).map((h) => h.id), [first.id, later.id, unscoped.id])
        assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(party, first.id)), first)
        assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(party, unscoped.id)), unscoped)
        assert.isTrue(Option.isNone(yield* repo.findById(fresh("p"), first.id)))
        // the party's webhooks of the topic, of every identity, without a key until the party has one
        assert.deepStrictEqual((yield* repo.subscribers(party, "WithdrawalsTopic")).map((s) => [s.hook.id, s.keyID]), [
          [elsewhere.id, undefined],
          [first.id, undefined],
          [unscoped.id, undefined]
        ])
        assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(party, elsewhere.id)), (yield* repo.subscribers(party, "WithdrawalsTopic"))[0]!.hook)
        assert.deepStrictEqual(yield* repo.subscribers(fresh("p"), "WithdrawalsTopic"), [])
        assert.deepStrictEqual((yield* repo.listByIdentity(fresh("p"), identity)), [])

        assert.isFalse(yield* repo.delete(fresh("p"), first.id))
        assert.isTrue(yield* repo.delete(party, first.id))
        assert.isFalse(yield* repo.delete(party, first.id))
        assert.deepStrictEqual((yield* repo.listByIdentity(party, identity)).map((h) => h.id), [later.id, unscoped.id])
      }))
  })
}
