/**
 * The withdrawal's status events in the event log: each event the withdrawal records
 * (`WithdrawalEventRecord`) is appended under the `withdrawal` aggregate in the transaction that
 * records it, so the log numbers it as the withdrawal does and its outbox entry tells the
 * webhook fan-out (`wallet-webhook/WithdrawalMapper`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { EventLog } from "../ports/EventLog.js"
import { toStatus } from "../movement/Movement.js"
import type { WithdrawalRecord } from "./Withdrawal.js"

/** The aggregate type the withdrawal's events are logged under. @since 0.1.0 */
export const AGGREGATE = "withdrawal"

/** Appends the events `w` recorded after `after` (its last event's id before the change), oldest first. @since 0.1.0 */
export const appendSince = (events: EventLog["Type"], w: WithdrawalRecord, after: number) =>
  Effect.forEach(
    w.events.filter((e) => e.eventID > after),
    (e) => events.append({ aggregateType: AGGREGATE, aggregateID: w.id, partyID: w.partyID, changes: [{ type: "WithdrawalStatusChanged", ...toStatus(e) }] }),
    { discard: true }
  )

/** The id of the last event `w` recorded (0: none). @since 0.1.0 */
export const lastEventID = (w: WithdrawalRecord) => w.events[w.events.length - 1]?.eventID ?? 0
