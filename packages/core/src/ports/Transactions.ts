/**
 * The transaction boundary: one command, one transaction. The state change, its events,
 * outbox rows and timers commit together or not at all.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @since 0.1.0 @category tags */
export class Transactions extends Context.Tag("kassa/Transactions")<Transactions, {
  /**
   * Runs `effect` in one transaction: all of its writes or none. A read inside always sees the
   * transaction's own writes, and a write the database refuses fails the transaction. (How the
   * writes travel is the adapter's: it may hold back those whose answers nobody reads, and send
   * a transaction that only writes as one statement.)
   */
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Starts `effect` in the background, detached from the caller and from any transaction the
   * caller is in (it runs on its own connection and transactions). Failures are logged. Work
   * still running when the adapter closes may be interrupted: it must be resumable (a durable
   * timer finishes it).
   */
  readonly background: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<void>
}>() {}
