import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { RandomIds } from "@kassa/adapters"
import { Timers } from "@kassa/core/ports/Timers"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as GroupCommit from "../src/sql/driver/groupCommit.js"
import * as Reserved from "../src/sql/driver/reserved.js"
import * as SqliteClient from "../src/sql/driver/sqliteClient.js"
import { insert, inserting, writeAll } from "../src/sql/driver/writes.js"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import { FlagUpdates, Forks, Steps } from "./support/Supervisors.js"

const TIMER = "group.test"

const schedule = (subject: string) =>
  Effect.flatMap(Timers, (timers) => timers.schedule({ kind: TIMER, subject, dueAt: new Date(4_000_000_000_000), payload: null }))

const scheduled = (subjects: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ subject: string }>`SELECT subject FROM timers WHERE kind = ${TIMER} AND ${sql.in("subject", subjects)}`).pipe(
    Effect.map((rows) => rows.map((r) => r.subject).sort())
  )

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Concurrent transactions [${dialect}]`, (it) => {
    it.effect("each keeps its own outcome: a failed one leaves nothing, the others everything, a rolled-back nested one only its own part", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const run = RandomIds.make()
        const subject = (i: number, part = "") => `${run}-${i}${part}`
        const unit = (i: number) =>
          tx.withTransaction(Effect.gen(function*() {
            yield* schedule(subject(i))
            if (i % 4 === 1) return yield* Effect.fail(`unit ${i} failed`)
            if (i === 6) return yield* Effect.die(`unit ${i} died`)
            if (i === 8) {
              const inner = yield* Effect.exit(tx.withTransaction(Effect.zipRight(schedule(subject(i, "-inner")), Effect.fail("inner failed"))))
              assert.isTrue(Exit.isFailure(inner))
              yield* schedule(subject(i, "-after"))
            }
            return i
          }))
        const exits = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) => Effect.exit(unit(i)), { concurrency: "unbounded" })
        exits.forEach((exit, i) => assert.strictEqual(Exit.isSuccess(exit), i % 4 !== 1 && i !== 6, `unit ${i}: ${exit}`))
        const kept = Array.from({ length: 12 }, (_, i) => i).filter((i) => i % 4 !== 1 && i !== 6).map((i) => subject(i))
        const all = [...Array.from({ length: 12 }, (_, i) => subject(i)), subject(8, "-inner"), subject(8, "-after")]
        assert.deepStrictEqual(yield* scheduled(all), [...kept, subject(8, "-after")].sort())
      }))

    it.effect("an interrupted transaction leaves nothing, and the next one commits", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const run = RandomIds.make()
        const wrote = yield* Deferred.make<void>()
        const stuck = yield* Effect.fork(tx.withTransaction(Effect.gen(function*() {
          yield* schedule(`${run}-stuck`)
          yield* Deferred.succeed(wrote, undefined)
          return yield* Effect.never
        })))
        yield* Deferred.await(wrote)
        const waiting = yield* Effect.fork(tx.withTransaction(schedule(`${run}-next`)))
        yield* Fiber.interrupt(stuck)
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(waiting)))
        assert.deepStrictEqual(yield* scheduled([`${run}-stuck`, `${run}-next`]), [`${run}-next`])
      }))
  })
}

/**
 * An SQLite client whose reserved connection records (and can fail) the statements sent to it raw:
 * reserved by hand as the driver's client tells (`byHand`), or with its `reserve` in a scope, as an
 * embedder's client is.
 */
const recorded = (byHand: boolean) => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS t (x INTEGER NOT NULL)`
  yield* sql`DELETE FROM t`
  const log: Array<string> = []
  const failing = { commits: 0 }
  const record = (conn: SqlConnection.Connection): SqlConnection.Connection => ({
    ...conn,
    executeRaw: (text, params) => {
      log.push(text)
      return text === "COMMIT" && failing.commits-- > 0
        ? Effect.fail(new SqlError({ message: "disk I/O error" }))
        : conn.executeRaw(text, params)
    }
  })
  const client = { reserve: Effect.map(sql.reserve, record), withTransaction: sql.withTransaction } as unknown as SqlClient.SqlClient
  const reserve = Reserved.of(sql)
  assert.isDefined(reserve, "the driver's client tells how its connection is reserved by hand")
  if (byHand) Reserved.register(client, Effect.map(reserve!, (reservation) => ({ ...reservation, conn: record(reservation.conn) })))
  const rows = Effect.map(sql<{ x: number }>`SELECT x FROM t ORDER BY x`, (rs) => rs.map((r) => r.x))
  const insert = (x: number) => sql`INSERT INTO t (x) VALUES (${x})`
  const count = (text: string) => log.filter((t) => t === text).length
  return { client, sql, log, failing, rows, insert, count }
})

