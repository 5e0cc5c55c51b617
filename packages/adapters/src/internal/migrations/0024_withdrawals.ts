import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Withdrawal destinations (a card by the vault's token) and withdrawals with their status events.
 * Lists read by party in creation order.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE destinations (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      name TEXT NOT NULL,
      currency TEXT NOT NULL,
      resource TEXT NOT NULL,
      vault_token TEXT NOT NULL,
      status TEXT NOT NULL,
      is_blocked INTEGER NOT NULL,
      metadata TEXT,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX destinations_party_created ON destinations (party_id, created_at, id)`,
    `CREATE TABLE withdrawals (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      wallet_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      destination_id TEXT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      fee BIGINT NOT NULL,
      payout_amount BIGINT NOT NULL,
      payout_currency TEXT NOT NULL,
      metadata TEXT,
      external_id TEXT,
      wallet_grant TEXT,
      status TEXT NOT NULL,
      failure TEXT,
      attempts INTEGER NOT NULL,
      events TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX withdrawals_party_created ON withdrawals (party_id, created_at, id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
