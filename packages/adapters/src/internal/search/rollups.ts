/**
 * @internal
 * Reading and folding the rollups of migration 0010. A time range is cut into aligned blocks of
 * days, hours and quarter hours (UTC) answered by `search_rollups` plus the deltas not folded
 * yet (summed in one statement: exact at every moment), and raw pieces shorter than a quarter
 * hour answered by the rows themselves.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import type { Scope, StatsQuery, StatsRow } from "@kassa/core/ports/SearchRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { countOf as firstCount, IntColumn, reader } from "../rows.js"

/** A block's count. */
const blockCounts = reader(Schema.Struct({ t: IntColumn, n: IntColumn }), (r) => r)

/** Sums per bucket and keys. */
const bucketSums = reader(
  Schema.Struct({ segment: IntColumn, k1: Schema.String, k2: Schema.String, n: IntColumn, amount: IntColumn, fee: IntColumn }),
  (r) => r
)

/** Whether the compaction's advisory lock was taken. */
const lockTaken = reader(Schema.Struct({ locked: Schema.Boolean }), (r) => r.locked)

/** The deltas waiting to be folded: the last one's number, and how many. */
const pendingDeltas = reader(Schema.Struct({ seq: Schema.NullOr(IntColumn), n: IntColumn }), (r) => r)
import { SUCCESSFUL } from "./conditions.js"

type Sql = SqlClient.SqlClient

export const QUARTER = 900_000
export const HOUR = 3_600_000
export const DAY = 86_400_000

export type Grain = "d" | "h" | "q"
export const grainMs: Record<Grain, number> = { d: DAY, h: HOUR, q: QUARTER }

/** Aligned blocks (indices from the epoch, per grain) and raw pieces `[from, to)`. */
export interface Cover {
  readonly blocks: Record<Grain, Array<number>>
  readonly raw: Array<[number, number]>
}

/**
 * Cuts `[from, to)` at `boundaries` (ascending, inside the range) and covers each piece with the
 * largest aligned blocks that fit: no block crosses a boundary.
 */
export const cover = (from: number, to: number, boundaries: ReadonlyArray<number> = []): Cover => {
  const blocks: Record<Grain, Array<number>> = { d: [], h: [], q: [] }
  const raw: Array<[number, number]> = []
  const addRaw = (a: number, b: number) => {
    const last = raw[raw.length - 1]
    if (last !== undefined && last[1] === a) last[1] = b
    else raw.push([a, b])
  }
  const piece = (a: number, b: number) => {
    let t = a
    const head = Math.min(Math.ceil(t / QUARTER) * QUARTER, b)
    if (head > t) {
      addRaw(t, head)
      t = head
    }
    while (t % HOUR !== 0 && t + QUARTER <= b) (blocks.q.push(t / QUARTER), t += QUARTER)
    if (t % HOUR === 0) {
      while (t % DAY !== 0 && t + HOUR <= b) (blocks.h.push(t / HOUR), t += HOUR)
      if (t % DAY === 0) while (t + DAY <= b) (blocks.d.push(t / DAY), t += DAY)
      while (t + HOUR <= b) (blocks.h.push(t / HOUR), t += HOUR)
    }
    while (t + QUARTER <= b) (blocks.q.push(t / QUARTER), t += QUARTER)
    if (t < b) addRaw(t, b)
  }
  let start = from
  for (const boundary of [...boundaries, to]) {
    if (boundary > start) piece(start, boundary)
    start = Math.max(start, boundary)
  }
  return { blocks, raw }
}

/** Runs of consecutive indices in one group: `[first, end)` and the group. */
export const runs = (
  indices: ReadonlyArray<number>,
  groupOf: (index: number) => number = () => 0
): Array<[start: number, end: number, group: number]> => {
  const out: Array<[number, number, number]> = []
  for (const i of indices) {
    const last = out[out.length - 1]
    const group = groupOf(i)
    if (last !== undefined && last[1] === i && last[2] === group) last[1] = i + 1
    else out.push([i, i + 1, group])
  }
  return out
}

/** The most OR-ed ranges in one condition: more cost PostgreSQL more to plan than to run. */
const MAX_RANGES = 32

/**
 * The rollup rows of `kind` at `grain` for blocks `indices`, with the deltas of those blocks,
 * as one source `(t, k1, k2, n, amount, fee)`. Blocks in more than `MAX_RANGES` runs are read as
 * their whole span: the caller keeps the blocks it wants.
 */
