import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { changed, watched } from "./0010_search.js"

/**
 * @internal
 * PostgreSQL: the search triggers of migration 0010 get WHEN clauses, so that a write which moves
 * no rollup, or leaves a payment's JSON alone, never enters PL/pgSQL (an activity change, a
 * version bump). SQLite's update triggers had theirs from the start.
 */
const tables = ["invoices", "payments", "refunds"] as const

const pg = [
  `DROP TRIGGER search_payments_fields ON payments`,
  `CREATE TRIGGER search_payments_fields_insert BEFORE INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION kassa_payments_search_fields()`,
  `CREATE TRIGGER search_payments_fields_update BEFORE UPDATE OF data, flow ON payments
    FOR EACH ROW WHEN (OLD.data IS DISTINCT FROM NEW.data OR OLD.flow IS DISTINCT FROM NEW.flow)
    EXECUTE FUNCTION kassa_payments_search_fields()`,
  ...tables.flatMap((table) => [
    `DROP TRIGGER search_${table}_rollup ON ${table}`,
    `CREATE TRIGGER search_${table}_rollup_write AFTER INSERT OR DELETE ON ${table}
      FOR EACH ROW EXECUTE FUNCTION kassa_${table}_search_rollup()`,
    `CREATE TRIGGER search_${table}_rollup_update AFTER UPDATE ON ${table}
      FOR EACH ROW WHEN (${changed("OLD", "NEW", watched[table], "IS DISTINCT FROM")})
      EXECUTE FUNCTION kassa_${table}_search_rollup()`
  ])
]

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({ pg: () => pg, orElse: () => [] })
  for (const statement of statements) yield* sql.unsafe(statement)
})
