import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * PostgreSQL: each aggregate's last event number, so that an append numbers its event, writes
 * it and its outbox row in one statement. The upsert of the head row serialises concurrent
 * appenders (it waits for the row and reads its latest version) where an advisory lock taken
 * in a statement of its own used to. SQLite runs one writer at a time and needs none.
 */
const pg = [
  `CREATE TABLE event_heads (
    aggregate_type TEXT NOT NULL,
    aggregate_id TEXT NOT NULL,
    last INTEGER NOT NULL,
    PRIMARY KEY (aggregate_type, aggregate_id)
  )`,
  `INSERT INTO event_heads (aggregate_type, aggregate_id, last)
    SELECT aggregate_type, aggregate_id, MAX(id) FROM events GROUP BY aggregate_type, aggregate_id`
]

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({ pg: () => pg, orElse: () => [] })
  for (const statement of statements) yield* sql.unsafe(statement)
})
