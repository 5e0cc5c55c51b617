/**
 * `WebhookRepository` and `WebhookDeliveries` in memory. A deleted webhook stays stored (the
 * operator still sees its deliveries); every merchant read leaves it out, and its queue is
 * discarded with the delete. A webhook's `publicKey` is its party's current key.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WebhookDeliveries } from "../ports/WebhookDeliveries.js"
import { WebhookRepository } from "../ports/WebhookRepository.js"
import type { WebhookRecord } from "../webhook/Webhook.js"
import { compareText } from "./internal/order.js"
import { currentKey, deliveryOf, destinationOf, discardQueued, enqueue, numbered, type StoredWebhook, tables } from "./internal/webhookTables.js"
import { MemoryStore } from "./MemoryStore.js"

/** A delivery id from the wire: the queue's serial number. */
const deliveryNumber = (id: string): number | undefined => (/^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined)

const oldestFirst = (a: StoredWebhook, b: StoredWebhook) =>
  a.webhook.createdAt.getTime() - b.webhook.createdAt.getTime() || compareText(a.webhook.id, b.webhook.id)

/** @since 0.1.0 @category layers */
export const repositoryLayerMemory: Layer.Layer<WebhookRepository, never, MemoryStore> = Layer.effect(
  WebhookRepository,
  Effect.map(MemoryStore, (store) => {
    const t = tables(store)
    const live = (partyID: string) =>
      Effect.map(t.webhooks.values, (all) =>
        all.filter((w) => w.webhook.partyID === partyID && w.deletedAt === undefined).sort(oldestFirst))
    /** The webhooks with their party's current key: none without one, as the SQL join reads them. */
    const withKey = (partyID: string, webhooks: ReadonlyArray<StoredWebhook>) =>
      Effect.map(currentKey(t, partyID), (key) =>
        Option.match(key, {
          onNone: () => [],
          onSome: (k) => webhooks.map((w): WebhookRecord => ({ ...w.webhook, active: true, publicKey: k.publicKey }))
        }))
    const countForShop = (partyID: string, shopID: string, topic: string) =>
      Effect.map(live(partyID), (all) => all.filter((w) => w.webhook.scope.shopID === shopID && w.webhook.scope.topic === topic).length)
    return {
      findById: (partyID, id) =>
        Effect.flatMap(live(partyID), (all) =>
          Effect.map(withKey(partyID, all.filter((w) => w.webhook.id === id)), (found) => Option.fromNullable(found[0]))),
      listByParty: (partyID) => Effect.flatMap(live(partyID), (all) => withKey(partyID, all)),
      subscribers: (partyID, topic) =>
        Effect.flatMap(live(partyID), (all) =>
          Effect.map(currentKey(t, partyID), (key) =>
            all.filter((w) => w.webhook.scope.topic === topic).map((w) => ({
              webhookID: w.webhook.id,
              scope: w.webhook.scope,
              keyID: Option.getOrUndefined(key)?.id
            })))),
      countForShop,
      insertWithin: (w, limit) =>
        store.transaction(Effect.gen(function*() {
          if (limit !== undefined && (yield* countForShop(w.partyID, w.scope.shopID, w.scope.topic)) >= limit) return false
          yield* t.webhooks.insert(w.id, {
            webhook: { id: w.id, partyID: w.partyID, scope: w.scope, url: w.url, createdAt: w.createdAt },
            deletedAt: undefined
          })
          return true
        })),
      delete: (partyID, id, at) =>
        store.transaction(Effect.gen(function*() {
          const found = yield* t.webhooks.get(id)
          if (Option.isNone(found) || found.value.webhook.partyID !== partyID || found.value.deletedAt !== undefined) return false
          yield* t.webhooks.set(id, { ...found.value, deletedAt: at.getTime() })
          yield* discardQueued(t, id)
          return true
        }))
    }
  })
)

/** @since 0.1.0 @category layers */
export const deliveriesLayerMemory: Layer.Layer<WebhookDeliveries, never, MemoryStore> = Layer.effect(
  WebhookDeliveries,
  Effect.map(MemoryStore, (store) => {
    const t = tables(store)
    const getOne = (webhookID: string, n: number) =>
      Effect.flatMap(t.deliveries.get(numbered(n)), (found) =>
        Option.isSome(found) && found.value.subject.webhookID === webhookID
          ? Effect.map(deliveryOf(t, found.value), Option.some)
          : Effect.succeedNone)
    return {
      webhookExists: (webhookID) => Effect.map(destinationOf(t, webhookID), Option.map((w) => ({ deleted: w.deleted }))),
      list: (webhookID, query) =>
        Effect.flatMap(t.deliveries.values, (all) =>
          Effect.forEach(
            all
              .filter((d) => d.subject.webhookID === webhookID && (query.status === undefined || d.status === query.status))
              .sort((a, b) => b.id - a.id)
              .slice(0, Math.max(0, query.limit)),
            (d) => deliveryOf(t, d)
          )),
      get: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        return n === undefined ? Effect.succeedNone : getOne(webhookID, n)
      },
      attempts: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        if (n === undefined) return Effect.succeed([])
        return Effect.gen(function*() {
          const d = yield* t.deliveries.get(numbered(n))
          if (Option.isNone(d) || d.value.subject.webhookID !== webhookID) return []
          return (yield* t.attempts.values)
            .filter((a) => a.deliveryID === n)
            .sort((a, b) => a.number - b.number)
            .map((a) => ({
              deliveryID: String(a.deliveryID),
              number: a.number,
              at: new Date(a.at),
              ...(a.statusCode === undefined ? {} : { statusCode: a.statusCode }),
              ...(a.error === undefined ? {} : { error: a.error }),
              durationMs: a.durationMs,
              succeeded: a.succeeded
            }))
        })
      },
      redeliver: (webhookID, deliveryID, at) =>
        store.transaction(Effect.gen(function*() {
          const n = deliveryNumber(deliveryID)
          if (n === undefined) return Option.none()
          const original = yield* t.deliveries.get(numbered(n))
          if (Option.isNone(original) || original.value.subject.webhookID !== webhookID) return Option.none()
          const o = original.value
          const id = yield* enqueue(store, t, {
            subject: o.subject,
            eventID: o.eventID,
            topic: o.topic,
            eventType: o.eventType,
            body: o.body,
            redeliveryOf: n
          }, at.getTime())
          return yield* getOne(webhookID, id)
        }))
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layerMemory = Layer.mergeAll(repositoryLayerMemory, deliveriesLayerMemory)

