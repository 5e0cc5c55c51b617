/**
 * The destination's notifications (`DestinationsTopic` webhooks), ordered per destination: its
 * creation (`DestinationCreated`) and its authorization (`DestinationAuthorized`, or
 * `DestinationUnauthorized` for a move back), as logged (`destination/DestinationEvents`), at the
 * time they were logged.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { decodeChanges, AGGREGATE } from "../destination/DestinationEvents.js"
import { DestinationRepository } from "../ports/DestinationRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { type WalletSubscriber, WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import type { DeliveryMapper } from "../webhook/NotificationMapper.js"
import { deliveriesTo } from "./WalletDeliveries.js"
import { ofDestinationCreated, ofDestinationStatus, type WalletNotification } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const DestinationMapper: Effect.Effect<
  DeliveryMapper<WalletSubscriber>,
  never,
  WalletWebhookRepository | DestinationRepository | EventLog
> = Effect.gen(function*() {
  const hooks = yield* WalletWebhookRepository
  const destinations = yield* DestinationRepository
  const events = yield* EventLog
  return {
    kind: "wallet/DestinationsTopic",
    subscribers: (partyID) => hooks.subscribers(partyID, "DestinationsTopic"),
    prepare: () =>
      Effect.succeed((entry, subscribers) =>
        Effect.gen(function*() {
          const found = Option.filter(yield* destinations.findById(entry.aggregateID), (d) => d.partyID === entry.partyID)
          const [event] = yield* events.list({ aggregateType: AGGREGATE, aggregateID: entry.aggregateID, after: entry.eventID - 1, limit: 1 })
          if (Option.isNone(found) || event === undefined || event.id !== entry.eventID) return []
          const d = found.value
          return decodeChanges(event.changes).flatMap((change) => {
            const n: WalletNotification = change.type === "DestinationCreated"
              ? ofDestinationCreated(d, event.id)
              : ofDestinationStatus({ ...d, status: change.status }, event.id, event.createdAt)
            return deliveriesTo(subscribers, d, { type: AGGREGATE, id: d.id }, event.id, n)
          })
        })
      )
  }
})
