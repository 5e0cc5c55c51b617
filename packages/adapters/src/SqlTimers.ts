/**
 * `Timers` on `SqlClient`, and the scheduler fiber that fires them.
 *
 * A due timer is first claimed (locked for a lease, so that several Kassa processes on one
 * database never run it at once), then its handler runs in one transaction with the removal of
 * the timer. A handler that fails leaves the timer to be retried when the lease ends.
 *
 * The scheduler fiber does not poll: after a pass it sleeps until the earliest due time (or lease
 * end) of the stored timers, woken earlier when this process sets a timer due before that (the
 * `timers` signal, sent once the setting transaction commits). A slow safety sweep
 * (`pollInterval`) picks up what no signal tells of: timers set by a process that has gone.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type Timer, Timers } from "@kassa/core/ports/Timers"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { IntColumn, JsonColumn, reader, toJson } from "./internal/rows.js"
import * as RealTime from "./internal/realTime.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import * as Signals from "./sql/driver/Signals.js"
import * as Statements from "./sql/driver/Statements.js"
import { changing, inserting, ofRows, writeAll } from "./sql/driver/writes.js"
import * as Workers from "./Workers.js"

/** A timer's row, as the held writes name it. */
const rowKey = (t: { readonly kind: string; readonly subject: string }) => `${t.kind}\u0000${t.subject}`

/** A due `timers` row; `dueAt` stays the stored number, which the claim and the removal match. */
const dueTimers = reader(
  Schema.Struct({ kind: Schema.String, subject: Schema.String, dueAt: IntColumn, payload: JsonColumn(Schema.Unknown) }),
  (r) => r
)

/**
 * Runs the timers that are due now (by Effect's clock); answers how many fired. Passes take turns
 * with the scheduler fiber's, so once `runDue` answers, every timer due now has fired (by this
 * pass or the one before it), its handler committed: a test under `TestClock` moves the clock
 * and runs what came due without waiting for the next poll.
 *
 * @since 0.1.0 @category tags
 */
export class Scheduler extends Context.Tag("kassa/Scheduler")<Scheduler, {
  readonly runDue: Effect.Effect<number>
}>() {}

/** @since 0.1.0 @category models */
export interface SchedulerOptions {
  /**
   * The safety sweep: the longest the scheduler sleeps without looking at the stored timers
   * (default 30 s). Timers this process sets wake it by themselves.
   */
  readonly pollInterval?: Duration.DurationInput | undefined
  /** How long a claimed timer stays locked to its process (default 1 min). */
  readonly lease?: Duration.DurationInput | undefined
  /** Whether the scheduler fiber runs (default true). Without it, call `Scheduler.runDue`. */
  readonly run?: boolean | undefined
}

