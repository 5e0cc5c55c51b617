/**
 * `Timers` on `SqlClient`, and the scheduler fiber that fires them.
 *
 * A due timer is first claimed (locked for a lease, so that several Kassa processes on one
 * database never run it at once), then its handler runs in one transaction with the removal of
 * the timer. A handler that fails leaves the timer to be retried when the lease ends.
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
import * as Schema from "effect/Schema"
import { IntColumn, JsonColumn, reader, toJson } from "./internal/rows.js"
import * as RealTime from "./internal/realTime.js"
import { change, insert } from "./sql/driver/writes.js"
import * as Statements from "./sql/driver/Statements.js"
import * as Workers from "./Workers.js"

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
  /** How often the scheduler looks for due timers. */
  readonly pollInterval: Duration.DurationInput
  /** How long a claimed timer stays locked to its process. */
  readonly lease: Duration.DurationInput
}

/**
 * Provides `Timers` and `Scheduler`; the scheduler fiber polls for due timers while the layer
 * lives.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: SchedulerOptions = { pollInterval: "250 millis", lease: "1 minute" }) =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const handlers = new Map<string, (timer: Timer) => Effect.Effect<void>>()
      const leaseMs = Duration.toMillis(options.lease)

      const timers: Timers["Type"] = {
        schedule: (t) =>
          insert(sql, "timers", sql`INSERT INTO timers ${
            sql.insert({ kind: t.kind, subject: t.subject, dueAt: t.dueAt.getTime(), payload: toJson(t.payload ?? null) })
          } ON CONFLICT (kind, subject) DO UPDATE SET due_at = excluded.due_at, payload = excluded.payload,
            attempts = 0, locked_until = NULL`),
        cancel: (kind, subject) =>
          change(sql, "timers", sql`DELETE FROM timers WHERE kind = ${kind} AND subject = ${subject}`),
        cancelAll: (timers) =>
          timers.length === 0 ? Effect.void : change(sql, "timers", sql`DELETE FROM timers WHERE (kind, subject) IN (VALUES ${
            sql.csv(timers.map((t) => sql`(${t.kind}, ${t.subject})`))
          })`),
        register: (kind, handler) => Effect.sync(() => void handlers.set(kind, handler))
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
          AND ${sql.in("kind", kinds)} ORDER BY due_at LIMIT 200`.pipe(Effect.map(dueTimers.all), Effect.orDie)
        let fired = 0
        for (const row of due) if (yield* fireOne(row, now)) fired++
        return fired
      }))

      // The pauses between passes run on the real clock, while each pass reads the time from
      // Effect's clock: under a TestClock that jumps days ahead the scheduler does not wake up
      // once per poll interval of the jump.
      const pause = RealTime.sleep(options.pollInterval)
      yield* runDue.pipe(
        Effect.catchAllCause((cause) => Effect.logError("timer scheduler pass failed", cause)),
        Effect.zipRight(pause),
        Effect.forever,
        Statements.withWork("timers"),
        Workers.forkScoped("timers")
      )

      return Context.make(Timers, timers).pipe(Context.add(Scheduler, { runDue }))
    })
  )
