/**
 * `Outbox` on `SqlClient`: the `outbox` rows the event log writes with each event. A take claims
 * the oldest rows of aggregates (on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so several processes
 * take different aggregates), each aggregate's from its oldest pending row on, so its events are
 * fanned out in order and a take that is not full leaves nothing it could have taken; the rows
 * are deleted in the same transaction (the event log keeps the events). Only a party with webhooks has rows (`notifiable`): the others'
 * events would have nothing to notify.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import { Outbox, type OutboxEntry } from "@kassa/core/ports/Outbox"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { rowLock } from "../internal/locks.js"
import { IntColumn, reader } from "../internal/rows.js"

/** An `outbox` row: its entry, and the sequence number it is removed by. */
const entries = reader(
  Schema.Struct({ seq: IntColumn, aggregateType: Schema.String, aggregateId: Schema.String, eventId: IntColumn, partyId: Schema.String }),
  (r): { readonly seq: number; readonly entry: OutboxEntry } => ({
    seq: r.seq,
    entry: { aggregateType: r.aggregateType, aggregateID: r.aggregateId, eventID: r.eventId, partyID: r.partyId }
  })
)

/** @internal The tables `notifiable` reads. */
export const WEBHOOK_TABLES = ["webhooks", "wallet_webhooks"] as const

/**
 * @internal
 * The condition an outbox row is written on, in the statement that writes it: its party has a
 * webhook (or a wallet webhook). A webhook committed before the event's statement sees every
 * later event of its party; one deleted has nothing more to notify. (SQLite's trigger that writes
 * the row, migration 0030, holds the same condition: a change here is a migration there.)
 */
export const notifiable = (sql: SqlClient.SqlClient, partyID: string): Statement.Fragment =>
  sql`(EXISTS (SELECT 1 FROM webhooks WHERE party_id = ${partyID} AND deleted_at IS NULL)
    OR EXISTS (SELECT 1 FROM wallet_webhooks WHERE party_id = ${partyID}))`

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Outbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      // An idle pass is this one statement, not a transaction around the claiming query.
      pending: sql`SELECT 1 FROM outbox LIMIT 1`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      take: (limit, f) =>
        Effect.gen(function*() {
          // The aggregates' oldest rows, locked (another taker skips them and, while they wait, their
          // aggregates' later rows), then the rows of those aggregates, oldest first.
          const rows = yield* sql`WITH heads AS (
              SELECT o.aggregate_type, o.aggregate_id FROM outbox o
              WHERE NOT EXISTS (
                SELECT 1 FROM outbox p WHERE p.aggregate_type = o.aggregate_type AND p.aggregate_id = o.aggregate_id
                AND p.seq < o.seq)
              ORDER BY o.seq LIMIT ${limit} ${rowLock(sql, "FOR UPDATE OF o SKIP LOCKED")})
            SELECT o.seq, o.aggregate_type, o.aggregate_id, o.event_id, o.party_id FROM outbox o
            JOIN heads h ON h.aggregate_type = o.aggregate_type AND h.aggregate_id = o.aggregate_id
            ORDER BY o.seq LIMIT ${limit}`.pipe(Effect.map(entries.all))
          if (rows.length === 0) return 0
          yield* f(rows.map(({ entry }) => entry))
          yield* sql`DELETE FROM outbox WHERE ${sql.in("seq", rows.map(({ seq }) => seq))}`
          return rows.length
        }).pipe(sql.withTransaction, Effect.orDie)
    }
  })
)
