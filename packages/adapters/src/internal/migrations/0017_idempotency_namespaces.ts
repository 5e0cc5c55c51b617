import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * ExternalIDs get a namespace: the party's own (API keys) or the resource an access token opens,
 * so that a token's externalID neither blocks nor answers the merchant's. The key gains the
 * column, which SQLite cannot add to a primary key in place: the table is rebuilt on both
 * dialects. Existing records were all taken in the party's namespace ('party', frozen here).
 */
const statements = [
  `CREATE TABLE idempotency_keys_0017 (
    party_id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    operation TEXT NOT NULL,
    external_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (party_id, namespace, operation, external_id)
  )`,
  `INSERT INTO idempotency_keys_0017 (party_id, namespace, operation, external_id, entity_id, fingerprint, created_at)
    SELECT party_id, 'party', operation, external_id, entity_id, fingerprint, created_at FROM idempotency_keys`,
  `DROP TABLE idempotency_keys`,
  `ALTER TABLE idempotency_keys_0017 RENAME TO idempotency_keys`
]

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
  // PostgreSQL keeps the index's old name through the rename
  yield* sql.onDialectOrElse({
    pg: () => sql.unsafe(`ALTER INDEX idempotency_keys_0017_pkey RENAME TO idempotency_keys_pkey`),
    orElse: () => Effect.void
  })
})
