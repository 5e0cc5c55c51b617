import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * The ledger: accounts with committed and pending amounts, posting plans and their batches.
 * A platform account has no party or shop: those columns hold '' (never NULL, which would let
 * the UNIQUE key admit duplicates on both dialects). Batch ids are BIGINT (the reference's are
 * int64); postings are JSON TEXT.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const serial = sql.onDialectOrElse({
    pg: () => "BIGSERIAL PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY AUTOINCREMENT"
  })
  const statements = [
    `CREATE TABLE ledger_accounts (
      id ${serial},
      kind TEXT NOT NULL,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      own BIGINT NOT NULL,
      min_diff BIGINT NOT NULL,
      max_diff BIGINT NOT NULL,
      UNIQUE (kind, party_id, shop_id, currency)
    )`,
    `CREATE TABLE ledger_plans (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL
    )`,
    `CREATE TABLE ledger_batches (
      plan_id TEXT NOT NULL REFERENCES ledger_plans(id),
      batch_id BIGINT NOT NULL,
      postings TEXT NOT NULL,
      PRIMARY KEY (plan_id, batch_id)
    )`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