/**
 * Provides `Timers` and `Scheduler`; the scheduler fiber fires due timers while the layer lives.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: SchedulerOptions = {}) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { signals } = yield* SqlDriver
      // The registered kinds, as an expression no index serves, so that the planner reads the
      // timers by `timers_due`, not every timer of the kinds by the primary key (SQLite's choice
      // for `kind IN (…)` without statistics: a pass then read all the store's timers, 30 ms for
      // 50,000 invoices' due dates).
      const ofKinds = (kinds: ReadonlyArray<string>) => sql`(kind || '') IN ${sql.in(kinds)}`
      const handlers = new Map<string, (timer: Timer) => Effect.Effect<void>>()
      const leaseMs = Duration.toMillis(options.lease ?? "1 minute")
      const sweepMs = Duration.toMillis(options.pollInterval ?? "30 seconds")
      // Wakes the scheduler fiber: a timer was set due before the time it sleeps until, or a
      // handler was registered (timers of its kind may be due already).
      const wake = yield* Queue.sliding<void>(1)
      let sleepsUntil = Infinity
      const tell = (dueAt: number | undefined) => {
        if (dueAt === undefined || dueAt < sleepsUntil) {
          sleepsUntil = Math.min(sleepsUntil, dueAt ?? -Infinity)
          Queue.unsafeOffer(wake, undefined)
        }
      }

      /**
       * Sets the timers in one statement (one row each: of two for one row the later wins, and a
       * statement upserts a row once). Each write tells its rows: a transaction's writes of other
       * timers share one statement.
       */
      const scheduleAll = (ts: ReadonlyArray<Timer>) => {
        const rows = [...new Map(ts.map((t) => [rowKey(t), t] as const)).values()]
        if (rows.length === 0) return Effect.void
        return writeAll(sql, [ofRows(
          inserting(
            "timers",
            sql`INSERT INTO timers ${
              sql.insert(rows.map((t) => ({ kind: t.kind, subject: t.subject, dueAt: t.dueAt.getTime(), payload: toJson(t.payload ?? null) })))
            } ON CONFLICT (kind, subject) DO UPDATE SET due_at = excluded.due_at, payload = excluded.payload,
            attempts = 0, locked_until = NULL`
          ),
          rows.map(rowKey)
        )]).pipe(Effect.zipRight(signals.notify("timers", Math.min(...rows.map((t) => t.dueAt.getTime())))))
      }

      const timers: Timers["Type"] = {
        schedule: (t) => scheduleAll([t]),
        scheduleAll,
        cancel: (kind, subject) =>
          writeAll(sql, [ofRows(
            changing("timers", sql`DELETE FROM timers WHERE kind = ${kind} AND subject = ${subject}`),
            [rowKey({ kind, subject })]
          )]),
        cancelAll: (timers) =>
          timers.length === 0 ? Effect.void : writeAll(sql, [ofRows(
            changing(
              "timers",
              sql`DELETE FROM timers WHERE (kind, subject) IN (VALUES ${sql.csv(timers.map((t) => sql`(${t.kind}, ${t.subject})`))})`
            ),
            timers.map(rowKey)
          )]),
        register: (kind, handler) => Effect.sync(() => {
          handlers.set(kind, handler)
          tell(undefined)
        })
      }

      const fireOne = (row: ReturnType<typeof dueTimers.one>, now: number) =>
        Effect.gen(function*() {
          const handler = handlers.get(row.kind)
          if (handler === undefined) return false
          const claimed = yield* sql`UPDATE timers SET locked_until = ${now + leaseMs}, attempts = attempts + 1
            WHERE kind = ${row.kind} AND subject = ${row.subject} AND due_at = ${row.dueAt}
            AND (locked_until IS NULL OR locked_until <= ${now}) RETURNING kind`
          if (claimed.length === 0) return false
          const timer: Timer = { kind: row.kind, subject: row.subject, dueAt: new Date(row.dueAt), payload: row.payload }
          yield* handler(timer).pipe(
            Effect.zipRight(
              sql`DELETE FROM timers WHERE kind = ${row.kind} AND subject = ${row.subject} AND due_at = ${row.dueAt}`
            ),
            sql.withTransaction,
            Signals.committing,
            Statements.withWork(`timer:${row.kind}`)
          )
          return true
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logWarning("timer handler failed; it will be retried", cause).pipe(
              Effect.annotateLogs({ kind: row.kind, subject: row.subject }),
              Effect.as(false)
            )
          )
        )

      const pass = yield* Effect.makeSemaphore(1)
      const runDue = pass.withPermits(1)(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const kinds = [...handlers.keys()]
        if (kinds.length === 0) return 0
        const due = yield* sql`SELECT kind, subject, due_at, payload FROM timers
          WHERE due_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
          AND ${ofKinds(kinds)} ORDER BY due_at LIMIT 200`.pipe(Effect.map(dueTimers.all), Effect.orDie)
        let fired = 0
        for (const row of due) if (yield* fireOne(row, now)) fired++
        return fired
      }))

      /**
       * When the next stored timer of a registered kind is due, or its lease ends; `horizon` when
       * none is before it (the scheduler sleeps no longer than a sweep anyway). Only the timers due
       * before the horizon are read, through `timers_due`: a store holding many timers due later
       * (an invoice's due date) costs a pass, and a start, nothing more.
       */
      const nextDue = (horizon: number) => Effect.suspend(() => {
        const kinds = [...handlers.keys()]
        if (kinds.length === 0) return Effect.succeed(Infinity)
        return sql<{ readonly next: number | string | null }>`SELECT MIN(CASE WHEN locked_until > due_at THEN locked_until
          ELSE due_at END) AS next FROM timers WHERE due_at < ${horizon} AND ${ofKinds(kinds)}`.pipe(
          Effect.map((rows) => rows[0]?.next == null ? horizon : Math.min(horizon, Number(rows[0].next))),
          Effect.orDie
        )
      })

      // The sleeps run on the real clock, while each pass reads the time from Effect's clock:
      // under a TestClock that jumps days ahead the scheduler does not wake up once per sweep of
      // the jump.
      const cycle = Effect.gen(function*() {
        sleepsUntil = Infinity
        yield* runDue
        const now = yield* Clock.currentTimeMillis
        const next = Math.min(yield* nextDue(now + sweepMs), sleepsUntil)
        sleepsUntil = next
        const pause = Math.max(0, Math.min(next - now, sweepMs))
        yield* Effect.raceFirst(Queue.take(wake), RealTime.sleep(Duration.millis(pause)))
      })
      if (options.run !== false) {
        yield* signals.listen("timers", tell)
        yield* cycle.pipe(
          Effect.catchAllCause((cause) =>
            Effect.logError("timer scheduler pass failed", cause).pipe(Effect.zipRight(RealTime.sleep(Duration.seconds(1))))
          ),
          Effect.forever,
          Statements.withWork("timers"),
          Workers.forkScoped("timers")
        )
      }

      return Context.make(Timers, timers).pipe(Context.add(Scheduler, { runDue }))
    })
  )
