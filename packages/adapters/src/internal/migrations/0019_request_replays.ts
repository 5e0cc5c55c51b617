import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The answers to replay to a repeated `X-Request-ID` (see `SqlRequestReplays`). A row is claimed
 * (key and time) by the request's first transaction and answered (status and body) once the
 * request has answered; `created_at` orders the sweep of rows older than 24 hours.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE request_replays (
    key TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    status INTEGER,
    body TEXT
  )`
  yield* sql`CREATE INDEX request_replays_created_at ON request_replays (created_at)`
})
