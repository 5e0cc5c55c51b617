import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal Customers and their bindings. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE customers (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      deleted_at BIGINT,
      status TEXT NOT NULL,
      data TEXT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX customers_party ON customers (party_id, shop_id)`,
    `CREATE TABLE customer_bindings (
      customer_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      status TEXT NOT NULL,
      interaction_id TEXT,
      data TEXT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (customer_id, id)
    )`,
    `CREATE INDEX customer_bindings_interaction ON customer_bindings (interaction_id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
