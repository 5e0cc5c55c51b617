/**
 * `SearchRepository` on `SqlClient` (one SQL text for PostgreSQL and SQLite, over the columns and
 * indexes of migration `0010_search`), and `SearchTokens`: HMAC-SHA256 with a secret the layer
 * is given, or one kept in `<dataDir>/search.key`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import {
  type InvoiceConditions,
  type Page,
  type PaymentConditions,
  type Query,
  type RefundConditions,
  SearchRepository,
  type StatsKey,
  type StatsQuery,
  type StatsRow
} from "@kassa/core/ports/SearchRepository"
import { SearchTokens } from "@kassa/core/ports/SearchTokens"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Where from "./internal/search/conditions.js"
import * as Payers from "./internal/search/payers.js"
import * as Rollups from "./internal/search/rollups.js"
import * as Rows from "./internal/search/rows.js"
import { countOf, IntColumn, reader } from "./internal/rows.js"
import * as RealTime from "./internal/realTime.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import { withWork } from "./sql/driver/Statements.js"

/** The migration that adds the search columns and indexes (key `0010_search`). @since 0.1.0 */
export { default as migration } from "./internal/migrations/0010_search.js"

/** @since 0.1.0 @category models */
export interface SearchOptions {
  /** The key of the continuation tokens' codes (at least 16 bytes). */
  readonly secret: Uint8Array | string
  /**
   * The unique payers statistic: successful payments in a window up to which it counts them
   * directly (default 50,000), and payers it looks up one by one before it counts the window's
   * payments after all (default 2,000).
   */
  readonly payers?: Payers.Options | undefined
}

/** HMAC-SHA256 codes under `secret`. @since 0.1.0 */
export const tokens = (secret: Uint8Array | string): SearchTokens["Type"] => {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret)
  if (key.length < 16) throw new Error("The search token secret must be at least 16 bytes")
  const sign = (data: string) => createHmac("sha256", key).update(data, "utf8").digest("base64url")
  return {
    sign,
    verify: (data, code) => {
      const expected = Buffer.from(sign(data), "utf8")
      const given = Buffer.from(code, "utf8")
      return expected.length === given.length && timingSafeEqual(expected, given)
    }
  }
}

const statsColumns: Record<StatsKey, string> = {
  currency: "currency",
  country: "search_country",
  paymentSystem: "search_payment_system"
}

/** The three searches: table, alias, rollup kind, position columns. */
interface Table<C> {
  readonly name: string
  readonly alias: string
  readonly kind: string
  readonly ids: ReadonlyArray<string>
  readonly where: (sql: SqlClient.SqlClient, q: Query<C>) => Array<Statement.Fragment>
  /** The one condition the rollups can answer besides the shop and window: the status. */
  readonly status: (c: C) => string | undefined
  readonly onlyStatus: (c: C) => boolean
}

const onlyStatus = (c: object) => Object.entries(c).every(([k, v]) => v === undefined || k === "status")

const invoices: Table<InvoiceConditions> = {
  name: "invoices",
  alias: "i",
  kind: "i",
  ids: ["id"],
  where: Where.invoice,
  status: (c) => c.status,
  onlyStatus
}
const payments: Table<PaymentConditions> = {
  name: "payments",
  alias: "p",
  kind: "ps",
  ids: ["invoice_id", "id"],
  where: Where.payments,
  status: (c) => c.status,
  onlyStatus
}
const refunds: Table<RefundConditions> = {
  name: "refunds",
  alias: "r",
  kind: "r",
  ids: ["invoice_id", "payment_id", "id"],
  where: Where.refund,
  status: (c) => c.status,
  onlyStatus
}

/** A statistics row; the keys are there when grouped by (a country or payment system may be NULL). */
const statsRows = reader(
  Schema.Struct({
    segment: IntColumn,
    currency: Schema.optional(Schema.String),
    country: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    paymentSystem: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    total: IntColumn,
    successful: IntColumn,
    revenue: Schema.optionalWith(IntColumn, { nullable: true, default: () => 0 }),
    fee: Schema.optionalWith(IntColumn, { nullable: true, default: () => 0 })
  }),
  (r) => r
)

