import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The card vault: data keys (each wrapped by the master key), cards and payment sessions
 * encrypted under a data key. Ciphertexts are base64 TEXT, times epoch milliseconds (BIGINT).
 * A card's fingerprint is a keyed hash of its number: it finds the card without decrypting.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE vault_keys (
      id INTEGER PRIMARY KEY,
      wrapped TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE vault_cards (
      token TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL UNIQUE,
      key_id INTEGER NOT NULL REFERENCES vault_keys(id),
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX vault_cards_key ON vault_cards (key_id)`,
    `CREATE TABLE vault_sessions (
      id TEXT PRIMARY KEY,
      key_id INTEGER NOT NULL REFERENCES vault_keys(id),
      data TEXT NOT NULL,
      expires_at BIGINT NOT NULL
    )`,
    `CREATE INDEX vault_sessions_expires ON vault_sessions (expires_at)`,
    `CREATE INDEX vault_sessions_key ON vault_sessions (key_id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
