/**
 * `EventLog` on `SqlClient`: events numbered per aggregate, each with an outbox row written in
 * the same statement for the dispatchers that follow the log, when its party has webhooks
 * (`SqlOutbox.notifiable`: a party with none would only have its rows read and deleted).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type Event, Now } from "@kassa/core"
import { EventLog } from "@kassa/core/ports/EventLog"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, toJson } from "./internal/rows.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import { rows } from "./sql/driver/reads.js"
import { returningEvents } from "./sql/driver/Signals.js"
import { inserting, type Write, writeAll } from "./sql/driver/writes.js"
import { notifiable, WEBHOOK_TABLES } from "./webhooks/SqlOutbox.js"
import * as Repository from "./internal/repository.js"

/** An `events` row. */
const EventRow = Schema.Struct({
  aggregateType: Schema.String,
  aggregateId: Schema.String,
  partyId: Schema.String,
  id: IntColumn,
  createdAt: DateColumn,
  changes: JsonColumn(Schema.Array(Schema.Unknown))
})

const decodeEvents = Schema.decodeUnknownSync(Schema.Array(EventRow))

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  EventLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { signals } = yield* SqlDriver
    // PostgreSQL: the event, numbered from its aggregate's head row, and its outbox row, in one
    // statement, which signals the dispatchers when it wrote the row. Two transactions appending to one aggregate take turns on the head row (the
    // upsert waits for it and reads its latest version, migration 0014).
    const pg = (event: Event.PendingEvent, now: number): Write => ({
      kind: "insert",
      // it reads the webhook tables: a held write to them goes first
      tables: ["event_heads", "events", "outbox", ...WEBHOOK_TABLES],
      build: (name) => {
        const head = sql.literal(name("event_head"))
        const added = sql.literal(name("new_event"))
        return {
          ctes: [
            [
              name("event_head"),
              sql`INSERT INTO event_heads (aggregate_type, aggregate_id, last) VALUES (${event.aggregateType}, ${event.aggregateID}, 1)
                ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last = event_heads.last + 1 RETURNING last`
            ],
            [
              name("new_event"),
              sql`INSERT INTO events (aggregate_type, aggregate_id, id, party_id, created_at, changes)
                SELECT ${event.aggregateType}, ${event.aggregateID}, ${head}.last, ${event.partyID}, CAST(${now} AS BIGINT),
                  ${toJson(event.changes)}
                FROM ${head} RETURNING id`
            ]
          ],
          main: sql`INSERT INTO outbox (aggregate_type, aggregate_id, event_id, party_id, created_at)
            SELECT ${event.aggregateType}, ${event.aggregateID}, ${added}.id, ${event.partyID}, CAST(${now} AS BIGINT)
            FROM ${added} WHERE ${notifiable(sql, event.partyID)} ${returningEvents(sql)}`
        }
      }
    })
    // SQLite (one writer at a time): numbered from the log itself, in the statement that writes
    // it; its outbox row comes with it, by the insert's trigger (migration 0030), which reads the
    // webhook tables. The number is a scalar subquery of VALUES: an INSERT ... SELECT reading the
    // table it writes would first copy its row into a temporary table.
    const sqlite = (event: Event.PendingEvent, now: number): ReadonlyArray<Write> => [{
      ...inserting(
        "events",
        sql`INSERT INTO events (aggregate_type, aggregate_id, id, party_id, created_at, changes)
          VALUES (${event.aggregateType}, ${event.aggregateID},
            (SELECT COALESCE(MAX(id), 0) + 1 FROM events WHERE aggregate_type = ${event.aggregateType} AND aggregate_id = ${event.aggregateID}),
            ${event.partyID}, ${now}, ${toJson(event.changes)})`
      ),
      tables: ["events", "outbox", ...WEBHOOK_TABLES]
    }]
    // PostgreSQL: the outbox row's own statement signals the dispatchers (`events`), when it wrote
    // one; the search rollups' compactor hears of every append in-process (`appended`)
    const signalled = sql.onDialectOrElse({
      pg: () => signals.notify("appended"),
      orElse: () => Effect.zipRight(signals.notify("appended"), signals.notify("events"))
    })
    const writesOf = sql.onDialectOrElse({
      pg: () => (event: Event.PendingEvent, now: number) => [pg(event, now)],
      orElse: () => sqlite
    })

    return {
      append: (event) =>
        Now.flatMap((now) => writeAll(sql, writesOf(event, now))).pipe(
          Effect.zipRight(signalled)
        ),
      list: (q) =>
        rows(sql`SELECT aggregate_type, aggregate_id, party_id, id, created_at, changes FROM events WHERE aggregate_type = ${q.aggregateType} AND aggregate_id = ${q.aggregateID}
            AND id > ${q.after} ${q.partyID === undefined ? sql.literal("") : sql`AND party_id = ${q.partyID}`}
            ORDER BY id LIMIT ${q.limit}`).pipe(
          Effect.map((found) =>
            decodeEvents(found).map((r): Event.StoredEvent => ({
              aggregateType: r.aggregateType,
              aggregateID: r.aggregateId,
              partyID: r.partyId,
              id: r.id,
              createdAt: r.createdAt,
              changes: r.changes
            }))
          ),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
