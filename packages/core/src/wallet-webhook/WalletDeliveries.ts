/**
 * The deliveries of wallet notifications: one per subscriber that wants each (`wants`: its
 * identity, its wallet when it names one, one of its event types), queued on the subject (the
 * withdrawal or destination), signed with the party's key current when it is queued; and the
 * fan-out mapper of a wallet aggregate's logged events (`mapper`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { StoredEvent } from "../Event.js"
import type { QueuedNotification } from "../ports/DeliveryQueue.js"
import { EventLog } from "../ports/EventLog.js"
import { type WalletSubscriber, WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import type { DeliveryMapper } from "../webhook/NotificationMapper.js"
import type { WalletTopic } from "./WalletWebhook.js"
import { type WalletNotification, wants } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const deliveriesTo = (
  subscribers: ReadonlyArray<WalletSubscriber>,
  about: { readonly identityID: string; readonly walletID?: string | undefined },
  subject: { readonly type: string; readonly id: string },
  eventID: number,
  notification: WalletNotification
): Array<QueuedNotification> =>
  subscribers.filter((s) => wants(s.hook, about, notification)).map((s) => ({
    subject: { webhookID: s.hook.id, type: subject.type, id: subject.id },
    eventID,
    topic: notification.topic,
    eventType: notification.eventType,
    body: JSON.stringify(notification),
    keyID: s.keyID
  }))

/** What a wallet aggregate's mapper needs: its topic, its log's aggregate type, its record, its notifications. */
interface Aggregate<A> {
  readonly topic: WalletTopic
  readonly aggregate: string
  readonly find: (id: string) => Effect.Effect<Option.Option<A>>
  /** The notifications of one logged event of the record. */
  readonly notifications: (record: A, logged: StoredEvent) => ReadonlyArray<WalletNotification>
  /** The party whose webhooks are told, under which the events are logged: the record's, unless said. */
  readonly told?: (record: A) => string
}

/**
 * The fan-out mapper of a wallet aggregate: each outbox entry's logged event, read with its
 * record (the caller's party's), becomes its notifications' deliveries.
 *
 * @since 0.1.0
 */
export const mapper = <A extends { readonly id: string; readonly partyID: string; readonly identityID: string; readonly walletID?: string | undefined }>(
  of: Aggregate<A>
): Effect.Effect<DeliveryMapper<WalletSubscriber>, never, WalletWebhookRepository | EventLog> =>
  Effect.gen(function*() {
    const hooks = yield* WalletWebhookRepository
    const events = yield* EventLog
    return {
      kind: `wallet/${of.topic}`,
      subscribers: (partyID) => hooks.subscribers(partyID, of.topic),
      prepare: () =>
        Effect.succeed((entry, subscribers) =>
          Effect.gen(function*() {
            const found = Option.filter(yield* of.find(entry.aggregateID), (r) => (of.told?.(r) ?? r.partyID) === entry.partyID)
            const [logged] = yield* events.list({ aggregateType: of.aggregate, aggregateID: entry.aggregateID, after: entry.eventID - 1, limit: 1 })
            if (Option.isNone(found) || logged === undefined || logged.id !== entry.eventID) return []
            const record = found.value
            return of.notifications(record, logged).flatMap((n) =>
              deliveriesTo(subscribers, record, { type: of.aggregate, id: record.id }, entry.eventID, n)
            )
          })
        )
    }
  })
