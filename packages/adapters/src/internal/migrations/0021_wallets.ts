import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The wallet side: identities and their challenges, wallets, deposits with their reverts and
 * adjustments, wallet-to-wallet transfers. Lists read by party in creation order.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE identities (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      name TEXT NOT NULL,
      provider TEXT NOT NULL,
      class TEXT NOT NULL,
      level TEXT NOT NULL,
      effective_challenge TEXT,
      is_blocked INTEGER NOT NULL,
      metadata TEXT,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX identities_party_created ON identities (party_id, created_at, id)`,
    `CREATE TABLE identity_challenges (
      identity_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      type TEXT NOT NULL,
      proofs TEXT NOT NULL,
      status TEXT NOT NULL,
      failure_reason TEXT,
      valid_until BIGINT,
      events TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (identity_id, id)
    )`,
    `CREATE TABLE wallets (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      name TEXT NOT NULL,
      currency TEXT NOT NULL,
      is_blocked INTEGER NOT NULL,
      metadata TEXT,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX wallets_party_created ON wallets (party_id, created_at, id)`,
    `CREATE TABLE deposits (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      wallet_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      source_id TEXT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      external_id TEXT,
      description TEXT,
      status TEXT NOT NULL,
      failure TEXT,
      reverted BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX deposits_party_created ON deposits (party_id, created_at, id)`,
    `CREATE TABLE deposit_reverts (
      deposit_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      wallet_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      source_id TEXT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      external_id TEXT,
      reason TEXT,
      status TEXT NOT NULL,
      failure TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (deposit_id, id)
    )`,
    `CREATE INDEX deposit_reverts_party_created ON deposit_reverts (party_id, created_at, id)`,
    `CREATE TABLE deposit_adjustments (
      deposit_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      wallet_id TEXT NOT NULL,
      identity_id TEXT NOT NULL,
      source_id TEXT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      target TEXT NOT NULL,
      external_id TEXT,
      status TEXT NOT NULL,
      failure TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (deposit_id, id)
    )`,
    `CREATE INDEX deposit_adjustments_party_created ON deposit_adjustments (party_id, created_at, id)`,
    `CREATE TABLE w2w_transfers (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      sender_id TEXT NOT NULL,
      receiver_id TEXT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      external_id TEXT,
      status TEXT NOT NULL,
      failure TEXT,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
