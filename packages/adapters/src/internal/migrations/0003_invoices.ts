import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Invoices: the fields searches filter on as columns, the rest of the invoice as JSON.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE invoices (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      due_date BIGINT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      product TEXT NOT NULL,
      status TEXT NOT NULL,
      invoice_template_id TEXT,
      active_payment_id TEXT,
      data TEXT NOT NULL,
      version INTEGER NOT NULL
    )`,
    `CREATE INDEX invoices_shop_created ON invoices (party_id, shop_id, created_at, id)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