const source = (
  sql: Sql,
  scope: Scope,
  kind: string,
  grain: Grain,
  indices: ReadonlyArray<number>,
  k1: string | ReadonlyArray<string> | undefined
): Statement.Fragment => {
  const scale = grainMs[grain] / QUARTER
  const r = runs(indices)
  const ranges = r.length <= MAX_RANGES ? r : [[r[0]![0], r[r.length - 1]![1]]]
  // ranges on the columns themselves (indexable); deltas count quarter hours
  const rolled = sql.or(ranges.map(([a, b]) => sql`t >= ${a} AND t < ${b}`))
  const pending = sql.or(ranges.map(([a, b]) => sql`q >= ${a * scale} AND q < ${b * scale}`))
  const scoped = sql`party_id = ${scope.partyID} AND shop_id = ${scope.shopID} AND kind = ${kind}${
    k1 === undefined ? sql`` : typeof k1 === "string" ? sql` AND k1 = ${k1}` : sql` AND k1 IN ${sql.in(k1)}`
  }`
  return sql`SELECT t, k1, k2, n, amount, fee FROM search_rollups
      WHERE ${scoped} AND grain = ${sql.literal(`'${grain}'`)} AND ${rolled}
    UNION ALL
    SELECT q / ${sql.literal(String(scale))} AS t, k1, k2, n, amount, fee FROM search_deltas WHERE ${scoped} AND ${pending}`
}

/** The rows of `kind` in a cover's blocks (optionally of some `k1`), counted: a scalar subquery. */
export const countOf = (
  sql: Sql,
  scope: Scope,
  kind: string,
  blocks: Cover["blocks"],
  k1?: string | ReadonlyArray<string>
): Statement.Fragment => {
  const parts = (["d", "h", "q"] as const).flatMap((grain) =>
    blocks[grain].length === 0 ? [] : [source(sql, scope, kind, grain, blocks[grain], k1)]
  )
  return parts.length === 0
    ? sql`0`
    : sql`(SELECT COALESCE(SUM(n), 0) FROM (${sql.join(" UNION ALL ", false)(parts)}) AS rolled)`
}

/** Rows of `kind` per block of a cover: `[start, end)` in ms with their count. */
export const perBlock = (sql: Sql, scope: Scope, kind: string, blocks: Cover["blocks"], k1?: string) =>
  Effect.forEach((["d", "h", "q"] as const).filter((g) => blocks[g].length > 0), (grain) =>
    sql`SELECT t, SUM(n) AS n FROM (${
      source(sql, scope, kind, grain, blocks[grain], k1)
    }) AS rolled GROUP BY t`.pipe(
      Effect.map((rows) => {
        const wanted = new Set(blocks[grain])
        return blockCounts.all(rows).flatMap(({ n, t }) =>
          wanted.has(t) ? [{ start: t * grainMs[grain], end: (t + 1) * grainMs[grain], n }] : []
        )
      })
    )).pipe(Effect.map((all) => all.flat()))

/**
 * Sums of `kind` per bucket and keys over a cover's blocks (each block lies in one bucket:
 * `bucket = (start - from) / bucketMs`).
 */
export const perBucketAndKeys = (
  sql: Sql,
  scope: Scope,
  kind: string,
  blocks: Cover["blocks"],
  from: number,
  bucketMs: number
) =>
  Effect.forEach((["d", "h", "q"] as const).filter((g) => blocks[g].length > 0), (grain) => {
    const length = grainMs[grain]
    // runs of consecutive blocks in one bucket
    const inBuckets = runs(blocks[grain], (index) => Math.floor((index * length - from) / bucketMs))
    const statement = inBuckets.length <= MAX_RANGES
      ? sql`SELECT (t * ${sql.literal(String(length))} - CAST(${from} AS BIGINT)) / CAST(${bucketMs} AS BIGINT) AS segment,
          k1, k2, SUM(n) AS n, SUM(amount) AS amount, SUM(fee) AS fee
          FROM (${source(sql, scope, kind, grain, blocks[grain], undefined)}) AS rolled
          GROUP BY 1, k1, k2`
      : manyRuns(sql, scope, kind, grain, inBuckets)
    return statement.pipe(
      Effect.map(bucketSums.all)
    )
  }, { concurrency: "unbounded" }).pipe(Effect.map((all) => all.flat()))

