/**
 * The fan-out: stored events become queued deliveries. A batch of the outbox is taken in one
 * transaction; each entry goes to its aggregate type's mapper (`NotificationMappers`), only when its party
 * has webhooks of the mapper's kind; the notifications are queued, one delivery per matching
 * webhook (a payments mapper's through `deliveriesFor`, a wallet mapper's by its own choice), and
 * the entries leave the outbox with that commit.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { DeliveryQueue, type QueuedNotification } from "../ports/DeliveryQueue.js"
import { Outbox, type OutboxEntry } from "../ports/Outbox.js"
import { type Subscriber, WebhookRepository } from "../ports/WebhookRepository.js"
import { mappers } from "./NotificationMappers.js"
import { type DeliveryMapper, deliveriesFor, type NotificationMapper } from "./NotificationMapper.js"

/** Outbox entries taken per transaction. @since 0.1.0 */
export const BATCH = 100

// An entry that cannot be turned into notifications (a defect) is logged and passed over, never
// left to block every later one.
const skipped = (entry: OutboxEntry) => (cause: Cause.Cause<unknown>) =>
  Effect.logError("webhook fan-out: an event could not be dispatched; it is skipped", cause).pipe(
    Effect.annotateLogs({ aggregateType: entry.aggregateType, aggregateID: entry.aggregateID, eventID: entry.eventID }),
    Effect.as([])
  )

/** Either kind of mapper the registry holds. @since 0.1.0 @category models */
export type AnyMapper = NotificationMapper | DeliveryMapper<any>

const isDeliveryMapper = (m: AnyMapper): m is DeliveryMapper<any> => "subscribers" in m

/**
 * The fan-out over the given mappers, by aggregate type (`WebhookFanOut` uses
 * `NotificationMappers.mappers`).
 *
 * @since 0.1.0 @category constructors
 */
export const make = <M extends Readonly<Record<string, Effect.Effect<AnyMapper, never, any>>>>(registry: M) =>
  Effect.gen(function*() {
    const outbox = yield* Outbox
    const queue = yield* DeliveryQueue
    const webhooks = yield* WebhookRepository
    /** A payments mapper: the party's webhooks of its topic, one delivery per subscribed shop's webhook. */
    const ofTopic = (mapper: NotificationMapper): DeliveryMapper<Subscriber> => ({
      kind: mapper.topic,
      subscribers: (partyID) => webhooks.subscribers(partyID, mapper.topic),
      prepare: (entries) =>
        Effect.map(mapper.prepare(entries), (notify) => (entry, subscribers) =>
          Effect.map(notify(entry), (notified) => (notified === undefined ? [] : deliveriesFor(subscribers, notified))))
    })
    // Each mapper is made with the ports it reads: their union is what the fan-out needs.
    const byType = new Map<string, DeliveryMapper<any>>()
    for (const [type, make] of Object.entries(registry)) {
      const mapper = yield* (make as Effect.Effect<AnyMapper, never, Effect.Effect.Context<M[keyof M]>>)
      byType.set(type, isDeliveryMapper(mapper) ? mapper : ofTopic(mapper))
    }

    const fanOut = (entries: ReadonlyArray<OutboxEntry>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        // A party's webhooks of a kind, read once per batch.
        const known = new Map<string, ReadonlyArray<unknown>>()
        const subscribersOf = (partyID: string, mapper: DeliveryMapper<any>) => {
          const key = `${mapper.kind}/${partyID}`
          const found = known.get(key)
          return found !== undefined
            ? Effect.succeed(found)
            : Effect.tap(mapper.subscribers(partyID), (read) => void known.set(key, read))
        }
        const notifying: Array<{ readonly entry: OutboxEntry; readonly mapper: DeliveryMapper<any>; readonly subscribers: ReadonlyArray<unknown> }> = []
        const byMapper = new Map<DeliveryMapper<any>, Array<OutboxEntry>>()
        for (const entry of entries) {
          const mapper = byType.get(entry.aggregateType)
          if (mapper === undefined) continue
          const subscribers = yield* subscribersOf(entry.partyID, mapper)
          if (subscribers.length === 0) continue
          notifying.push({ entry, mapper, subscribers })
          const batch = byMapper.get(mapper)
          if (batch === undefined) byMapper.set(mapper, [entry])
          else batch.push(entry)
        }
        const prepared = new Map<
          DeliveryMapper<any>,
          (entry: OutboxEntry, subscribers: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<QueuedNotification>>
        >()
        for (const [mapper, batch] of byMapper) prepared.set(mapper, yield* mapper.prepare(batch))
        const deliveries: Array<QueuedNotification> = []
        for (const { entry, mapper, subscribers } of notifying) {
          deliveries.push(...yield* prepared.get(mapper)!(entry, subscribers).pipe(Effect.catchAllCause(skipped(entry))))
        }
        if (deliveries.length > 0) yield* queue.enqueue(deliveries, now)
        return deliveries.length
      })

    return {
      /** Whether stored events wait for the fan-out (one cheap read). */
      pending: outbox.pending,
      /**
       * Fans out one batch of the outbox in one transaction; answers how many events it took (fewer
       * than `BATCH`: none waited past them) and how many deliveries it queued.
       */
      batch: Effect.suspend(() => {
        let queued = 0
        return Effect.map(
          outbox.take(BATCH, (entries) => Effect.map(fanOut(entries), (n) => void (queued += n))),
          (taken) => ({ taken, queued })
        )
      })
    } as const
  })

/** @since 0.1.0 @category services */
export class WebhookFanOut extends Effect.Service<WebhookFanOut>()("kassa/WebhookFanOut", {
  effect: make(mappers)
}) {}
