/**
 * The stored events still to be fanned out to webhooks: every event the log appends leaves an
 * entry (the storage may leave none for a party without webhooks: it has nothing to notify),
 * taken in order per aggregate and gone once its notifications are queued.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** A stored event waiting for its notifications. @since 0.1.0 @category models */
export interface OutboxEntry {
  readonly aggregateType: string
  readonly aggregateID: string
  readonly eventID: number
  readonly partyID: string
}

/** @since 0.1.0 @category tags */
export class Outbox extends Context.Tag("kassa/Outbox")<Outbox, {
  /** Whether any entry waits: one cheap read, outside any transaction. */
  readonly pending: Effect.Effect<boolean>
  /**
   * Takes up to `limit` entries, oldest first, an aggregate's in order from its oldest waiting
   * one (never one while an earlier entry of its aggregate is another taker's), runs `f` on them
   * and removes them, all in one transaction: what `f` queues and the entries' removal commit
   * together. Concurrent takers get other aggregates. Answers how many were taken (0: none
   * waited; fewer than `limit`: none was left that this take could have had).
   */
  readonly take: <R>(
    limit: number,
    f: (entries: ReadonlyArray<OutboxEntry>) => Effect.Effect<void, never, R>
  ) => Effect.Effect<number, never, R>
}>() {}
