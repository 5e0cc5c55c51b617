/**
 * `EventLog` on `SqlClient`: events numbered per aggregate, each with an outbox row written in
 * the same transaction for the dispatchers that follow the log.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Event } from "@kassa/core"
import { EventLog } from "@kassa/core/ports/EventLog"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { date, int, json, toJson } from "./internal/rows.js"
import { holding, write, writeAll } from "./sql/driver/writes.js"

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  EventLog,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // PostgreSQL: an event after the first, numbered from its aggregate's head row, and its
    // outbox row, in one statement. Two transactions appending to one aggregate take turns on
    // the head row (the upsert waits for it and reads its latest version, migration 0014);
    // SQLite runs one writer at a time anyway.
    const nextEvent = <C>(event: Event.PendingEvent<C>, now: number, returning: boolean) =>
      sql`WITH event_head AS (
          INSERT INTO event_heads (aggregate_type, aggregate_id, last) VALUES (${event.aggregateType}, ${event.aggregateID}, 1)
          ON CONFLICT (aggregate_type, aggregate_id) DO UPDATE SET last = event_heads.last + 1
          RETURNING last),
        new_event AS (
          INSERT INTO events (aggregate_type, aggregate_id, id, party_id, created_at, changes)
          SELECT ${event.aggregateType}, ${event.aggregateID}, event_head.last, ${event.partyID}, CAST(${now} AS BIGINT),
            ${toJson(event.changes)}
          FROM event_head RETURNING id)
        INSERT INTO outbox (aggregate_type, aggregate_id, event_id, party_id, created_at)
        SELECT ${event.aggregateType}, ${event.aggregateID}, new_event.id, ${event.partyID}, CAST(${now} AS BIGINT)
        FROM new_event${sql.literal(returning ? " RETURNING event_id" : "")}`
    const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })

    const append = <C>(event: Event.PendingEvent<C>) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const key = { aggregateType: event.aggregateType, aggregateId: event.aggregateID }
        let id = 1
        const held = yield* holding
        if (event.first !== true) {
          // Numbering reads the log: it needs a transaction, not a unit's writes held back.
          if (held === "unit") return yield* Effect.dieMessage("EventLog.append: only an aggregate's first event may be held back")
          if (pg) {
            const [appended] = yield* nextEvent(event, now, true)
            return { ...event, id: int(appended!.eventId), createdAt: new Date(now) } satisfies Event.StoredEvent<C>
          }
          const [last] = yield* sql<{ last: unknown }>`SELECT COALESCE(MAX(id), 0) AS last FROM events
            WHERE aggregate_type = ${event.aggregateType} AND aggregate_id = ${event.aggregateID}`
          id = int(last!.last) + 1
        }
        const row = { ...key, id, partyId: event.partyID, createdAt: now, changes: toJson(event.changes) }
        const outbox = { ...key, eventId: id, partyId: event.partyID, createdAt: now }
        // The event, its outbox row and, on PostgreSQL, its aggregate's head row (a first
        // event's is new: a second first event is refused with its unit): one statement on
        // PostgreSQL, held back with the unit's or the transaction's other writes.
        yield* writeAll(
          sql,
          pg
            ? [
              sql`INSERT INTO event_heads ${sql.insert({ ...key, last: id })}`,
              sql`INSERT INTO events ${sql.insert(row)}`,
              sql`INSERT INTO outbox ${sql.insert(outbox)}`
            ]
            : [sql`INSERT INTO events ${sql.insert(row)}`, sql`INSERT INTO outbox ${sql.insert(outbox)}`]
        )
        return { ...event, id, createdAt: new Date(now) } satisfies Event.StoredEvent<C>
      }).pipe(Effect.orDie)

    return {
      append,
      // Inside a PostgreSQL transaction the event waits with the transaction's other writes:
      // numbered from its head row when they go, so nobody learns the number here.
      record: (event) =>
        Effect.flatMap(holding, (held) =>
          held === "transaction" && pg && event.first !== true
            ? Effect.flatMap(Clock.currentTimeMillis, (now) => write(nextEvent(event, now, false)))
            : Effect.asVoid(append(event))),
      list: (q) =>
        sql`SELECT aggregate_type, aggregate_id, party_id, id, created_at, changes FROM events WHERE aggregate_type = ${q.aggregateType} AND aggregate_id = ${q.aggregateID}
            AND id > ${q.after} ${q.partyID === undefined ? sql.literal("") : sql`AND party_id = ${q.partyID}`}
            ORDER BY id LIMIT ${q.limit}`.pipe(
          Effect.map((rows) =>
            rows.map((r: any): Event.StoredEvent => ({
              aggregateType: r.aggregateType,
              aggregateID: r.aggregateId,
              partyID: r.partyId,
              id: int(r.id),
              createdAt: date(r.createdAt),
              changes: json(r.changes)
            }))
          ),
          Effect.orDie
        )
    }
  })
)
