/**
 * The rule "stored event → notifications → deliveries", one mapper per aggregate type.
 *
 * A mapper turns its aggregate's stored events into notifications of one topic, each with the
 * subject it is ordered under (the object it is about) and that object's shop; `deliveriesFor`
 * then queues one delivery per subscribed webhook of that shop that asked for its type. The
 * mappers are registered by aggregate type in `NotificationMappers`.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type { QueuedNotification } from "../ports/DeliveryQueue.js"
import type { OutboxEntry } from "../ports/Outbox.js"
import type { Subscriber } from "../ports/WebhookRepository.js"
import type { Notification } from "./Notification.js"
import { subscriptionFor } from "./NotificationMapping.js"
import type { Topic } from "./Webhook.js"

/** The notifications of one stored event, and what they are about. @since 0.1.0 @category models */
export interface Notified {
  /** The object the notifications are about: its queue orders them. */
  readonly subject: { readonly type: string; readonly id: string; readonly shopID: string }
  readonly eventID: number
  readonly notifications: ReadonlyArray<Notification>
}

/** @since 0.1.0 @category models */
export interface NotificationMapper {
  /** The topic whose webhooks the aggregate's notifications go to. */
  readonly topic: Topic
  /**
   * Reads together what the entries' notifications are made from (one batch of the outbox, only
   * entries whose party has webhooks of the topic), then answers each entry's notifications
   * (undefined: none). Runs inside the fan-out's transaction.
   */
  readonly prepare: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<(entry: OutboxEntry) => Effect.Effect<Notified | undefined>>
}

/**
 * A mapper that chooses its subscribers itself (the wallet's webhooks, by identity, wallet and
 * event type, `wallet-webhook/`): it reads a party's webhooks of its kind (`subscribers`, once per
 * party and batch, keyed `kind`), then answers each entry's deliveries to them. The fan-out reads
 * a payments mapper's as one of these (`deliveriesFor`).
 *
 * @since 0.1.0 @category models
 */
export interface DeliveryMapper<S> {
  /** Names the subscribers `subscribers` reads, apart from other mappers'. */
  readonly kind: string
  readonly subscribers: (partyID: string) => Effect.Effect<ReadonlyArray<S>>
  /** As `NotificationMapper.prepare`, answering each entry's deliveries to the party's subscribers. */
  readonly prepare: (
    entries: ReadonlyArray<OutboxEntry>
  ) => Effect.Effect<(entry: OutboxEntry, subscribers: ReadonlyArray<S>) => Effect.Effect<ReadonlyArray<QueuedNotification>>>
}

/**
 * The deliveries of one event's notifications: one per subscriber of the subject's shop that
 * asked for the notification's type, in subscriber then notification order.
 *
 * @since 0.1.0
 */
export const deliveriesFor = (subscribers: ReadonlyArray<Subscriber>, notified: Notified): Array<QueuedNotification> => {
  const out: Array<QueuedNotification> = []
  for (const hook of subscribers) {
    if (hook.scope.shopID !== notified.subject.shopID) continue
    const wanted = new Set<string>(hook.scope.eventTypes)
    for (const notification of notified.notifications) {
      const subscription = subscriptionFor(notification.eventType)
      if (subscription === undefined || !wanted.has(subscription)) continue
      out.push({
        subject: { webhookID: hook.webhookID, type: notified.subject.type, id: notified.subject.id },
        eventID: notified.eventID,
        topic: notification.topic,
        eventType: notification.eventType,
        body: JSON.stringify(notification),
        keyID: hook.keyID
      })
    }
  }
  return out
}
