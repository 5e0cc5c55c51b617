/**
 * The customer aggregate's notifications (`CustomersTopic`), ordered per customer: each event's
 * notifications with the customer and bindings as they stood right after it
 * (`CustomerNotifications`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Transactions } from "../ports/Transactions.js"
import { customerNotificationsOf, customerSnapshotsAt, decodeCustomerChanges } from "./CustomerNotifications.js"
import type { NotificationMapper, Notified } from "./NotificationMapper.js"

/** @since 0.1.0 */
export const CustomerMapper: Effect.Effect<NotificationMapper, never, EventLog | CustomerRepository | Transactions> = Effect.gen(function*() {
  const events = yield* EventLog
  const customers = yield* CustomerRepository
  const tx = yield* Transactions
  const notified = (partyID: string, customerID: string, eventID: number) =>
    Effect.gen(function*() {
      const history = (yield* events.list({ aggregateType: "customer", aggregateID: customerID, after: 0, limit: eventID }))
        .map((e) => ({ id: e.id, createdAt: e.createdAt, changes: decodeCustomerChanges(e.changes) }))
      const event = history.find((e) => e.id === eventID)
      if (event === undefined) return undefined
      const customer = yield* customers.findById(partyID, customerID)
      const snapshots = customerSnapshotsAt(history, eventID, Option.getOrUndefined(customer))
      if (Option.isNone(snapshots)) return undefined
      const answer: Notified = {
        subject: { type: "customer", id: customerID, shopID: snapshots.value.customer.shopID },
        eventID,
        notifications: customerNotificationsOf(event, snapshots.value)
      }
      return answer
    })
  return {
    topic: "CustomersTopic",
    // Each entry's reads are a unit of their own inside the fan-out's transaction: one that fails
    // is passed over without failing the batch's others.
    prepare: () => Effect.succeed((entry) => tx.withTransaction(notified(entry.partyID, entry.aggregateID, entry.eventID)))
  }
})