/** Offsets from which a page is sought through the rollups' counts rather than by skipping rows. */
const SEEK_FROM = 2_000

/** How many deltas one compaction folds. */
const BATCH = 20_000

/** The repository on the current `SqlClient`. @since 0.1.0 */
export const make = (options: Pick<SearchOptions, "payers"> = {}) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const isSuccessful = sql`p.status IN ${sql.in(Where.SUCCESSFUL)}`

  const plainCount = <C>(t: Table<C>, q: Query<C>, w: Query<C>["window"]) =>
    sql`(SELECT COUNT(*) FROM ${sql(t.name)} ${sql(t.alias)} WHERE ${sql.and(t.where(sql, { ...q, window: w }))})`

  const count = <C>(t: Table<C>, q: Query<C>) => {
    const cover = Rollups.cover(q.window.from, q.window.to)
    const statement = t.onlyStatus(q.conditions)
      // aligned days, hours and quarter hours from the rollups, the pieces at the ends from the rows
      ? sql`SELECT ${
        sql.join(" + ", false)([
          Rollups.countOf(sql, q.scope, t.kind, cover.blocks, t.status(q.conditions)),
          ...cover.raw.map(([from, to]) => plainCount(t, q, { from, to }))
        ])
      } AS n`
      : sql`SELECT ${plainCount(t, q, q.window)} AS n`
    return statement.pipe(Effect.map(countOf), Effect.orDie)
  }

  /** A page: keyset (`after`) or offset; deep offsets skip whole blocks by their counts. */
  const page = <C, R>(t: Table<C>, q: Query<C>, p: Page, decode: (row: unknown) => R) =>
    Effect.gen(function*() {
      let window = q.window
      let offset = p.offset
      if (offset >= SEEK_FROM && Option.isNone(p.after) && t.onlyStatus(q.conditions)) {
        // the window's blocks and raw pieces, newest first, with their counts
        const cover = Rollups.cover(q.window.from, q.window.to)
        const blocks = yield* Rollups.perBlock(sql, q.scope, t.kind, cover.blocks, t.status(q.conditions))
        const raw = yield* Effect.forEach(cover.raw, ([from, to]) =>
          Effect.map(sql`SELECT ${plainCount(t, q, { from, to })} AS n`, (rows) => ({ start: from, end: to, n: countOf(rows) })))
        let skipped = 0
        for (const unit of [...blocks, ...raw].sort((a, b) => b.start - a.start)) {
          if (skipped + unit.n > offset) break
          skipped += unit.n
          window = { from: q.window.from, to: unit.start }
        }
        offset -= skipped
      }
      const query = { ...q, window }
      const where = sql.and([...t.where(sql, query), ...Where.after(sql, t.alias, t.ids, p.after)])
      const order = Where.order(sql, t.alias, t.ids)
      const rows = offset === 0
        ? yield* sql`SELECT ${sql(t.alias)}.* FROM ${sql(t.name)} ${sql(t.alias)} WHERE ${where}
            ORDER BY ${order} LIMIT ${p.limit}`
        // skip rows by their keys alone (an index-only scan), then read the page's rows
        : yield* sql`SELECT o.* FROM ${sql(t.name)} o JOIN (
              SELECT ${sql.csv(["created_at", ...t.ids].map((c) => sql`${sql(t.alias)}.${sql(c)}`))}
              FROM ${sql(t.name)} ${sql(t.alias)} WHERE ${where} ORDER BY ${order} LIMIT ${p.limit} OFFSET ${offset}
            ) k ON ${sql.and(t.ids.map((c) => sql`o.${sql(c)} = k.${sql(c)}`))}
            ORDER BY ${Where.order(sql, "k", t.ids)}`
      return rows.map(decode)
    }).pipe(Effect.orDie)

  /**
   * Statistics from the payments themselves, in `ranges` of the window (all of it when absent).
   * Many ranges go in as a VALUES list (on PostgreSQL joined LATERAL, without JIT: its estimates
   * for such joins are far off); a few as OR-ed conditions.
   */
  const raw = (q: StatsQuery, ranges?: ReadonlyArray<readonly [number, number]>) => {
    const keys = q.by.map((key) => sql`p.${sql(statsColumns[key])} AS ${sql(key)}`)
    const filters = [
      ...(q.successfulOnly ? [isSuccessful] : []),
      ...(q.bankCardOnly ? [sql`p.search_method = 'PaymentToolDetailsBankCard'`] : [])
    ]
    const many = ranges !== undefined && ranges.length > 8
    const values = many
      ? sql`(VALUES ${sql.csv(ranges!.map(([a, b]) => sql`(CAST(${a} AS BIGINT), CAST(${b} AS BIGINT))`))}) AS r`
      : sql``
    const scoped = Where.scoped(sql, "p", q.scope, q.window)
    const from = !many
      ? sql`payments p WHERE ${
        sql.and([
          ...scoped,
          ...(ranges === undefined ? [] : [sql.or(ranges.map(([a, b]) => sql`p.created_at >= ${a} AND p.created_at < ${b}`))]),
          ...filters
        ])
      }`
      : sql.onDialectOrElse({
        pg: () =>
          // OFFSET 0 keeps the subquery LATERAL (one index range scan per range), never a hash join
          sql`${values} CROSS JOIN LATERAL (SELECT ${
            sql.csv(["created_at", "status", "amount", "fee", "currency", "search_country", "search_payment_system", "search_method"]
              .map((c) => sql`p.${sql(c)}`))
          } FROM payments p WHERE ${
            sql.and([...scoped, sql`p.created_at >= r.column1 AND p.created_at < r.column2`, ...filters])
          } OFFSET 0) AS p`,
        orElse: () =>
          sql`${values} JOIN payments p ON p.created_at >= r.column1 AND p.created_at < r.column2 WHERE ${
            sql.and([...scoped, ...filters])
          }`
      })
    const groupBy = q.by.map((_, i) => sql.literal(String(i + 2)))
    // integer division on both dialects (SQLite binds JavaScript numbers as REAL)
    const statement = sql`SELECT (p.created_at - CAST(${q.window.from} AS BIGINT)) / CAST(${q.bucketMs} AS BIGINT) AS segment,
        ${sql.csv([...keys, sql.literal("COUNT(*) AS total")])},
        SUM(CASE WHEN ${isSuccessful} THEN 1 ELSE 0 END) AS successful,
        CAST(SUM(CASE WHEN ${isSuccessful} THEN p.amount ELSE 0 END) AS BIGINT) AS revenue,
        CAST(SUM(CASE WHEN ${isSuccessful} THEN p.fee ELSE 0 END) AS BIGINT) AS fee
      FROM ${from}
      GROUP BY ${sql.csv([sql.literal("1"), ...groupBy])}`
    return statement.pipe(
      Effect.map((rows) =>
        statsRows.all(rows).map(({ country, currency, paymentSystem, ...r }): StatsRow => ({
          ...r,
          ...(q.by.includes("currency") ? { currency } : {}),
          ...(q.by.includes("country") ? { country } : {}),
          ...(q.by.includes("paymentSystem") ? { paymentSystem } : {})
        }))
      )
    )
  }

  const repository: SearchRepository["Type"] = {
    invoices: (q, p) => page(invoices, q, p, Rows.invoice),
    countInvoices: (q) => count(invoices, q),
    payments: (q, p) => page(payments, q, p, Rows.payment),
    countPayments: (q) => count(payments, q),
    refunds: (q, p) => page(refunds, q, p, Rows.refund),
    countRefunds: (q) => count(refunds, q),
    paymentStats: (q) =>
      Effect.gen(function*() {
        const plan = Rollups.planOf(q)
        if (plan === undefined) return Rollups.merge(yield* raw(q))
        const cover = Rollups.cover(q.window.from, q.window.to, Rollups.boundaries(q.window.from, q.window.to, q.bucketMs))
        const [rolled, rest] = yield* Effect.all([
          Rollups.perBucketAndKeys(sql, q.scope, plan.kind, cover.blocks, q.window.from, q.bucketMs),
          cover.raw.length === 0 ? Effect.succeed([]) : raw(q, cover.raw)
        ], { concurrency: "unbounded" })
        const fromRollups = rolled.flatMap((r) => {
          const read = plan.read(r)
          return read === undefined ? [] : [{ segment: r.segment, ...read }]
        })
        return Rollups.merge([...fromRollups, ...rest])
      }).pipe(Effect.orDie),
    uniquePayers: (scope, w) => Payers.unique(sql, scope, w, options.payers).pipe(Effect.orDie)
  }
  return repository
})

