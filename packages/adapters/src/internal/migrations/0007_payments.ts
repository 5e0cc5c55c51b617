import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Payment resources (tokens and sessions; card data itself is in the vault) and payments: the
 * fields searches filter on as columns, the rest as JSON.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE payment_resources (
      token TEXT PRIMARY KEY,
      session TEXT NOT NULL,
      party_id TEXT NOT NULL,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      valid_until BIGINT NOT NULL
    )`,
    `CREATE TABLE payments (
      invoice_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      status TEXT NOT NULL,
      activity TEXT NOT NULL,
      flow TEXT NOT NULL,
      interaction_id TEXT,
      fee BIGINT NOT NULL,
      status_changed_at BIGINT NOT NULL,
      data TEXT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (invoice_id, id)
    )`,
    `CREATE INDEX payments_shop_created ON payments (party_id, shop_id, created_at)`,
    `CREATE INDEX payments_interaction ON payments (interaction_id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
