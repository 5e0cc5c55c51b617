import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { changed, SUCCESSFUL } from "./0010_search.js"

/**
 * @internal
 * The payers of a shop's successful payments, for the unique payers statistic.
 *
 * `search_payers` holds one row per payer (`search_payer` of migration 0010) with at least one
 * successful payment: the exact creation times of its first and last one, and `gap`, at least the
 * longest time between two of its successes in a row. A payer whose first or last success lies
 * inside a window certainly paid in it, and so does one whose successes surround a window longer
 * than its `gap`; only the others need a look at their payments, through `payments_search_payer`.
 *
 * Triggers keep the rows in the writer's transaction: a payment that becomes successful widens its
 * payer's range (and `gap`, when it lands outside the range; inside, it only splits a gap, so the
 * bound holds); one that stops being successful (or changes payer, shop or time) recomputes the
 * row from the index, and removes it when nothing is left.
 */

const counted = (R: string) => `${R}.status IN ${SUCCESSFUL} AND ${R}.search_payer IS NOT NULL`

/** The columns whose change moves a payment between payers' ranges. */
const watched = ["party_id", "shop_id", "created_at", "status", "search_payer"]

const key = (R: string) => `party_id = ${R}.party_id AND shop_id = ${R}.shop_id AND payer = ${R}.search_payer`

/** Each payer's row from its successful payments `where` (their times, and the one before each). */
const rowsOf = (where: string, partition: string) =>
  `SELECT party_id, shop_id, search_payer, MIN(created_at), MAX(created_at), COALESCE(MAX(created_at - previous), 0)
   FROM (
     SELECT party_id, shop_id, search_payer, created_at,
       LAG(created_at) OVER (${partition} ORDER BY created_at) AS previous
     FROM payments WHERE status IN ${SUCCESSFUL} AND search_payer IS NOT NULL AND ${where}
   ) AS successes
   WHERE TRUE
   GROUP BY party_id, shop_id, search_payer`

const COLUMNS = "(party_id, shop_id, payer, first_at, last_at, gap)"

/** Row `R`'s payer from the payments themselves (none when it has no success left). */
const recompute = (R: string, guard: string) =>
  `INSERT INTO search_payers ${COLUMNS}
   ${rowsOf(`party_id = ${R}.party_id AND shop_id = ${R}.shop_id AND search_payer = ${R}.search_payer AND ${guard}`, "")}
   ON CONFLICT (party_id, shop_id, payer) DO UPDATE SET
     first_at = excluded.first_at, last_at = excluded.last_at, gap = excluded.gap`

const remove = (R: string, guard: string) => [`DELETE FROM search_payers WHERE ${key(R)} AND ${guard}`, recompute(R, guard)]

// SET expressions read the row as it was before this update
const add = (R: string, guard: string, least: string, greatest: string) =>
  `INSERT INTO search_payers ${COLUMNS}
   SELECT ${R}.party_id, ${R}.shop_id, ${R}.search_payer, ${R}.created_at, ${R}.created_at, 0 WHERE ${guard}
   ON CONFLICT (party_id, shop_id, payer) DO UPDATE SET
     gap = ${greatest}(search_payers.gap, search_payers.first_at - excluded.first_at, excluded.last_at - search_payers.last_at),
     first_at = ${least}(search_payers.first_at, excluded.first_at),
     last_at = ${greatest}(search_payers.last_at, excluded.last_at)`

const table = [
  `CREATE TABLE search_payers (
    party_id TEXT NOT NULL,
    shop_id TEXT NOT NULL,
    payer TEXT NOT NULL,
    first_at BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    gap BIGINT NOT NULL,
    PRIMARY KEY (party_id, shop_id, payer)
  )`,
  `CREATE INDEX payments_search_payer ON payments (party_id, shop_id, search_payer, created_at)
    WHERE status IN ${SUCCESSFUL} AND search_payer IS NOT NULL`,
  `INSERT INTO search_payers ${COLUMNS} ${rowsOf("TRUE", "PARTITION BY party_id, shop_id, search_payer")}`
]

const sqliteTriggers = [
  `CREATE TRIGGER search_payers_insert AFTER INSERT ON payments WHEN ${counted("NEW")}
   BEGIN ${add("NEW", "1", "MIN", "MAX")}; END`,
  `CREATE TRIGGER search_payers_update AFTER UPDATE ON payments
   WHEN (${counted("OLD")} OR ${counted("NEW")}) AND (${changed("OLD", "NEW", watched, "IS NOT")})
   BEGIN
     ${remove("OLD", counted("OLD")).join(";\n     ")};
     ${add("NEW", counted("NEW"), "MIN", "MAX")};
   END`,
  `CREATE TRIGGER search_payers_delete AFTER DELETE ON payments WHEN ${counted("OLD")}
   BEGIN ${remove("OLD", "1").join("; ")}; END`
]

/** @internal The WHEN clauses of the payments' triggers: they keep the function out of the many writes that move no payer's range. */
export const pgTriggerWhen = {
  insert: counted("NEW"),
  update: `(${counted("OLD")} OR ${counted("NEW")}) AND (${changed("OLD", "NEW", watched, "IS DISTINCT FROM")})`,
  delete: counted("OLD")
}

const pgTriggers = [
  `CREATE FUNCTION kassa_payments_search_payers() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        IF ${counted("OLD")} THEN
          ${remove("OLD", "TRUE").join(";\n          ")};
        END IF;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        IF ${counted("NEW")} THEN
          ${add("NEW", "TRUE", "LEAST", "GREATEST")};
        END IF;
      END IF;
      RETURN NULL;
    END
  $fn$`,
  ...(["insert", "update", "delete"] as const).map((op) =>
    `CREATE TRIGGER search_payments_payers_${op} AFTER ${op.toUpperCase()} ON payments
    FOR EACH ROW WHEN (${pgTriggerWhen[op]}) EXECUTE FUNCTION kassa_payments_search_payers()`
  )
]

/** @internal */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const statements = sql.onDialectOrElse({
    pg: () => [...table, ...pgTriggers],
    orElse: () => [...table, ...sqliteTriggers]
  })
  for (const statement of statements) yield* sql.unsafe(statement)
})
