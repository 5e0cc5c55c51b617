/**
 * The withdrawal's notifications (`WithdrawalsTopic` webhooks), ordered per withdrawal: each
 * status event it logged (`withdrawal/WithdrawalEvents`) is its notification, made from the
 * withdrawal's own record of that event (`WalletNotifications.ofWithdrawalEvent`), numbered as
 * its events are polled.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { EventLog } from "../ports/EventLog.js"
import { type WalletSubscriber, WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import type { DeliveryMapper } from "../webhook/NotificationMapper.js"
import { AGGREGATE, recordedEventsOf } from "../withdrawal/WithdrawalEvents.js"
import { deliveriesTo } from "./WalletDeliveries.js"
import { ofWithdrawalEvent } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const WithdrawalMapper: Effect.Effect<
  DeliveryMapper<WalletSubscriber>,
  never,
  WalletWebhookRepository | WithdrawalRepository | EventLog
> = Effect.gen(function*() {
  const hooks = yield* WalletWebhookRepository
  const withdrawals = yield* WithdrawalRepository
  const events = yield* EventLog
  return {
    kind: "wallet/WithdrawalsTopic",
    subscribers: (partyID) => hooks.subscribers(partyID, "WithdrawalsTopic"),
    prepare: () =>
      Effect.succeed((entry, subscribers) =>
        Effect.gen(function*() {
          const found = Option.filter(yield* withdrawals.findById(entry.aggregateID), (w) => w.partyID === entry.partyID)
          const [logged] = yield* events.list({ aggregateType: AGGREGATE, aggregateID: entry.aggregateID, after: entry.eventID - 1, limit: 1 })
          if (Option.isNone(found) || logged === undefined || logged.id !== entry.eventID) return []
          const w = found.value
          return recordedEventsOf(w, logged.changes).flatMap((e) =>
            deliveriesTo(subscribers, w, { type: AGGREGATE, id: w.id }, entry.eventID, ofWithdrawalEvent(w, e))
          )
        })
      )
  }
})
