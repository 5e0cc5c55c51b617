import { assert, describe, it } from "@effect/vitest"
import { DeliveryQueue, type QueuedNotification } from "@kassa/core/ports/DeliveryQueue"
import { Outbox, type OutboxEntry } from "@kassa/core/ports/Outbox"
import { type Subscriber, WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import type * as N from "@kassa/core/webhook/Notification"
import type { NotificationMapper } from "@kassa/core/webhook/NotificationMapper"
import type { InvoicesSubscription } from "@kassa/core/webhook/Webhook"
import * as NotificationMappers from "@kassa/core/webhook/NotificationMappers"
import * as WebhookFanOut from "@kassa/core/webhook/WebhookFanOut"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// The fan-out's rule on ports in memory: an outbox, a queue and the party's webhooks.

const die = (what: string) => () => Effect.die(`${what}: not used by the fan-out`)

const ports = (entries: Array<OutboxEntry>, hooks: Record<string, ReadonlyArray<Subscriber>>, queued: Array<QueuedNotification>) =>
  Layer.mergeAll(
    Layer.succeed(Outbox, {
      pending: Effect.sync(() => entries.length > 0),
      take: (limit, f) =>
        Effect.suspend(() => {
          const taken = entries.slice(0, limit)
          if (taken.length === 0) return Effect.succeed(0)
          return Effect.as(f(taken), taken.length).pipe(Effect.tap(() => void entries.splice(0, taken.length)))
        })
    }),
    Layer.succeed(DeliveryQueue, {
      enqueue: (notifications) => Effect.sync(() => void queued.push(...notifications)),
      claimDue: die("claimDue"),
      renew: die("renew"),
      record: die("record"),
      discard: die("discard"),
      release: die("release"),
      postpone: die("postpone")
    }),
    Layer.succeed(WebhookRepository, {
      subscribers: (partyID, topic) => Effect.succeed(hooks[`${partyID}/${topic}`] ?? []),
      findById: die("findById"),
      listByParty: die("listByParty"),
      countForShop: die("countForShop"),
      insertWithin: die("insertWithin"),
      delete: die("delete")
    })
  )

const created = (eventID: number, invoiceID: string) =>
  ({ eventID, occuredAt: "1970-01-01T00:00:00.000Z", topic: "InvoicesTopic", eventType: "InvoiceCreated", invoice: { id: invoiceID } }) as unknown as N.Notification
const paid = (eventID: number, invoiceID: string) =>
  ({ ...created(eventID, invoiceID), eventType: "InvoicePaid" }) as unknown as N.Notification

const entry = (aggregateType: string, aggregateID: string, eventID: number, partyID = "p"): OutboxEntry => ({
  aggregateType,
  aggregateID,
  eventID,
  partyID
})

const hook = (webhookID: string, shopID: string, eventTypes: ReadonlyArray<InvoicesSubscription>, keyID?: string): Subscriber => ({
  webhookID,
  scope: { topic: "InvoicesTopic", shopID, eventTypes },
  keyID
})

describe("WebhookFanOut", () => {
  it("every aggregate type notifying webhooks has its mapper registered, and only those", () => {
    assert.deepStrictEqual(Object.keys(NotificationMappers.mappers).sort(), ["customer", "destination", "invoice", "withdrawal"])
  })

  it.effect("an aggregate type with a mapper of its own is fanned out with nothing else changed; its mapper reads its entries together", () =>
    Effect.gen(function*() {
      const prepared: Array<ReadonlyArray<string>> = []
      // what a withdrawal would add: one mapper, registered by its aggregate type
      const withdrawals: Effect.Effect<NotificationMapper> = Effect.succeed({
        topic: "InvoicesTopic",
        prepare: (entries) =>
          Effect.sync(() => {
            prepared.push(entries.map((e) => `${e.aggregateID}/${e.eventID}`))
            return (e) =>
              Effect.succeed({
                subject: { type: "withdrawal", id: e.aggregateID, shopID: "s1" },
                eventID: e.eventID,
                notifications: e.eventID === 1 ? [created(e.eventID, e.aggregateID)] : [created(e.eventID, e.aggregateID), paid(e.eventID, e.aggregateID)]
              })
          })
      })
      const entries = [entry("withdrawal", "w1", 1), entry("other", "x", 1), entry("withdrawal", "w2", 1), entry("withdrawal", "w1", 2)]
      const queued: Array<QueuedNotification> = []
      const fanOut = yield* WebhookFanOut.make({ withdrawal: withdrawals }).pipe(
        Effect.provide(ports(entries, { "p/InvoicesTopic": [hook("h1", "s1", ["InvoiceCreated", "InvoicePaid"], "k1")] }, queued))
      )
      assert.isTrue(yield* fanOut.pending)
      assert.deepStrictEqual(yield* fanOut.batch, { taken: 4, queued: 4 })
      assert.isFalse(yield* fanOut.pending)
      assert.deepStrictEqual(prepared, [["w1/1", "w2/1", "w1/2"]])
      assert.deepStrictEqual(
        queued.map((q) => [q.subject.webhookID, `${q.subject.type}/${q.subject.id}`, q.eventID, q.eventType, q.keyID]),
        [
          ["h1", "withdrawal/w1", 1, "InvoiceCreated", "k1"],
          ["h1", "withdrawal/w2", 1, "InvoiceCreated", "k1"],
          ["h1", "withdrawal/w1", 2, "InvoiceCreated", "k1"],
          ["h1", "withdrawal/w1", 2, "InvoicePaid", "k1"]
        ]
      )
      assert.deepStrictEqual(JSON.parse(queued[3]!.body), paid(2, "w1"))
      assert.deepStrictEqual(yield* fanOut.batch, { taken: 0, queued: 0 })
    }))

  it.effect("a webhook gets only its shop's notifications of the types it asked for; a party without webhooks costs its mapper nothing", () =>
    Effect.gen(function*() {
      const prepared: Array<string> = []
      const mapper: Effect.Effect<NotificationMapper> = Effect.succeed({
        topic: "InvoicesTopic",
        prepare: (entries) =>
          Effect.sync(() => {
            prepared.push(...entries.map((e) => e.aggregateID))
            return (e) =>
              Effect.succeed({
                subject: { type: "invoice", id: e.aggregateID, shopID: "s1" },
                eventID: e.eventID,
                notifications: [created(e.eventID, e.aggregateID), paid(e.eventID, e.aggregateID)]
              })
          })
      })
      const queued: Array<QueuedNotification> = []
      const hooks = {
        "p/InvoicesTopic": [hook("created-only", "s1", ["InvoiceCreated"]), hook("other-shop", "s2", ["InvoiceCreated", "InvoicePaid"]), hook("paid-only", "s1", ["InvoicePaid"])]
      }
      const fanOut = yield* WebhookFanOut.make({ invoice: mapper }).pipe(
        Effect.provide(ports([entry("invoice", "i1", 1), entry("invoice", "i2", 1, "no-hooks")], hooks, queued))
      )
      assert.deepStrictEqual(yield* fanOut.batch, { taken: 2, queued: 2 })
      assert.deepStrictEqual(prepared, ["i1"])
      assert.deepStrictEqual(queued.map((q) => [q.subject.webhookID, q.eventType, q.keyID]), [
        ["created-only", "InvoiceCreated", undefined],
        ["paid-only", "InvoicePaid", undefined]
      ])
    }))

  it.effect("an event whose notifications cannot be made is passed over; the batch's others are queued and the outbox moves on", () =>
    Effect.gen(function*() {
      const mapper: Effect.Effect<NotificationMapper> = Effect.succeed({
        topic: "InvoicesTopic",
        prepare: () =>
          Effect.succeed((e) =>
            e.aggregateID === "broken"
              ? Effect.die("cannot read it")
              : Effect.succeed({ subject: { type: "invoice", id: e.aggregateID, shopID: "s1" }, eventID: e.eventID, notifications: [created(e.eventID, e.aggregateID)] })
          )
      })
      const queued: Array<QueuedNotification> = []
      const entries = [entry("invoice", "broken", 1), entry("invoice", "fine", 1)]
      const fanOut = yield* WebhookFanOut.make({ invoice: mapper }).pipe(
        Effect.provide(ports(entries, { "p/InvoicesTopic": [hook("h", "s1", ["InvoiceCreated"])] }, queued))
      )
      assert.deepStrictEqual(yield* fanOut.batch, { taken: 2, queued: 1 })
      assert.deepStrictEqual(queued.map((q) => q.subject.id), ["fine"])
      assert.strictEqual(entries.length, 0)
    }))
})
