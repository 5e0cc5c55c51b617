/**
 * The event log: appends numbered events (and their outbox rows) inside the command's
 * transaction, and reads an aggregate's history back.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { PendingEvent, StoredEvent } from "../Event.js"

/** @since 0.1.0 @category tags */
export class EventLog extends Context.Tag("kassa/EventLog")<EventLog, {
  /**
   * Numbers the event after the aggregate's last one and stores it with an outbox row. Nobody
   * needs the number here (`list` reads it back): the storage may hold the write back with the
   * transaction's other writes.
   */
  readonly append: (event: PendingEvent<unknown>) => Effect.Effect<void>
  /**
   * Events of one aggregate with id greater than `after`, oldest first, at most `limit`; with
   * `partyID`, only when the aggregate is that party's.
   */
  readonly list: (query: {
    readonly aggregateType: string
    readonly aggregateID: string
    readonly after: number
    readonly limit: number
    readonly partyID?: string | undefined
  }) => Effect.Effect<ReadonlyArray<StoredEvent>>
}>() {}
