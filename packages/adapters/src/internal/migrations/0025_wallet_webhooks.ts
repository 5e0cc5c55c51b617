import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal Wallet webhooks: an identity's subscriptions to its withdrawals' or destinations' events. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE wallet_webhooks (
    id TEXT PRIMARY KEY,
    party_id TEXT NOT NULL,
    identity_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    scope TEXT NOT NULL,
    url TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`)
  yield* sql.unsafe(`CREATE INDEX wallet_webhooks_by_identity ON wallet_webhooks (party_id, identity_id, topic, created_at)`)
})
