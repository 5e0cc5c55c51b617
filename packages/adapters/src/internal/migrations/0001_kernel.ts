import * as Effect from "effect/Effect"
import * as SqlClient from "@effect/sql/SqlClient"

/**
 * @internal
 * The kernel: parties, contracts, shops, API keys, the event log and its outbox, durable
 * timers and idempotency records. Times are epoch milliseconds (BIGINT), JSON is TEXT, booleans
 * are 0/1, so one row schema reads both dialects.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const serial = sql.onDialectOrElse({
    pg: () => "BIGSERIAL PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY AUTOINCREMENT"
  })
  const statements = [
    `CREATE TABLE parties (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      email TEXT NOT NULL,
      is_blocked INTEGER NOT NULL,
      is_suspended INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE TABLE contracts (
      party_id TEXT NOT NULL REFERENCES parties(id),
      id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      status TEXT NOT NULL,
      valid_since BIGINT,
      valid_until BIGINT,
      terminated_at BIGINT,
      contractor TEXT NOT NULL,
      legal_agreement TEXT,
      payment_institution_id INTEGER NOT NULL,
      PRIMARY KEY (party_id, id)
    )`,
    `CREATE TABLE shops (
      party_id TEXT NOT NULL REFERENCES parties(id),
      id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      is_blocked INTEGER NOT NULL,
      is_suspended INTEGER NOT NULL,
      currency TEXT NOT NULL,
      category_id INTEGER NOT NULL,
      location TEXT NOT NULL,
      details TEXT NOT NULL,
      contract_id TEXT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (party_id, id)
    )`,
    `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      revoked_at BIGINT
    )`,
    `CREATE INDEX api_keys_party ON api_keys (party_id)`,
    `CREATE TABLE events (
      aggregate_type TEXT NOT NULL,
      aggregate_id TEXT NOT NULL,
      id INTEGER NOT NULL,
      party_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      changes TEXT NOT NULL,
      PRIMARY KEY (aggregate_type, aggregate_id, id)
    )`,
    `CREATE TABLE outbox (
      seq ${serial},
      aggregate_type TEXT NOT NULL,
      aggregate_id TEXT NOT NULL,
      event_id INTEGER NOT NULL,
      party_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      dispatched_at BIGINT
    )`,
    `CREATE INDEX outbox_pending ON outbox (dispatched_at, seq)`,
    `CREATE TABLE timers (
      kind TEXT NOT NULL,
      subject TEXT NOT NULL,
      due_at BIGINT NOT NULL,
      payload TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      locked_until BIGINT,
      PRIMARY KEY (kind, subject)
    )`,
    `CREATE INDEX timers_due ON timers (due_at)`,
    `CREATE TABLE idempotency_keys (
      party_id TEXT NOT NULL,
      operation TEXT NOT NULL,
      external_id TEXT NOT NULL,
      entity_id TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (party_id, operation, external_id)
    )`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
