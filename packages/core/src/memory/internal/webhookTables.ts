/**
 * @internal
 * The webhook tables the memory adapters share (webhooks, the parties' keys, the delivery queue
 * with its subjects and attempts), and appending to a subject's queue, as `internal/webhooks/queue`
 * does on SQL.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { QueuedNotification, Subject } from "../../ports/DeliveryQueue.js"
import type { Delivery } from "../../webhook/Delivery.js"
import type { WalletWebhookRecord } from "../../wallet-webhook/WalletWebhook.js"
import type { WebhookRecord } from "../../webhook/Webhook.js"
import type { PartyWebhookKey } from "../../webhook/WebhookKey.js"
import { key, type MemoryStore, type Table } from "../MemoryStore.js"

/** @internal A webhook as stored: its record without the party's key, and when it was deleted. */
export interface StoredWebhook {
  readonly webhook: Omit<WebhookRecord, "publicKey" | "active">
  readonly deletedAt: number | undefined
}

/** @internal */
export interface StoredDelivery {
  readonly id: number
  readonly subject: Subject
  readonly eventID: number
  readonly topic: string
  readonly eventType: string
  readonly body: string
  readonly status: Delivery["status"]
  readonly createdAt: number
  readonly attempts: number
  readonly firstAttemptAt: number | undefined
  readonly lastAttemptAt: number | undefined
  readonly deliveredAt: number | undefined
  readonly redeliveryOf: number | undefined
  readonly keyID: string | undefined
}

/** @internal A subject's queue: its due time (undefined when idle), lease and version. */
export interface StoredSubject {
  readonly subject: Subject
  readonly nextAttemptAt: number | undefined
  readonly lockedUntil: number | undefined
  readonly lockOwner: string | undefined
  readonly version: number
}

/** @internal */
export interface StoredAttempt {
  readonly deliveryID: number
  readonly number: number
  readonly at: number
  readonly statusCode: number | undefined
  readonly error: string | undefined
  readonly durationMs: number
  readonly succeeded: boolean
}

/** @internal */
export interface Tables {
  readonly webhooks: Table<StoredWebhook>
  /** The wallet webhooks (`MemoryWalletWebhooks`): a delete removes one. */
  readonly walletWebhooks: Table<WalletWebhookRecord>
  readonly keys: Table<PartyWebhookKey>
  readonly deliveries: Table<StoredDelivery>
  readonly subjects: Table<StoredSubject>
  readonly attempts: Table<StoredAttempt>
}

/** @internal */
export const tables = (store: MemoryStore["Type"]): Tables => ({
  webhooks: store.table("webhooks"),
  walletWebhooks: store.table("wallet_webhooks"),
  keys: store.table("webhook_keys"),
  deliveries: store.table("webhook_deliveries"),
  subjects: store.table("webhook_subjects"),
  attempts: store.table("webhook_attempts")
})

/** @internal Keys of numbered rows, in their numbers' order. */
export const numbered = (n: number): string => String(n).padStart(16, "0")

/** @internal */
export const subjectKey = (s: Subject): string => key(s.webhookID, s.type, s.id)

/** @internal The party's current key. */
export const currentKey = (t: Tables, partyID: string) =>
  Effect.map(t.keys.values, (all) => Option.fromNullable(all.find((k) => k.partyID === partyID && k.retiredAt === undefined)))

