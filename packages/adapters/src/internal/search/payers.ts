/**
 * @internal
 * Unique payers of a shop's successful payments in a window, exact. A window with few successful
 * payments (the rollups tell how many) has them counted through `payments_search_payer`. Past that,
 * the payers' rows of migration 0012 answer: a payer counts when its first or last success lies in
 * the window, when its successes surround a window longer than its longest gap, or when one of them
 * falls inside (looked up in the index). When more than `probes` payers need that look, the
 * window's payments are counted after all.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Scope, Window } from "@kassa/core/ports/SearchRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { countOf, IntColumn, reader } from "../rows.js"

/** How many payers are certainly in the window, and how many may be. */
const split = reader(
  Schema.Struct({
    certain: Schema.optionalWith(IntColumn, { nullable: true, default: () => 0 }),
    doubtful: Schema.optionalWith(IntColumn, { nullable: true, default: () => 0 })
  }),
  (r) => r
)
import { scoped, SUCCESSFUL } from "./conditions.js"
import * as Rollups from "./rollups.js"

type Sql = SqlClient.SqlClient

export interface Options {
  /** Successful payments in a window up to which they are counted directly (default 50,000). */
  readonly scanUpTo?: number | undefined
  /** Payers looked up one by one before the window's payments are counted instead (default 2,000). */
  readonly probes?: number | undefined
}

export const unique = (sql: Sql, scope: Scope, w: Window, options: Options = {}): Effect.Effect<number, SqlError> => {
  const scanUpTo = options.scanUpTo ?? 50_000
  const probes = options.probes ?? 2_000
  const overlapping = sql.and([
    sql`s.party_id = ${scope.partyID}`,
    sql`s.shop_id = ${scope.shopID}`,
    sql`s.first_at < ${w.to}`,
    sql`s.last_at >= ${w.from}`
  ])
  // a payer whose successes surround the window paid in it when none of its gaps is that long
  const inside = sql`(s.first_at >= ${w.from} OR s.last_at < ${w.to} OR s.gap <= ${w.to - w.from})`
  // in the SQL text, as in the partial index's predicate: SQLite uses the index only then
  const successful = sql`p.status IN ${sql.literal(`(${SUCCESSFUL.map((s) => `'${s}'`).join(", ")})`)}`

  // the window's successful payments: aligned blocks from the rollups, the ends from the rows
  const cover = Rollups.cover(w.from, w.to)
  const payments = sql`SELECT ${
    sql.join(" + ", false)([
      Rollups.countOf(sql, scope, "ps", cover.blocks, SUCCESSFUL),
      ...cover.raw.map(([from, to]) =>
        sql`(SELECT COUNT(*) FROM payments p WHERE ${sql.and([...scoped(sql, "p", scope, { from, to }), successful])})`
      )
    ])
  } AS n`
  const ranges = sql`SELECT
      SUM(CASE WHEN ${inside} THEN 1 ELSE 0 END) AS certain,
      SUM(CASE WHEN ${inside} THEN 0 ELSE 1 END) AS doubtful
    FROM search_payers s WHERE ${overlapping}`
  const probed = sql`SELECT COUNT(*) AS n FROM search_payers s WHERE ${overlapping} AND (${inside} OR EXISTS (
      SELECT 1 FROM payments p
      WHERE p.party_id = s.party_id AND p.shop_id = s.shop_id AND p.search_payer = s.payer AND ${successful}
        AND p.search_payer IS NOT NULL AND p.created_at >= ${w.from} AND p.created_at < ${w.to}))`
  const scanned = sql`SELECT COUNT(*) AS n FROM (
      SELECT DISTINCT p.search_payer FROM payments p
      WHERE ${sql.and([...scoped(sql, "p", scope, w), successful, sql`p.search_payer IS NOT NULL`])}
    ) payers`
  const count = countOf

  return Effect.gen(function*() {
    if (count(yield* payments) <= scanUpTo) return count(yield* scanned)
    const { certain, doubtful } = split.one((yield* ranges)[0])
    if (doubtful === 0) return certain
    return count(yield* (doubtful <= probes ? probed : scanned))
  })
}
