/**
 * Counts the SQL statements Kassa sends, by the work they are for: the HTTP operation whose
 * request issued them (background work a request starts counts as the request's), a timer
 * (`timer:<kind>`), the timer scheduler's passes (`timers`), the webhook dispatcher (`webhooks`), the
 * `pg_notify` that wakes other processes (`signals`), the search rollups' compactor (`search`) or the
 * reads of what is kept for a time, a shop with its party and contract and an API key (`cache`): a
 * request that finds such an entry expired pays a read the others do not.
 * Transactions' `BEGIN` and `COMMIT` are not statements here.
 *
 * Off by default (it costs a little per statement): the server counts with
 * `KASSA_COUNT_STATEMENTS=true` and shows the counts at `/metrics`.
 *
 * @since 0.1.0
 */
import * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"

/**
 * The work the current fiber's statements are for.
 *
 * @since 0.1.0 @category fiber refs
 */
export const currentWork: FiberRef.FiberRef<string> = FiberRef.unsafeMake("other")

/**
 * Runs `effect` as `work`.
 *
 * @since 0.1.0 @category combinators
 */
export const withWork = (work: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, currentWork, work)

/** @since 0.1.0 @category tags */
export class StatementCounts extends Context.Tag("kassa/StatementCounts")<StatementCounts, {
  /** Statements sent so far, by work. */
  readonly snapshot: () => ReadonlyMap<string, number>
}>() {}

/**
 * Counts every statement run under this layer.
 *
 * @since 0.1.0 @category layers
 */
export const layer: Layer.Layer<StatementCounts> = Layer.unwrapEffect(Effect.sync(() => {
  const counts = new Map<string, number>()
  return Layer.merge(
    Layer.succeed(StatementCounts, { snapshot: () => new Map(counts) }),
    Statement.setTransformer((statement, _sql, refs) => {
      const work = FiberRefs.getOrDefault(refs, currentWork)
      counts.set(work, (counts.get(work) ?? 0) + 1)
      return Effect.succeed(statement)
    })
  )
}))

/**
 * The counts in Prometheus' text format.
 *
 * @since 0.1.0
 */
export const render = (counts: ReadonlyMap<string, number>): string => {
  const lines = [
    "# HELP kassa_sql_statements_total SQL statements sent, by the work they were for (BEGIN and COMMIT not counted).",
    "# TYPE kassa_sql_statements_total counter"
  ]
  for (const [work, n] of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`kassa_sql_statements_total{work="${work.replace(/\\/g, "\\\\").replace(/"/g, "\\\"")}"} ${n}`)
  }
  return lines.join("\n") + "\n"
}