/** @internal A delivery as the operator reads it: the head of a waiting queue shows when it is due. */
export const deliveryOf = (t: Tables, d: StoredDelivery) =>
  Effect.gen(function*() {
    let nextAttemptAt: number | undefined
    if (d.status === "pending") {
      const head = (yield* t.deliveries.values).find((h) => h.status === "pending" && subjectKey(h.subject) === subjectKey(d.subject))
      if (head?.id === d.id) nextAttemptAt = Option.getOrUndefined(yield* t.subjects.get(subjectKey(d.subject)))?.nextAttemptAt
    }
    const delivery: Delivery = {
      id: String(d.id),
      webhookID: d.subject.webhookID,
      subjectType: d.subject.type,
      subjectID: d.subject.id,
      eventID: d.eventID,
      topic: d.topic,
      eventType: d.eventType,
      status: d.status,
      createdAt: new Date(d.createdAt),
      attempts: d.attempts,
      ...(d.lastAttemptAt === undefined ? {} : { lastAttemptAt: new Date(d.lastAttemptAt) }),
      ...(nextAttemptAt === undefined ? {} : { nextAttemptAt: new Date(nextAttemptAt) }),
      ...(d.deliveredAt === undefined ? {} : { deliveredAt: new Date(d.deliveredAt) }),
      ...(d.redeliveryOf === undefined ? {} : { redeliveryOf: String(d.redeliveryOf) })
    }
    return delivery
  })

/** @internal A notification to append, a redelivery's with the delivery it repeats. */
export interface QueueItem extends QueuedNotification {
  readonly redeliveryOf?: number | undefined
}

/** @internal Appends a notification to its subject's queue, leaving the subject as it is; answers its id. */
export const append = (store: MemoryStore["Type"], t: Tables, item: QueueItem, now: number) =>
  Effect.suspend(() => {
    const id = store.next("webhook_deliveries")
    return Effect.as(
      t.deliveries.insert(numbered(id), {
        id,
        subject: item.subject,
        eventID: item.eventID,
        topic: item.topic,
        eventType: item.eventType,
        body: item.body,
        status: "pending",
        createdAt: now,
        attempts: 0,
        firstAttemptAt: undefined,
        lastAttemptAt: undefined,
        deliveredAt: undefined,
        redeliveryOf: item.redeliveryOf,
        keyID: item.keyID
      }),
      id
    )
  })

/**
 * @internal
 * Marks the subject's queue as having work: due `now` if idle, unchanged if already waiting (a
 * retry keeps its time); its version grows either way.
 */
export const touch = (t: Tables, subject: Subject, now: number) =>
  Effect.flatMap(t.subjects.get(subjectKey(subject)), (found) =>
    t.subjects.set(
      subjectKey(subject),
      Option.isNone(found)
        ? { subject, nextAttemptAt: now, lockedUntil: undefined, lockOwner: undefined, version: 1 }
        : { ...found.value, nextAttemptAt: found.value.nextAttemptAt ?? now, version: found.value.version + 1 }
    ))

/** @internal `append` and `touch` in one transaction. */
export const enqueue = (store: MemoryStore["Type"], t: Tables, item: QueueItem, now: number) =>
  store.transaction(Effect.tap(append(store, t, item, now), () => touch(t, item.subject, now)))

/** @internal Discards what is queued for a deleted webhook, and its subjects with it. */
export const discardQueued = (t: Tables, webhookID: string) =>
  Effect.gen(function*() {
    for (const d of yield* t.deliveries.values) {
      if (d.subject.webhookID === webhookID && d.status === "pending") yield* t.deliveries.set(numbered(d.id), { ...d, status: "discarded" })
    }
    for (const s of yield* t.subjects.values) if (s.subject.webhookID === webhookID) yield* t.subjects.delete(subjectKey(s.subject))
  })

/** @internal Where a subject's notifications go: its webhook's party and URL, and whether it was deleted. */
export const destinationOf = (t: Tables, webhookID: string) =>
  Effect.gen(function*() {
    const webhook = yield* t.webhooks.get(webhookID)
    if (Option.isSome(webhook)) {
      return Option.some({ partyID: webhook.value.webhook.partyID, url: webhook.value.webhook.url, deleted: webhook.value.deletedAt !== undefined })
    }
    return Option.map(yield* t.walletWebhooks.get(webhookID), (w) => ({ partyID: w.partyID, url: w.url, deleted: false }))
  })
