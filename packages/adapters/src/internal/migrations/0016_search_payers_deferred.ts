import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { pgTriggerWhen } from "./0012_search_payers.js"

/**
 * @internal
 * PostgreSQL: the payers' triggers of migration 0012 run at commit (deferred constraint
 * triggers). Run at the write, a capture locked its payer's `search_payers` row from its first
 * statement to its commit, and every other payment of that payer becoming successful waited all
 * that time; now each holds it only while it commits. The function and its conditions are
 * unchanged; it reads the payments as the transaction leaves them. SQLite runs one writer at a
 * time and keeps its triggers.
 */
const pg = (["insert", "update", "delete"] as const).flatMap((op) => [
  `DROP TRIGGER search_payments_payers_${op} ON payments`,
  `CREATE CONSTRAINT TRIGGER search_payments_payers_${op} AFTER ${op.toUpperCase()} ON payments
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (${pgTriggerWhen[op]}) EXECUTE FUNCTION kassa_payments_search_payers()`
])

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({ pg: () => pg, orElse: () => [] })
  for (const statement of statements) yield* sql.unsafe(statement)
})