/**
 * Sums per segment and keys over many runs of blocks (`[start, end)` indices with their segment),
 * passed as arrays in a single parameter each (SQLite takes few parameters), and read run by run,
 * each an index range: PostgreSQL through a LATERAL subquery (kept apart by OFFSET 0), SQLite
 * through CROSS JOIN, which keeps the runs the outer loop (its own order scanned every run for
 * every row).
 */
const manyRuns = (
  sql: Sql,
  scope: Scope,
  kind: string,
  grain: Grain,
  runs: ReadonlyArray<readonly [number, number, number]>
) => {
  const ratio = sql.literal(String(grainMs[grain] / QUARTER))
  const scoped = (t: string) =>
    sql`${sql(t)}.party_id = ${scope.partyID} AND ${sql(t)}.shop_id = ${scope.shopID} AND ${sql(t)}.kind = ${kind}`
  // the rollups and the deltas of run `r`, as (k1, k2, n, amount, fee)
  const rolled = sql`${scoped("x")} AND x.grain = ${sql.literal(`'${grain}'`)} AND x.t >= r.a AND x.t < r.b`
  const pending = sql`${scoped("d")} AND d.q >= r.a * ${ratio} AND d.q < r.b * ${ratio}`
  return sql.onDialectOrElse({
    pg: () => {
      const array = (i: 0 | 1 | 2) => `{${runs.map((run) => run[i]).join(",")}}`
      return sql`SELECT r.segment, y.k1, y.k2, SUM(y.n) AS n, SUM(y.amount) AS amount, SUM(y.fee) AS fee
        FROM unnest(CAST(${array(0)} AS BIGINT[]), CAST(${array(1)} AS BIGINT[]), CAST(${array(2)} AS BIGINT[]))
          AS r(a, b, segment)
        CROSS JOIN LATERAL (
          SELECT x.k1, x.k2, x.n, x.amount, x.fee FROM search_rollups x WHERE ${rolled}
          UNION ALL
          SELECT d.k1, d.k2, d.n, d.amount, d.fee FROM search_deltas d WHERE ${pending}
          OFFSET 0
        ) AS y
        GROUP BY r.segment, y.k1, y.k2`
    },
    orElse: () => {
      const r = sql`(SELECT json_extract(value, '$[0]') AS a, json_extract(value, '$[1]') AS b,
        json_extract(value, '$[2]') AS segment FROM json_each(${JSON.stringify(runs)})) AS r`
      return sql`SELECT segment, k1, k2, SUM(n) AS n, SUM(amount) AS amount, SUM(fee) AS fee FROM (
          SELECT r.segment, x.k1, x.k2, x.n, x.amount, x.fee FROM ${r} CROSS JOIN search_rollups x ON ${rolled}
          UNION ALL
          SELECT r.segment, d.k1, d.k2, d.n, d.amount, d.fee FROM ${r} CROSS JOIN search_deltas d ON ${pending}
        ) AS y
        GROUP BY segment, k1, k2`
    }
  })
}

const successful = new Set<string>(SUCCESSFUL)

/**
 * Which rollup answers a statistics query, and how its rows read; `undefined` when none does
 * (the query is then answered from the payments themselves).
 */
export const planOf = (q: StatsQuery):
  | {
    readonly kind: string
    readonly read: (r: { k1: string; k2: string; n: number; amount: number; fee: number }) => Omit<StatsRow, "segment"> | undefined
  }
  | undefined =>
{
  const by = q.by.join(",")
  if (by === "" && !q.successfulOnly && !q.bankCardOnly) {
    return {
      kind: "ps",
      read: (r) => {
        const ok = successful.has(r.k1)
        return { total: r.n, successful: ok ? r.n : 0, revenue: ok ? r.amount : 0, fee: ok ? r.fee : 0 }
      }
    }
  }
  const all = (r: { n: number; amount: number; fee: number }) => ({ total: r.n, successful: r.n, revenue: r.amount, fee: r.fee })
  if (by === "currency" && q.successfulOnly && !q.bankCardOnly) {
    return { kind: "ps", read: (r) => (successful.has(r.k1) ? { currency: r.k2, ...all(r) } : undefined) }
  }
  if (by === "country,currency" && q.successfulOnly && !q.bankCardOnly) {
    return { kind: "pg", read: (r) => ({ country: r.k1 === "" ? null : r.k1, currency: r.k2, ...all(r) }) }
  }
  if (by === "paymentSystem,currency" && q.successfulOnly && q.bankCardOnly) {
    return { kind: "pm", read: (r) => ({ paymentSystem: r.k1, currency: r.k2, ...all(r) }) }
  }
  return undefined
}

