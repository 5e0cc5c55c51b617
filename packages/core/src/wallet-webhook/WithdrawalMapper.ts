/**
 * The withdrawal's notifications (`WithdrawalsTopic` webhooks), ordered per withdrawal: each
 * status event it logged (`withdrawal/WithdrawalEvents`) is its notification, made from the
 * withdrawal's own record of that event (`WalletNotifications.ofWithdrawalEvent`), numbered as
 * its events are polled. The wallet owner's webhooks are told, also of a withdrawal another party
 * made with the wallet's grant.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import { AGGREGATE, recordedEventsOf } from "../withdrawal/WithdrawalEvents.js"
import { mapper } from "./WalletDeliveries.js"
import { ofWithdrawalEvent } from "./WalletNotifications.js"

/** @since 0.1.0 */
export const WithdrawalMapper = Effect.flatMap(WithdrawalRepository, (withdrawals) =>
  mapper({
    topic: "WithdrawalsTopic",
    aggregate: AGGREGATE,
    find: withdrawals.findById,
    notifications: (w, logged) => recordedEventsOf(w, logged.changes).map((e) => ofWithdrawalEvent(w, e)),
    // one made with a wallet grant is the wallet owner's news, not its maker's
    told: (w) => w.walletPartyID
  }))
