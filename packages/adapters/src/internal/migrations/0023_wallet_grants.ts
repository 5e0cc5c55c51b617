import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal Wallet grants: each one's asset and what spending with it took. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE wallet_grants (
    id TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    wallet_id TEXT NOT NULL,
    amount BIGINT NOT NULL,
    currency TEXT NOT NULL,
    valid_until BIGINT NOT NULL,
    spent BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    version INTEGER NOT NULL
  )`)
})
