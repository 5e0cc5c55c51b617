/**
 * The event model: every state change of an aggregate appends one event with an id that
 * increases by one per aggregate, a creation time and the list of changes it made.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category models */
export const EventID = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))

/**
 * The wire shape of an event whose changes follow `change`.
 *
 * @since 0.1.0 @category constructors
 */
export const Event = <C extends Schema.Schema.Any>(change: C) =>
  Schema.Struct({
    id: EventID,
    createdAt: Schema.DateTimeUtc,
    changes: Schema.Array(change)
  })

/**
 * What a command hands to the event log: the aggregate it belongs to and its changes.
 * The log numbers the event.
 *
 * @since 0.1.0 @category models
 */
export interface PendingEvent<C = unknown> {
  readonly aggregateType: string
  readonly aggregateID: string
  readonly partyID: string
  readonly changes: ReadonlyArray<C>
}

/**
 * An event as stored.
 *
 * @since 0.1.0 @category models
 */
export interface StoredEvent<C = unknown> {
  readonly aggregateType: string
  readonly aggregateID: string
  readonly partyID: string
  readonly id: number
  readonly createdAt: Date
  readonly changes: ReadonlyArray<C>
}