/** The bucket boundaries strictly inside `[from, to)`. */
export const boundaries = (from: number, to: number, bucketMs: number): Array<number> => {
  const out: Array<number> = []
  for (let b = from + bucketMs; b < to; b += bucketMs) out.push(b)
  return out
}

/** Sums rows of equal segment and keys; drops the empty ones (rollups may hold zeros). */
export const merge = (rows: ReadonlyArray<StatsRow>): ReadonlyArray<StatsRow> => {
  const groups = new Map<string, StatsRow>()
  for (const r of rows) {
    const id = JSON.stringify([r.segment, r.currency, r.country, r.paymentSystem])
    const g = groups.get(id)
    groups.set(
      id,
      g === undefined ? r : {
        ...g,
        total: g.total + r.total,
        successful: g.successful + r.successful,
        revenue: g.revenue + r.revenue,
        fee: g.fee + r.fee
      }
    )
  }
  return [...groups.values()].filter((r) => r.total !== 0)
}

/**
 * Whether any delta waits to be folded: one read of the deltas' first row, no transaction and no
 * lock, so a start with nothing to fold pays for nothing more.
 */
export const anyPending = (sql: Sql): Effect.Effect<boolean, SqlError> =>
  Effect.map(sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM search_deltas LIMIT 1) AS d`, (rows) => firstCount(rows) > 0)

/**
 * Folds up to `batch` deltas into the rollups at every grain; answers how many it folded. On
 * PostgreSQL one compactor at a time (an advisory lock), deleting exactly the deltas it adds;
 * on SQLite the single writer makes the statements atomic.
 */
export const compact = (sql: Sql, batch: number): Effect.Effect<number, SqlError> => {
  const fold = (from: Statement.Fragment) =>
    sql.join(" UNION ALL ", false)(
      (["d", "h", "q"] as const).map((grain) =>
        sql`SELECT party_id, shop_id, kind, ${sql.literal(`'${grain}'`)} AS grain, q / ${sql.literal(String(grainMs[grain] / QUARTER))} AS t,
            k1, k2, SUM(n) AS n, SUM(amount) AS amount, SUM(fee) AS fee
            FROM ${from} GROUP BY party_id, shop_id, kind, q / ${sql.literal(String(grainMs[grain] / QUARTER))}, k1, k2`
      )
    )
  const upsert = sql`ON CONFLICT (party_id, shop_id, kind, grain, t, k1, k2) DO UPDATE SET
    n = search_rollups.n + excluded.n,
    amount = search_rollups.amount + excluded.amount,
    fee = search_rollups.fee + excluded.fee`
  return sql.withTransaction(
    sql.onDialectOrElse({
      pg: () =>
        Effect.gen(function*() {
          const [locked] = lockTaken.all(yield* sql`SELECT pg_try_advisory_xact_lock(7262021) AS locked`)
          if (locked !== true) return 0
          const folded = yield* sql`
            WITH moved AS (
              DELETE FROM search_deltas WHERE seq IN (SELECT seq FROM search_deltas ORDER BY seq LIMIT ${batch})
              RETURNING party_id, shop_id, kind, q, k1, k2, n, amount, fee
            ), summed AS (
              INSERT INTO search_rollups (party_id, shop_id, kind, grain, t, k1, k2, n, amount, fee)
              SELECT * FROM (${fold(sql`moved`)}) AS folded ORDER BY party_id, shop_id, kind, grain, t, k1, k2
              ${upsert}
            )
            SELECT COUNT(*) AS n FROM moved`
          return firstCount(folded)
        }),
      orElse: () =>
        Effect.gen(function*() {
          const [last] = pendingDeltas.all(yield* sql`
            SELECT MAX(seq) AS seq, COUNT(*) AS n FROM (SELECT seq FROM search_deltas ORDER BY seq LIMIT ${batch}) AS next`)
          if (last === undefined || last.seq === null || last.n === 0) return 0
          const { n, seq: upTo } = last
          // SQLite: an upsert's SELECT needs a WHERE clause
          yield* sql`INSERT INTO search_rollups (party_id, shop_id, kind, grain, t, k1, k2, n, amount, fee)
            SELECT * FROM (${fold(sql`(SELECT * FROM search_deltas WHERE seq <= ${upTo}) AS pending`)}) AS folded WHERE true
            ${upsert}`
          yield* sql`DELETE FROM search_deltas WHERE seq <= ${upTo}`
          return n
        })
    })
  )
}
