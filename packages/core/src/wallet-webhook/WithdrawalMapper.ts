/**
 * The withdrawal's notifications (`WithdrawalsTopic` webhooks), ordered per withdrawal: each
 * status event it logged (`withdrawal/WithdrawalEvents`) is its notification, made from the
 * withdrawal's record of that event (`WalletNotifications.ofWithdrawalEvent`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type WalletSubscriber, WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import type { DeliveryMapper } from "../webhook/NotificationMapper.js"
import { AGGREGATE } from "../withdrawal/WithdrawalEvents.js"
import { deliveriesTo } from "./WalletDeliveries.js"
import { ofWithdrawalEvent } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const WithdrawalMapper: Effect.Effect<DeliveryMapper<WalletSubscriber>, never, WalletWebhookRepository | WithdrawalRepository> = Effect.gen(
  function*() {
    const hooks = yield* WalletWebhookRepository
    const withdrawals = yield* WithdrawalRepository
    return {
      kind: "wallet/WithdrawalsTopic",
      subscribers: (partyID) => hooks.subscribers(partyID, "WithdrawalsTopic"),
      prepare: () =>
        Effect.succeed((entry, subscribers) =>
          Effect.map(withdrawals.findById(entry.aggregateID), (found) => {
            const w = Option.getOrUndefined(Option.filter(found, (w) => w.partyID === entry.partyID))
            const event = w?.events.find((e) => e.eventID === entry.eventID)
            if (w === undefined || event === undefined) return []
            return deliveriesTo(subscribers, w, { type: AGGREGATE, id: w.id }, entry.eventID, ofWithdrawalEvent(w, event))
          })
        )
    }
  }
)