/**
 * Folds the deltas of migration 0010 into its rollups until none is left; answers how many it
 * folded. Readers are exact either way; folding keeps them fast. The layers run it a second after
 * events were appended.
 *
 * @since 0.1.0
 */
export const compact: Effect.Effect<number, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  let total = 0
  for (;;) {
    const n = yield* Rollups.compact(sql, BATCH)
    total += n
    if (n < BATCH) return total
  }
})

// Deltas come with the writes that append events: the compactor sleeps until its process appends
// events (the driver's `appended` signal), lets a second's worth gather, and folds them; an idle
// Kassa issues no statements for it. At start it folds only when a delta waits (one read, no
// transaction or lock: a start usually has none). Without the driver (an embedder's own client)
// it folds every second. Its statements count as the work `search`.
const compactor = Layer.scopedDiscard(
  Effect.gen(function*() {
    const driver = yield* Effect.serviceOption(SqlDriver)
    const appended = yield* Queue.sliding<void>(1)
    if (Option.isSome(driver)) yield* driver.value.signals.listen("appended", () => void Queue.unsafeOffer(appended, undefined))
    const wait = Option.isSome(driver) ? Queue.take(appended) : Effect.void
    const logged = <A>(effect: Effect.Effect<A, SqlError, SqlClient.SqlClient>) =>
      Effect.catchAllCause(effect, (cause) => Effect.logWarning("Search rollups: compaction failed", cause))
    const first = SqlClient.SqlClient.pipe(
      Effect.flatMap(Rollups.anyPending),
      Effect.flatMap((pending) => pending ? compact : Effect.void)
    )
    yield* Effect.forkScoped(
      logged(first).pipe(
        Effect.zipRight(Effect.forever(wait.pipe(Effect.zipRight(RealTime.sleep("1 second")), Effect.zipRight(logged(compact))))),
        withWork("search")
      )
    )
  })
)

