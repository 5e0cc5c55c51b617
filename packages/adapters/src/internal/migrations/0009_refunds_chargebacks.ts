import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** @internal Refunds and chargebacks of payments. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = [
    `CREATE TABLE refunds (
      invoice_id TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      external_id TEXT,
      created_at BIGINT NOT NULL,
      amount BIGINT NOT NULL,
      currency TEXT NOT NULL,
      status TEXT NOT NULL,
      fee BIGINT NOT NULL,
      data TEXT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (invoice_id, payment_id, id)
    )`,
    `CREATE INDEX refunds_shop_created ON refunds (party_id, shop_id, created_at)`,
    `CREATE TABLE chargebacks (
      invoice_id TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      id TEXT NOT NULL,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      body BIGINT NOT NULL,
      levy BIGINT NOT NULL,
      currency TEXT NOT NULL,
      reason_code TEXT,
      stage TEXT NOT NULL,
      status TEXT NOT NULL,
      version INTEGER NOT NULL,
      PRIMARY KEY (invoice_id, payment_id, id)
    )`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
