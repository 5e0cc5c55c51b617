import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal Invoice templates; a deleted template keeps its row with `deleted_at`. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE invoice_templates (
    id TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    shop_id TEXT NOT NULL,
    external_id TEXT,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT,
    data TEXT NOT NULL,
    version INTEGER NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX invoice_templates_party ON invoice_templates (party_id)`)
})
