import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Wallet reports (numbered by the database) and their built files, the CSV's text kept in the row.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const serial = sql.onDialectOrElse({
    pg: () => "BIGSERIAL PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY AUTOINCREMENT"
  })
  const statements = [
    `CREATE TABLE reports (
      id ${serial},
      party_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      type TEXT NOT NULL,
      from_time BIGINT NOT NULL,
      to_time BIGINT NOT NULL,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX reports_party_identity ON reports (party_id, identity_id, id)`,
    `CREATE TABLE report_files (
      id TEXT PRIMARY KEY,
      report_id BIGINT NOT NULL,
      party_id TEXT NOT NULL,
      content TEXT NOT NULL
    )`,
    `CREATE INDEX report_files_report ON report_files (report_id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
