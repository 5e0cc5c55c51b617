import { assert, layer } from "@effect/vitest"
import { type Attempt, type Claimed, DeliveryQueue, type Subject } from "@kassa/core/ports/DeliveryQueue"
import { WebhookDeliveries } from "@kassa/core/ports/WebhookDeliveries"
import { WebhookKeyRepository } from "@kassa/core/ports/WebhookKeyRepository"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

const LEASE = 60_000

/** A party with a current key and a live webhook: a subject of that webhook to queue notifications for. */
const aSubject = Effect.gen(function*() {
  const partyID = Records.fresh("p")
  const keys = yield* WebhookKeyRepository
  const webhooks = yield* WebhookRepository
  const now = yield* Clock.currentTimeMillis
  const key = yield* keys.insertIfAbsent({
    id: Records.fresh("k"),
    partyID,
    publicKey: "public",
    privateKeyRef: `sealed-${partyID}`,
    createdAt: new Date(now)
  })
  const webhookID = Records.fresh("w")
  assert.isTrue(yield* webhooks.insertWithin({
    id: webhookID,
    partyID,
    active: true,
    scope: { topic: "InvoicesTopic", shopID: "shop", eventTypes: ["InvoiceCreated"] },
    url: "https://hooks.kassa.test/in",
    publicKey: key.publicKey,
    createdAt: new Date(now)
  }, undefined))
  const subject: Subject = { webhookID, type: "invoice", id: Records.fresh("inv") }
  return { partyID, key, subject, now }
})

const notification = (subject: Subject, eventID: number, keyID?: string) => ({
  subject,
  eventID,
  topic: "InvoicesTopic",
  eventType: "InvoiceCreated",
  body: JSON.stringify({ eventID }),
  keyID
})

/** Claims due subjects for `worker` at `now`, keeping only those of `subject`'s webhook. */
const claim = (worker: string, subject: Subject, now: number) =>
  Effect.flatMap(DeliveryQueue, (q) => q.claimDue(worker, 1000, now, LEASE)).pipe(
    Effect.map((claimed) => claimed.filter((c) => c.lease.subject.webhookID === subject.webhookID))
  )