const sqlite = Layer.unwrapScoped(Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kassa-group-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  return SqliteClient.layer({ filename: path.join(dir, "group.db") })
}))

const units = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

for (const byHand of [true, false]) {
  /** Group commit over the recorded client, at most `maxUnits` a group. */
  const groupedOn = (maxUnits: number) =>
    Effect.flatMap(recorded(byHand), (r) => Effect.map(GroupCommit.make(r.client, { maxUnits }), (grouped) => ({ grouped, r })))

  describe(`Group commit (SQLite, its connection reserved ${byHand ? "by hand" : "in a scope"})`, () => {
    it.scoped("transactions that arrive together share one COMMIT, each but the first in its savepoint; a failed one is rolled back alone", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        const fails = (x: number) => x === 1 || x === 4
        const exits = yield* Effect.forEach(
          units(10),
          (x) => Effect.exit(grouped(Effect.zipRight(r.insert(x), fails(x) ? Effect.fail("no") : Effect.succeed(x)))),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(exits.map(Exit.isSuccess), units(10).map((x) => !fails(x)))
        // the first unit, alone in its group without a savepoint, fails: its group is rolled back,
        // and the others make the next group, whose first has no savepoint either
        assert.strictEqual(r.count("BEGIN"), 2, r.log.join("\n"))
        assert.strictEqual(r.count("ROLLBACK"), 1)
        assert.strictEqual(r.count("COMMIT"), 1)
        assert.strictEqual(r.count("SAVEPOINT kassa_unit"), 8)
        assert.strictEqual(r.count("ROLLBACK TO kassa_unit"), 1)
        assert.deepStrictEqual(yield* r.rows, units(10).filter((x) => !fails(x)))
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a unit's writes go straight to its connection, traced or not, and a failed unit's are rolled back", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        yield* grouped(insert(r.sql, "t", r.insert(1)))
        yield* Effect.withTracerEnabled(grouped(insert(r.sql, "t", r.insert(2))), false)
        const failed = yield* Effect.exit(grouped(Effect.zipRight(insert(r.sql, "t", r.insert(3)), Effect.fail("no"))))
        assert.isTrue(Exit.isFailure(failed))
        // each alone in its group: no savepoint; the failed one's group rolled back
        const write = "INSERT INTO t (x) VALUES (?)"
        assert.deepStrictEqual(r.log, ["BEGIN", write, "COMMIT", "BEGIN", write, "COMMIT", "BEGIN", write, "ROLLBACK"])
        assert.deepStrictEqual(yield* r.rows, [1, 2])
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a group holds at most maxUnits transactions", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(4)
        yield* Effect.forEach(units(10), (x) => grouped(r.insert(x)), { concurrency: "unbounded", discard: true })
        assert.strictEqual(r.count("COMMIT"), 3, r.log.join("\n"))
        assert.deepStrictEqual(yield* r.rows, units(10))
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a transaction alone commits at once after its turn, without waiting for company", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        yield* grouped(r.insert(1))
        yield* grouped(r.insert(2))
        assert.strictEqual(r.count("COMMIT"), 2)
        assert.deepStrictEqual(yield* r.rows, [1, 2])
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a group's COMMIT runs on a unit's own fiber: a transaction forks none", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        const together = <E>(unit: (x: number) => Effect.Effect<unknown, E>) =>
          Effect.forEach(units(3), unit, { concurrency: "unbounded", discard: true })
        const bare = new Forks()
        yield* Effect.supervised(together(() => Effect.void), bare)
        const forks = new Forks()
        yield* Effect.supervised(grouped(r.insert(1)), forks)
        yield* Effect.supervised(together((x) => grouped(r.insert(x + 1))), forks)
        assert.strictEqual(r.count("COMMIT"), 2, r.log.join("\n"))
        // the concurrent units' own fibers, nothing else
        assert.strictEqual(yield* forks.value, yield* bare.value)
        assert.deepStrictEqual(yield* r.rows, units(4))
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a transaction nests no uninterruptible region in its own but for what it waits for: few steps", () =>
      Effect.gen(function*() {
        const { grouped } = yield* groupedOn(64)
        yield* grouped(Effect.void)
        const steps = new Steps()
        const updates = new FlagUpdates()
        const counted = Effect.withRuntimeFlagsPatch(grouped(Effect.void), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
        yield* Effect.supervised(Effect.supervised(counted, steps), updates)
        // 3 and 87 now by hand, 7 and 137 in a scope (99 and 149 with a savepoint around a unit
        // alone in its group); 15 and 196 with Effect's semaphores and a Deferred for the COMMIT;
        // when a region of its own guarded the wait for the mutex, the group's opening, its
        // COMMIT's turn of the mutex (`withPermits`), 26 and 232
        assert.isAtMost(yield* updates.value, byHand ? 5 : 9)
        assert.isAtMost(yield* steps.value, byHand ? 89 : 139)
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a unit's write whose answer nobody reads costs a few steps, untraced", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        const count = (effect: Effect.Effect<unknown>) =>
          Effect.gen(function*() {
            const steps = new Steps()
            yield* Effect.supervised(Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)), steps)
            return yield* steps.value
          })
        const untraced = Effect.withTracerEnabled(false)
        yield* untraced(grouped(insert(r.sql, "t", r.insert(0))))
        const bare = yield* untraced(count(grouped(Effect.void)))
        const one = yield* untraced(count(grouped(insert(r.sql, "t", r.insert(1)))))
        const three = yield* untraced(count(grouped(writeAll(r.sql, [1, 2, 3].map((x) => inserting("t", r.insert(x)))))))
        // 4 and 16 now; 16 and 26 when the write read its fiber's transaction, dropped its answer
        // and made its error a defect in steps of their own, and ran its writes with `forEach`
        assert.isAtMost(one - bare, 4)
        assert.isAtMost(three - bare, 16)
        assert.deepStrictEqual(yield* r.rows, [0, 1, 1, 2, 3])
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a statement waiting for the connection gets it between two groups, not after all of them", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(4)
        const opened = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const all = yield* Effect.fork(Effect.forEach(
          units(40),
          (x) => grouped(x === 1 ? Effect.zipRight(Deferred.succeed(opened, undefined), Effect.zipRight(Deferred.await(gate), r.insert(x))) : r.insert(x)),
          { concurrency: "unbounded", discard: true }
        ))
        yield* Deferred.await(opened)
        // the first group holds the connection: the read waits for it
        const read = yield* Effect.fork(Effect.zipRight(r.rows, Effect.sync(() => r.count("COMMIT"))))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(gate, undefined)
        const commitsBeforeRead = yield* Fiber.join(read)
        yield* Fiber.join(all)
        assert.strictEqual(r.count("COMMIT"), 10)
        assert.isAtMost(commitsBeforeRead, 2, `the read waited for ${commitsBeforeRead} groups`)
      }).pipe(Effect.provide(sqlite)))

    it.scoped("a failed COMMIT fails every transaction of its group and keeps none of their writes; the next group commits", () =>
      Effect.gen(function*() {
        const { grouped, r } = yield* groupedOn(64)
        r.failing.commits = 1
        const exits = yield* Effect.forEach(units(5), (x) => Effect.exit(grouped(r.insert(x))), { concurrency: "unbounded" })
        assert.deepStrictEqual(exits.map(Exit.isSuccess), [false, false, false, false, false])
        assert.deepStrictEqual(yield* r.rows, [])
        assert.strictEqual(r.count("ROLLBACK"), 1)
        yield* grouped(r.insert(6))
        assert.deepStrictEqual(yield* r.rows, [6])
      }).pipe(Effect.provide(sqlite)))
  })
}
