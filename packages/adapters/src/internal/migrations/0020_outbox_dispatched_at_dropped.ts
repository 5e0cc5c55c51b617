import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The outbox loses `dispatched_at`: the fan-out deletes what it dispatched (0015), and no release
 * marks a row any more. A row still marked (left by a process of the earlier version) was
 * dispatched, so it goes first rather than be dispatched twice. On PostgreSQL the column's index
 * (`outbox_pending`) goes with it; SQLite will not drop an indexed column, so the index goes first.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const present = yield* sql.onDialectOrElse({
    pg: () =>
      sql`SELECT 1 FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'outbox' AND column_name = 'dispatched_at'`,
    orElse: () => sql`SELECT 1 FROM pragma_table_info('outbox') WHERE name = 'dispatched_at'`
  })
  if (present.length === 0) return
  yield* sql`DELETE FROM outbox WHERE dispatched_at IS NOT NULL`
  yield* sql`DROP INDEX IF EXISTS outbox_pending`
  yield* sql`ALTER TABLE outbox DROP COLUMN dispatched_at`
})
