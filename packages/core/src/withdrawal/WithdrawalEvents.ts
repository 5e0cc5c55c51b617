/**
 * The withdrawal's status events in the event log: each event the withdrawal records
 * (`WithdrawalEventRecord`) is appended under the `withdrawal` aggregate in the transaction that
 * records it, and its outbox entry tells the webhook fan-out (`wallet-webhook/WithdrawalMapper`).
 * The logged change names the status it moved to: a status is reached once, so it finds the
 * withdrawal's own event whatever the log numbered it (a withdrawal older than its logged events
 * has fewer of them in the log).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MovementStatus, toStatus } from "../movement/Movement.js"
import type { EventLog } from "../ports/EventLog.js"
import type { WithdrawalEventRecord, WithdrawalRecord } from "./Withdrawal.js"

/** The aggregate type the withdrawal's events are logged under. @since 0.1.0 */
export const AGGREGATE = "withdrawal"

/** Appends the events `w` recorded after `after` (its last event's id before the change), oldest first. @since 0.1.0 */
export const appendSince = (events: EventLog["Type"], w: WithdrawalRecord, after: number) =>
  Effect.forEach(
    w.events.filter((e) => e.eventID > after),
    (e) => events.append({ aggregateType: AGGREGATE, aggregateID: w.id, partyID: w.walletPartyID, changes: [{ type: "WithdrawalStatusChanged", ...toStatus(e) }] }),
    { discard: true }
  )

/** The id of the last event `w` recorded (0: none). @since 0.1.0 */
export const lastEventID = (w: WithdrawalRecord) => w.events[w.events.length - 1]?.eventID ?? 0

const LoggedChange = Schema.Struct({ type: Schema.Literal("WithdrawalStatusChanged"), status: MovementStatus })
const decodeLogged = Schema.decodeUnknownSync(Schema.Array(LoggedChange))

/** The withdrawal's own events a logged event's changes moved it to. @since 0.1.0 */
export const recordedEventsOf = (w: WithdrawalRecord, changes: ReadonlyArray<unknown>): Array<WithdrawalEventRecord> =>
  decodeLogged(changes).flatMap((c) => w.events.filter((e) => e.status === c.status))