const attempt = (c: Claimed, index: number, at: number, statusCode: number | undefined): Attempt => ({
  deliveryID: c.pending[index]!.deliveryID,
  number: c.pending[index]!.attempts + 1,
  firstAttemptAt: c.pending[index]!.firstAttemptAt ?? at,
  startedAt: at,
  endedAt: at + 5,
  statusCode,
  error: statusCode === undefined ? "connection refused" : undefined,
  durationMs: 5
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: delivery queue [${backend}]`, (it) => {
    it.effect("a queued subject is claimed with its queue in order, by one worker at a time until its lease ends", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const { key, subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1, key.id), notification(subject, 2)], now)
        // not due before it was queued
        assert.deepStrictEqual(yield* claim("a", subject, now - 1), [])
        const [claimed] = yield* claim("a", subject, now)
        assert.deepStrictEqual(claimed!.lease.subject, subject)
        assert.strictEqual(claimed!.lease.worker, "a")
        assert.isTrue(claimed!.complete)
        assert.deepStrictEqual(claimed!.pending.map((p) => [p.body, p.attempts, p.url, p.webhookDeleted]), [
          [JSON.stringify({ eventID: 1 }), 0, "https://hooks.kassa.test/in", false],
          [JSON.stringify({ eventID: 2 }), 0, "https://hooks.kassa.test/in", false]
        ])
        assert.deepStrictEqual(claimed!.pending[0]!.queuedKey, { privateKeyRef: key.privateKeyRef, retiredAt: undefined })
        assert.isUndefined(claimed!.pending[1]!.queuedKey)
        assert.strictEqual(claimed!.pending[1]!.currentKey, key.privateKeyRef)
        // held: nobody else claims it, until the lease ends
        assert.deepStrictEqual(yield* claim("b", subject, now + LEASE - 1), [])
        assert.isTrue(Option.isNone(yield* queue.renew(subject, "b", now + 2 * LEASE)))
        const renewed = Option.getOrThrow(yield* queue.renew(subject, "a", now + 2 * LEASE))
        assert.deepStrictEqual(renewed.pending.map((p) => p.deliveryID), claimed!.pending.map((p) => p.deliveryID))
        assert.deepStrictEqual(yield* claim("b", subject, now + 2 * LEASE - 1), [])
        const [taken] = yield* claim("b", subject, now + 2 * LEASE)
        assert.strictEqual(taken!.lease.worker, "b")
        // the first worker lost it
        assert.isTrue(Option.isNone(yield* queue.renew(subject, "a", now + 3 * LEASE)))
      }))

    it.effect("delivered heads leave the queue; the last one read gives the subject back idle", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const deliveries = yield* WebhookDeliveries
        const { subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1), notification(subject, 2)], now)
        const [claimed] = yield* claim("a", subject, now)
        yield* queue.record(claimed!.lease, attempt(claimed!, 0, now + 10, 200), { _tag: "Delivered", drained: false })
        const renewed = Option.getOrThrow(yield* queue.renew(subject, "a", now + LEASE))
        assert.deepStrictEqual(renewed.pending.map((p) => p.deliveryID), [claimed!.pending[1]!.deliveryID])
        yield* queue.record(claimed!.lease, attempt(claimed!, 1, now + 20, 200), { _tag: "Delivered", drained: true })
        // idle: due no more, however late
        assert.deepStrictEqual(yield* claim("a", subject, now + 10 * LEASE), [])
        const listed = yield* deliveries.list(subject.webhookID, { limit: 10 })
        assert.deepStrictEqual(listed.map((d) => [d.eventID, d.status, d.attempts]), [[2, "delivered", 1], [1, "delivered", 1]])
        assert.deepStrictEqual(listed[0]!.deliveredAt, new Date(now + 25))
        // a new notification makes it due again
        yield* queue.enqueue([notification(subject, 3)], now + 100)
        const [again] = yield* claim("a", subject, now + 100)
        assert.deepStrictEqual(again!.pending.map((p) => JSON.parse(p.body).eventID), [3])
      }))

    it.effect("a failed attempt is recorded; a retry is due again at its time, a give-up discards the queue", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const deliveries = yield* WebhookDeliveries
        const { subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1), notification(subject, 2)], now)
        const [claimed] = yield* claim("a", subject, now)
        const first = claimed!.pending[0]!
        yield* queue.record(claimed!.lease, attempt(claimed!, 0, now + 10, 500), { _tag: "Retry", at: now + 5_000 })
        const pending = Option.getOrThrow(yield* deliveries.get(subject.webhookID, String(first.deliveryID)))
        assert.deepStrictEqual([pending.status, pending.attempts, pending.lastAttemptAt, pending.nextAttemptAt], [
          "pending",
          1,
          new Date(now + 10),
          new Date(now + 5_000)
        ])
        assert.deepStrictEqual(yield* claim("b", subject, now + 4_999), [])
        const [retried] = yield* claim("b", subject, now + 5_000)
        assert.deepStrictEqual(retried!.pending.map((p) => [p.deliveryID, p.attempts, p.firstAttemptAt]), [
          [first.deliveryID, 1, now + 10],
          [claimed!.pending[1]!.deliveryID, 0, undefined]
        ])
        yield* queue.record(retried!.lease, attempt(retried!, 0, now + 5_010, undefined), { _tag: "GiveUp" })
        assert.deepStrictEqual(yield* claim("b", subject, now + 100 * LEASE), [])
        const listed = yield* deliveries.list(subject.webhookID, { limit: 10 })
        assert.deepStrictEqual(listed.map((d) => d.status), ["discarded", "discarded"])
        const attempts = yield* deliveries.attempts(subject.webhookID, String(first.deliveryID))
        assert.deepStrictEqual(attempts.map((a) => [a.number, a.statusCode, a.error, a.succeeded]), [
          [1, 500, undefined, false],
          [2, undefined, "connection refused", false]
        ])
        assert.deepStrictEqual(yield* deliveries.list(subject.webhookID, { limit: 10, status: "pending" }), [])
      }))

    it.effect("a subject given back idle stays due when something was queued during the lease", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const { subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1)], now)
        const [claimed] = yield* claim("a", subject, now)
        yield* queue.enqueue([notification(subject, 2)], now + 1)
        yield* queue.release(claimed!.lease, true)
        const [again] = yield* claim("b", subject, now + 2)
        assert.strictEqual(again!.pending.length, 2)
        assert.isAbove(again!.lease.version, claimed!.lease.version)
        // given back idle at the version read: not due any more
        yield* queue.release(again!.lease, true)
        assert.deepStrictEqual(yield* claim("b", subject, now + 10 * LEASE), [])
      }))

    it.effect("a subject given back with nothing left is forgotten, however its queue ended: queued again, it starts afresh", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const { subject, now } = yield* aSubject
        /** Queues one notification and claims the subject: the lease's version tells whether it was kept. */
        const queueAndClaim = (eventID: number, at: number) =>
          Effect.zipRight(
            queue.enqueue([notification(subject, eventID)], at),
            Effect.map(claim("a", subject, at), (claimed) => claimed[0]!)
          )
        const fresh = yield* queueAndClaim(1, now)
        // drained by its delivery
        yield* queue.record(fresh.lease, attempt(fresh, 0, now + 1, 200), { _tag: "Delivered", drained: true })
        const afterDrain = yield* queueAndClaim(2, now + 10)
        assert.strictEqual(afterDrain.lease.version, fresh.lease.version)
        // given back idle
        yield* queue.release(afterDrain.lease, true)
        const afterRelease = yield* queueAndClaim(3, now + 20)
        assert.strictEqual(afterRelease.lease.version, fresh.lease.version)
        // its last attempt failed
        yield* queue.record(afterRelease.lease, attempt(afterRelease, 0, now + 21, 500), { _tag: "GiveUp" })
        const afterGiveUp = yield* queueAndClaim(4, now + 30)
        assert.strictEqual(afterGiveUp.lease.version, fresh.lease.version)
        // discarded
        yield* queue.discard(afterGiveUp.lease)
        const afterDiscard = yield* queueAndClaim(5, now + 40)
        assert.strictEqual(afterDiscard.lease.version, fresh.lease.version)
        assert.deepStrictEqual(afterDiscard.pending.map((p) => JSON.parse(p.body).eventID), [5])
        // a retry keeps it, and what it holds
        yield* queue.record(afterDiscard.lease, attempt(afterDiscard, 0, now + 41, 500), { _tag: "Retry", at: now + 1_000 })
        const retried = yield* queueAndClaim(6, now + 1_000)
        assert.isAbove(retried.lease.version, fresh.lease.version)
        assert.deepStrictEqual(retried.pending.map((p) => JSON.parse(p.body).eventID), [5, 6])
      }))

    it.effect("postpone moves a waiting subject; discard drops its queue; deleting the webhook discards it too", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const deliveries = yield* WebhookDeliveries
        const webhooks = yield* WebhookRepository
        const { partyID, subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1)], now)
        yield* queue.postpone(subject, now + 1_000)
        assert.deepStrictEqual(yield* claim("a", subject, now + 999), [])
        const [claimed] = yield* claim("a", subject, now + 1_000)
        yield* queue.discard(claimed!.lease)
        assert.deepStrictEqual((yield* deliveries.list(subject.webhookID, { limit: 10 })).map((d) => d.status), ["discarded"])
        assert.deepStrictEqual(yield* claim("a", subject, now + 10 * LEASE), [])
        // an idle subject is not postponed into being due
        yield* queue.postpone(subject, now)
        assert.deepStrictEqual(yield* claim("a", subject, now + 10 * LEASE), [])

        yield* queue.enqueue([notification(subject, 2)], now + 2_000)
        assert.isTrue(yield* webhooks.delete(partyID, subject.webhookID, new Date(now + 2_001)))
        assert.deepStrictEqual((yield* deliveries.list(subject.webhookID, { limit: 10 })).map((d) => d.status), ["discarded", "discarded"])
        assert.deepStrictEqual(yield* claim("a", subject, now + 10 * LEASE), [])
        assert.deepStrictEqual(yield* deliveries.webhookExists(subject.webhookID), Option.some({ deleted: true }))
      }))

    it.effect("a redelivery queues a copy at the end of its subject's queue", () =>
      Effect.gen(function*() {
        const queue = yield* DeliveryQueue
        const deliveries = yield* WebhookDeliveries
        const { subject, now } = yield* aSubject
        yield* queue.enqueue([notification(subject, 1)], now)
        const [claimed] = yield* claim("a", subject, now)
        yield* queue.record(claimed!.lease, attempt(claimed!, 0, now + 10, 200), { _tag: "Delivered", drained: true })
        const original = String(claimed!.pending[0]!.deliveryID)
        const copy = Option.getOrThrow(yield* deliveries.redeliver(subject.webhookID, original, new Date(now + 100)))
        assert.deepStrictEqual([copy.status, copy.eventID, copy.redeliveryOf, copy.attempts], ["pending", 1, original, 0])
        assert.deepStrictEqual(copy.nextAttemptAt, new Date(now + 100))
        assert.isTrue(Option.isNone(yield* deliveries.redeliver(subject.webhookID, "999999999", new Date(now))))
        assert.isTrue(Option.isNone(yield* deliveries.get("another-webhook", original)))
        const [again] = yield* claim("a", subject, now + 100)
        assert.deepStrictEqual(again!.pending.map((p) => String(p.deliveryID)), [copy.id])
      }))
  })
}
