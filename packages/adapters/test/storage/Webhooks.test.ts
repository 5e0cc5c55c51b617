import { assert, layer } from "@effect/vitest"
import { WebhookKeyRepository } from "@kassa/core/ports/WebhookKeyRepository"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import type { WebhookRecord } from "@kassa/core/webhook/Webhook"
import type { PartyWebhookKey } from "@kassa/core/webhook/WebhookKey"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

const aKey = (partyID: string, at: number): PartyWebhookKey => ({
  id: Records.fresh("k"),
  partyID,
  publicKey: `public-${at}`,
  privateKeyRef: `sealed-${at}`,
  createdAt: new Date(at)
})

const aWebhook = (partyID: string, shopID: string, at: number, topic: "InvoicesTopic" | "CustomersTopic" = "InvoicesTopic"): WebhookRecord => ({
  id: Records.fresh("w"),
  partyID,
  active: true,
  scope: topic === "InvoicesTopic"
    ? { topic, shopID, eventTypes: ["InvoiceCreated"] }
    : { topic, shopID, eventTypes: ["CustomerCreated"] },
  url: `https://hooks.kassa.test/${at}`,
  publicKey: "",
  createdAt: new Date(at)
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: webhooks and their keys [${backend}]`, (it) => {
    it.effect("WebhookKeyRepository: one current key per party; a rotation retires it", () =>
      Effect.gen(function*() {
        const keys = yield* WebhookKeyRepository
        const partyID = Records.fresh("p")
        assert.isTrue(Option.isNone(yield* keys.current(partyID)))
        const first = aKey(partyID, 1_000)
        assert.deepStrictEqual(yield* keys.insertIfAbsent(first), first)
        // a concurrent creation lost: the current key is answered
        assert.deepStrictEqual(yield* keys.insertIfAbsent(aKey(partyID, 2_000)), first)
        assert.deepStrictEqual(yield* keys.current(partyID), Option.some(first))
        const second = aKey(partyID, 3_000)
        assert.deepStrictEqual(yield* keys.rotate(second), Option.some({ ...first, retiredAt: new Date(3_000) }))
        assert.deepStrictEqual(yield* keys.current(partyID), Option.some(second))
        // a first rotation retires nothing
        const other = aKey(Records.fresh("p"), 4_000)
        assert.isTrue(Option.isNone(yield* keys.rotate(other)))
        assert.deepStrictEqual(yield* keys.current(other.partyID), Option.some(other))
      }))

    it.effect("WebhookRepository: the party's live webhooks with its current key, the limit per shop and topic, deletion", () =>
      Effect.gen(function*() {
        const keys = yield* WebhookKeyRepository
        const webhooks = yield* WebhookRepository
        const partyID = Records.fresh("p")
        const key = aKey(partyID, 1_000)
        yield* keys.insertIfAbsent(key)
        const a = aWebhook(partyID, "shop-1", 2_000)
        const b = aWebhook(partyID, "shop-1", 1_500)
        const c = aWebhook(partyID, "shop-1", 3_000, "CustomersTopic")
        assert.isTrue(yield* webhooks.insertWithin(a, 2))
        assert.isTrue(yield* webhooks.insertWithin(b, 2))
        assert.isFalse(yield* webhooks.insertWithin(aWebhook(partyID, "shop-1", 4_000), 2))
        assert.isTrue(yield* webhooks.insertWithin(c, 2))
        assert.strictEqual(yield* webhooks.countForShop(partyID, "shop-1", "InvoicesTopic"), 2)
        assert.strictEqual(yield* webhooks.countForShop(partyID, "shop-2", "InvoicesTopic"), 0)

        const withKey = (w: WebhookRecord) => ({ ...w, publicKey: key.publicKey })
        assert.deepStrictEqual(yield* webhooks.findById(partyID, a.id), Option.some(withKey(a)))
        assert.isTrue(Option.isNone(yield* webhooks.findById(Records.fresh("p"), a.id)))
        assert.deepStrictEqual(yield* webhooks.listByParty(partyID), [withKey(b), withKey(a), withKey(c)])
        assert.deepStrictEqual(yield* webhooks.subscribers(partyID, "InvoicesTopic"), [
          { webhookID: b.id, scope: b.scope, keyID: key.id },
          { webhookID: a.id, scope: a.scope, keyID: key.id }
        ])

        assert.isFalse(yield* webhooks.delete(Records.fresh("p"), a.id, new Date(5_000)))
        assert.isTrue(yield* webhooks.delete(partyID, a.id, new Date(5_000)))
        assert.isFalse(yield* webhooks.delete(partyID, a.id, new Date(6_000)))
        assert.isTrue(Option.isNone(yield* webhooks.findById(partyID, a.id)))
        assert.deepStrictEqual((yield* webhooks.listByParty(partyID)).map((w) => w.id), [b.id, c.id])
        assert.strictEqual(yield* webhooks.countForShop(partyID, "shop-1", "InvoicesTopic"), 1)
        // the slot is free again
        assert.isTrue(yield* webhooks.insertWithin(aWebhook(partyID, "shop-1", 7_000), 2))
      }))
  })
}