/**
 * The repository and the token codes under a given secret; folds the rollups' deltas (a second
 * after events were appended) while it lives.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: SearchOptions): Layer.Layer<SearchRepository | SearchTokens, never, SqlClient.SqlClient> =>
  Layer.mergeAll(
    Layer.effect(SearchRepository, make(options)),
    Layer.sync(SearchTokens, () => tokens(options.secret)),
    compactor
  )

/**
 * The secret kept in `<dataDir>/search.key` (32 random bytes, base64, mode 0600), generated
 * when missing; concurrent first starts agree on one file.
 *
 * @since 0.1.0
 */
export const loadSecret = (dataDir: string): Buffer => {
  const file = path.join(dataDir, "search.key")
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  if (!fs.existsSync(file)) {
    // Written aside, then hard-linked into place: the link fails when another process got there
    // first, and nobody ever reads a half-written key.
    const tmp = path.join(dataDir, `.search.key.${process.pid}.${randomBytes(6).toString("hex")}`)
    fs.writeFileSync(tmp, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600, flag: "wx" })
    try {
      fs.linkSync(tmp, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    } finally {
      fs.rmSync(tmp, { force: true })
    }
  }
  const secret = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64")
  if (secret.length < 16) throw new Error(`${file}: expected at least 16 bytes of base64`)
  return secret
}

/**
 * `layer` with the secret of `<dataDir>/search.key`.
 *
 * @since 0.1.0 @category layers
 */
export const layerFromDataDir = (dataDir: string): Layer.Layer<SearchRepository | SearchTokens, never, SqlClient.SqlClient> =>
  Layer.unwrapEffect(Effect.sync(() => layer({ secret: loadSecret(dataDir) })))
