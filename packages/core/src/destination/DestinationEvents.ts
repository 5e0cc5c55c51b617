/**
 * The destination's events in the event log, under the `destination` aggregate: its creation
 * (event 1) and each move of its status (the authorization), each appended in the transaction
 * that makes it, so its outbox entry tells the webhook fan-out (`wallet-webhook/DestinationMapper`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { PendingEvent } from "../Event.js"
import { type DestinationRecord, DestinationStatus } from "./Destination.js"

/** The aggregate type the destination's events are logged under. @since 0.1.0 */
export const AGGREGATE = "destination"

/** @since 0.1.0 @category schemas */
export const DestinationChange = Schema.Union(
  Schema.Struct({ type: Schema.Literal("DestinationCreated") }),
  Schema.Struct({ type: Schema.Literal("DestinationStatusChanged"), status: DestinationStatus })
)
/** @since 0.1.0 */
export type DestinationChange = typeof DestinationChange.Type

/** @since 0.1.0 */
export const decodeChanges = Schema.decodeUnknownSync(Schema.Array(DestinationChange))

const event = (d: DestinationRecord, change: DestinationChange): PendingEvent<DestinationChange> => ({
  aggregateType: AGGREGATE,
  aggregateID: d.id,
  partyID: d.partyID,
  changes: [change]
})

/** The destination's creation. @since 0.1.0 */
export const created = (d: DestinationRecord) => event(d, { type: "DestinationCreated" })

/** The destination's move to its current status. @since 0.1.0 */
export const statusChanged = (d: DestinationRecord) => event(d, { type: "DestinationStatusChanged", status: d.status })
