import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { RandomIds, Statements } from "@kassa/adapters"
import * as Contention from "@kassa/core/Contention"
import type { InvoiceRecord } from "@kassa/core/invoice/Invoice"
import { EventLog } from "@kassa/core/ports/EventLog"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { Ledger } from "@kassa/core/ports/Ledger"
import { Timers } from "@kassa/core/ports/Timers"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import { changing, inserting, type Write, writeAll } from "../src/sql/driver/writes.js"
import { subscribed } from "./storage/records.js"
import { withStatementTexts } from "./statementTexts.js"
import { Steps } from "./support/Supervisors.js"

const event = (aggregateID: string, changes: ReadonlyArray<unknown>) => ({
  aggregateType: "invoice",
  aggregateID,
  partyID: "p",
  changes
})

/** The services, and an aggregate with its first event. */
const fresh = Effect.gen(function*() {
  const log = yield* EventLog
  const x = `inv-${RandomIds.make()}`
  yield* log.append(event(x, ["created"]))
  return { log, x, timers: yield* Timers, tx: yield* Transactions, sql: yield* SqlClient.SqlClient }
})

/** An unpaid invoice `id`, at version 1. */
const invoiceOf = (id: string): InvoiceRecord => ({
  id: id as InvoiceRecord["id"],
  partyID: "p",
  shopID: "s" as InvoiceRecord["shopID"],
  createdAt: new Date(0),
  dueDate: new Date(4_000_000_000_000),
  amount: 100 as InvoiceRecord["amount"],
  currency: "RUB" as InvoiceRecord["currency"],
  product: "held" as InvoiceRecord["product"],
  metadata: {},
  status: "unpaid",
  paymentCount: 0,
  activePaymentID: undefined,
  version: 1
})

const TIMER = "held.test"

const scheduleTimer = (subject: string) =>
  Effect.flatMap(Timers, (timers) => timers.schedule({ kind: TIMER, subject, dueAt: new Date(4_000_000_000_000), payload: null }))

const timersOf = (subject: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 FROM timers WHERE kind = ${TIMER} AND subject = ${subject}`).pipe(
    Effect.map((rows) => rows.length)
  )

const changesOf = (aggregateID: string) =>
  Effect.flatMap(EventLog, (log) => log.list({ aggregateType: "invoice", aggregateID, after: 0, limit: 10 })).pipe(
    Effect.map((events) => events.map((e) => e.changes))
  )

for (const dialect of Dialects.dialects()) {
  // No webhook dispatcher: it would take the outbox rows these tests read.
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Held writes [${dialect}]`, (it) => {
    it.effect("a transaction's events and timers go before its next read, which sees them, and before its COMMIT", () =>
      Effect.gen(function*() {
        yield* subscribed("p")
        const { log, sql, timers, tx, x } = yield* fresh
        const [seen, texts] = yield* withStatementTexts(tx.withTransaction(Effect.gen(function*() {
          yield* log.append(event(x, ["a"]))
          yield* scheduleTimer(x)
          const seen = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
          // two events of one aggregate never share a statement: they would read one head
          yield* log.append(event(x, ["b"]))
          yield* log.append(event(x, ["c"]))
          yield* timers.cancel(TIMER, x)
          return seen.map((e) => [e.id, e.changes])
        })))
        assert.deepStrictEqual(seen, [[1, ["created"]], [2, ["a"]]])
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => [e.id, e.changes]), [[1, ["created"]], [2, ["a"]], [3, ["b"]], [4, ["c"]]])
        const outbox = yield* sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x} ORDER BY seq`
        assert.deepStrictEqual(outbox.map((r) => Number(r.eventId)), [1, 2, 3, 4])
        assert.strictEqual(yield* timersOf(x), 0)
        if (dialect === "pg") {
          // event a with the timer; the read; event b; event c with the timer's cancel
          assert.strictEqual(texts.length, 4, texts.join("\n---\n"))
          assert.match(texts[0]!, /INSERT INTO timers/)
          assert.match(texts[3]!, /DELETE FROM timers/)
        } else {
          assert.isAbove(texts.length, 4)
        }
      }))

    it.effect("writes of other timers share a statement; a second write of one timer goes after the first", () =>
      Effect.gen(function*() {
        const { sql, timers, tx, x } = yield* fresh
        const due = (n: number) => new Date(4_000_000_000_000 + n)
        const [, texts] = yield* withStatementTexts(tx.withTransaction(Effect.gen(function*() {
          yield* timers.schedule({ kind: TIMER, subject: `${x}-a`, dueAt: due(1), payload: null })
          yield* timers.schedule({ kind: TIMER, subject: `${x}-b`, dueAt: due(2), payload: null })
          yield* timers.cancelAll([{ kind: TIMER, subject: `${x}-c` }])
          // the same row again: it must see the first write
          yield* timers.schedule({ kind: TIMER, subject: `${x}-a`, dueAt: due(3), payload: null })
          yield* timers.cancel(TIMER, `${x}-b`)
        })))
        const left = yield* sql<{ subject: string; dueAt: unknown }>`SELECT subject, due_at FROM timers
          WHERE kind = ${TIMER} AND subject LIKE ${`${x}-%`} ORDER BY subject`
        assert.deepStrictEqual(left.map((r) => [r.subject, Number(r.dueAt)]), [[`${x}-a`, due(3).getTime()]])
        if (dialect === "pg") assert.strictEqual(texts.length, 2, texts.join("\n---\n"))
      }))

    it.effect("a read confined to other tables (the ledger's) lets the held writes wait; one of their table sends them first", () =>
      Effect.gen(function*() {
        const { log, sql, tx, x } = yield* fresh
        const ledger = yield* Ledger
        const [seen, texts] = yield* withStatementTexts(tx.withTransaction(Effect.gen(function*() {
          yield* scheduleTimer(x)
          yield* log.append(event(x, ["a"]))
          const plan = yield* ledger.plan(`plan-${x}`)
          const seen = yield* sql`SELECT 1 FROM timers WHERE kind = ${TIMER} AND subject = ${x}`
          return [plan._tag, seen.length]
        })))
        assert.deepStrictEqual(seen, ["None", 1])
        assert.deepStrictEqual(yield* changesOf(x), [["created"], ["a"]])
        if (dialect === "pg") {
          assert.strictEqual(texts.length, 3, texts.join("\n---\n"))
          assert.match(texts[0]!, /FROM ledger_plans/)
          assert.match(texts[1]!, /INSERT INTO timers/)
          assert.match(texts[2]!, /FROM timers/)
        }
      }))

    if (dialect === "pg") {
      it.effect("a transaction that only writes costs its caller's fiber few steps: its unit waits for its batch", () =>
        Effect.gen(function*() {
          const { log, tx } = yield* fresh
          const append = Effect.suspend(() => tx.withTransaction(log.append(event(`inv-${RandomIds.make()}`, ["created"]))))
          yield* append
          const steps = new Steps()
          yield* Effect.supervised(Effect.withRuntimeFlagsPatch(append, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)), steps)
          // 63 (66 when its write read the fiber's transaction and was held in steps of their own,
          // 68 when the unit read the request's work with `FiberRef.get`)
          assert.isAtMost(yield* steps.value, 63)
        }).pipe(Effect.withTracerEnabled(false)))

      it.effect("a write held in a transaction costs its fiber two steps", () =>
        Effect.gen(function*() {
          const { sql, tx } = yield* fresh
          const timer = (subject: string) =>
            inserting("timers", sql`INSERT INTO timers ${sql.insert({ kind: "held.test", subject, dueAt: 4_000_000_000_000, payload: "null" })}`)
          const steps = new Steps()
          yield* tx.withTransaction(Effect.supervised(
            Effect.withRuntimeFlagsPatch(writeAll(sql, [timer(RandomIds.make())]), RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)),
            steps
          ))
          // reading the fiber's transaction, then holding the write at once: 2 (5 when it read the
          // transaction and held the write in steps of their own)
          assert.isAtMost(yield* steps.value, 2)
        }).pipe(Effect.withTracerEnabled(false)))
    }

    it.effect("a transaction that fails sends none of the writes it held", () =>
      Effect.gen(function*() {
        const { log, tx, x } = yield* fresh
        const failed = yield* tx.withTransaction(Effect.gen(function*() {
          yield* log.append(event(x, ["lost"]))
          yield* scheduleTimer(x)
          return yield* Effect.fail("boom" as const)
        })).pipe(Effect.flip)
        assert.strictEqual(failed, "boom")
        assert.deepStrictEqual(yield* changesOf(x), [["created"]])
        assert.strictEqual(yield* timersOf(x), 0)
        // the number the lost event would have taken is the next one's
        yield* log.append(event(x, ["next"]))
        const after = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(after.map((e) => e.id), [1, 2])
      }))

    it.effect("a write the database refuses at the COMMIT fails the transaction, and its other writes with it", () =>
      Effect.gen(function*() {
        const { log, sql, tx, x } = yield* fresh
        const row = { kind: `${TIMER}.twice`, subject: x, dueAt: 4_000_000_000_000, payload: "null" }
        yield* sql`INSERT INTO timers ${sql.insert(row)}`
        const exit = yield* tx.withTransaction(Effect.gen(function*() {
          yield* scheduleTimer(x)
          yield* log.append(event(x, ["again"]))
          // a timer's row that exists: refused when the writes go
          yield* writeAll(sql, [inserting("timers", sql`INSERT INTO timers ${sql.insert(row)}`)])
        })).pipe(Effect.exit)
        assert.strictEqual(exit._tag, "Failure")
        assert.strictEqual(yield* timersOf(x), 0)
        assert.deepStrictEqual(yield* changesOf(x), [["created"]])
      }))

    it.effect("a transaction that only writes, inside another, is part of it: reads in and after it see the writes", () =>
      Effect.gen(function*() {
        const { log, tx, x } = yield* fresh
        const seen = yield* tx.withTransaction(Effect.gen(function*() {
          yield* log.append(event(x, ["before"]))
          const inside = yield* tx.withTransaction(Effect.zipRight(scheduleTimer(x), changesOf(x)))
          return [inside, yield* timersOf(x)] as const
        }))
        assert.deepStrictEqual(seen, [[["created"], ["before"]], 1])
        // and it rolls back with the transaction
        const y = `inv-${RandomIds.make()}`
        const failed = yield* tx.withTransaction(
          tx.withTransaction(scheduleTimer(y)).pipe(Effect.zipRight(timersOf(y)), Effect.flatMap((n) => Effect.fail(n)))
        ).pipe(Effect.flip)
        assert.strictEqual(failed, 1)
        assert.strictEqual(yield* timersOf(y), 0)
      }))

    it.effect("an update at the version a contended read found cannot lose: it goes with the other writes; another answers", () =>
      Effect.gen(function*() {
        const { tx, x } = yield* fresh
        const invoices = yield* InvoiceRepository
        const invoice = invoiceOf(x)
        yield* invoices.insert(invoice)
        const [answers, texts] = yield* withStatementTexts(tx.withTransaction(Effect.gen(function*() {
          const read = Option.getOrThrow(yield* Contention.expected(invoices.findByIdUnscoped(x)))
          const kept = yield* invoices.update({ ...read, status: "paid", version: 2 }, 1)
          yield* scheduleTimer(x)
          // not at the version read: the storage answers
          const stale = yield* invoices.update({ ...read, status: "cancelled", version: 2 }, 1)
          return [kept, stale]
        })))
        assert.deepStrictEqual(answers, [true, false])
        const stored = Option.getOrThrow(yield* invoices.findByIdUnscoped(x))
        assert.deepStrictEqual([stored.status, stored.version], ["paid", 2])
        assert.strictEqual(yield* timersOf(x), 1)
        if (dialect === "pg") {
          // the read, which keeps the row; the update with the timer; the stale update
          assert.strictEqual(texts.length, 3, texts.join("\n---\n"))
          assert.match(texts[0]!, /FOR UPDATE/)
          assert.match(texts[1]!, /UPDATE invoices[\s\S]*INSERT INTO timers/)
        } else {
          assert.notMatch(texts.join("\n"), /FOR UPDATE/)
        }
      }))

    it.effect("a retried command's update goes with its other writes, checked there: a lost race writes nothing and answers Conflict", () =>
      Effect.gen(function*() {
        const { log, tx, x } = yield* fresh
        const invoices = yield* InvoiceRepository
        const invoice = invoiceOf(x)
        yield* invoices.insert(invoice)
        // the command's transaction: the update at the version it read, an event and a timer
        const command = (status: InvoiceRecord["status"], expected: number) =>
          withStatementTexts(Effect.locally(
            tx.withTransaction(Effect.gen(function*() {
              const answered = yield* invoices.update({ ...invoice, status, version: expected + 1 }, expected)
              yield* log.append(event(x, [status]))
              yield* scheduleTimer(x)
              return answered
            })),
            Contention.retried,
            true
          ))
        const [won, texts] = yield* command("paid", 1)
        assert.isTrue(won)
        if (dialect === "pg") {
          // no BEGIN, no answer awaited: the update, the event and the timer are one statement
          assert.strictEqual(texts.length, 1, texts.join("\n---\n"))
          assert.match(texts[0]!, /UPDATE invoices[\s\S]*INSERT INTO timers/)
        }
        yield* Effect.flatMap(Timers, (timers) => timers.cancel(TIMER, x))
        // another command read version 1 too
        const lost = yield* Effect.exit(command("cancelled", 1))
        if (dialect === "pg") {
          assert.isTrue(Exit.isFailure(lost) && Option.exists(Cause.dieOption(lost.cause), (d) => d instanceof Contention.Conflict))
        } else {
          // SQLite answers at once, as outside a retried command
          assert.deepStrictEqual(Exit.map(lost, ([answered]) => answered), Exit.succeed(false))
        }
        const stored = Option.getOrThrow(yield* invoices.findByIdUnscoped(x))
        assert.deepStrictEqual([stored.status, stored.version], ["paid", 2])
        if (dialect === "pg") {
          assert.deepStrictEqual(yield* changesOf(x), [["created"], ["paid"]])
          assert.strictEqual(yield* timersOf(x), 0)
        }
      }))

    it.effect("a retried command's checked update goes with its next locking read (a ledger hold), run before its locks", () =>
      Effect.gen(function*() {
        const { tx, x } = yield* fresh
        const invoices = yield* InvoiceRepository
        const ledger = yield* Ledger
        const invoice = invoiceOf(x)
        yield* invoices.insert(invoice)
        const from = yield* ledger.account({ kind: "provider", currency: "RUB" })
        const to = yield* ledger.account({ kind: "system", currency: "RUB" })
        const command = (plan: string, expected: number) =>
          withStatementTexts(Effect.locally(
            tx.withTransaction(Effect.gen(function*() {
              yield* invoices.update({ ...invoice, status: "paid", version: expected + 1 }, expected)
              yield* ledger.hold(plan, { id: 1, postings: [{ from, to, amount: 10, currency: "RUB", description: "held" }] })
            })),
            Contention.retried,
            true
          ))
        const [, texts] = yield* command(`plan-${x}-1`, 1)
        assert.isTrue(Option.isSome(yield* ledger.plan(`plan-${x}-1`)))
        if (dialect === "pg") {
          // the update with the plan's opening and its accounts' locks; the batch and the accounts' moves
          assert.strictEqual(texts.length, 2, texts.join("\n---\n"))
          assert.match(texts[0]!, /UPDATE invoices[\s\S]*INSERT INTO ledger_plans[\s\S]*FOR UPDATE/)
        }
        // a command that read version 1 too: its hold's read fails, and nothing of it is written
        const lost = yield* Effect.exit(command(`plan-${x}-2`, 1))
        if (dialect === "pg") {
          assert.isTrue(Exit.isFailure(lost) && Option.exists(Cause.dieOption(lost.cause), (d) => d instanceof Contention.Conflict))
          assert.isTrue(Option.isNone(yield* ledger.plan(`plan-${x}-2`)))
        }
        const stored = Option.getOrThrow(yield* invoices.findByIdUnscoped(x))
        assert.deepStrictEqual([stored.status, stored.version], ["paid", 2])
      }))

    it.effect("a nested transaction reads what the outer one holds", () =>
      Effect.gen(function*() {
        const { log, tx, x } = yield* fresh
        const inner = yield* tx.withTransaction(Effect.gen(function*() {
          yield* log.append(event(x, ["outer"]))
          return yield* tx.withTransaction(Effect.gen(function*() {
            yield* log.append(event(x, ["inner"]))
            return yield* changesOf(x)
          }))
        }))
        assert.deepStrictEqual(inner, [["created"], ["outer"], ["inner"]])
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.id), [1, 2, 3])
      }))
  })
}

const units = (n: number) => Array.from({ length: n }, (_, i) => i)

/** A table of counters, and a transaction that only writes one statement on it. */
const counters = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const tx = yield* Transactions
  yield* sql`CREATE TABLE IF NOT EXISTS batch_test (k TEXT PRIMARY KEY, n INTEGER NOT NULL)`
  const run = RandomIds.make()
  const unit = (write: Write) => Effect.exit(tx.withTransaction(writeAll(sql, [write])))
  const insert = (k: string) => sql`INSERT INTO batch_test ${sql.insert({ k: `${run}-${k}`, n: 1 })}`
  const inserts = (k: string) => inserting("batch_test", insert(k))
  const keys = Effect.map(
    sql<{ k: string; n: number }>`SELECT k, n FROM batch_test WHERE k LIKE ${`${run}-%`} ORDER BY k`,
    (rows) => rows.map((r) => [r.k.slice(run.length + 1), Number(r.n)] as const)
  )
  // the statements sent under a work of the run's own
  const work = `batch-${run}`
  const sent = Effect.map(Statements.StatementCounts, (counts) => counts.snapshot().get(work) ?? 0)
  return { sql, run, unit, insert, inserts, keys, sent, inWork: Statements.withWork(work) }
})

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }).pipe(Layer.provideMerge(Statements.layer)), { timeout: "60 seconds" })(
    `Units of writes arriving together [${dialect}]`,
    (it) => {
      it.effect("units that only insert go as one statement (PostgreSQL), and a unit that fails fails alone", () =>
        Effect.gen(function*() {
          const c = yield* counters
          const together = yield* c.inWork(Effect.forEach(units(12), (i) => c.unit(c.inserts(`a${i}`)), { concurrency: "unbounded" }))
          assert.isTrue(together.every(Exit.isSuccess))
          const sent = yield* c.sent
          if (dialect === "pg") assert.isAtMost(sent, 4, `${sent} statements for 12 units`)
          else assert.strictEqual(sent, 12)
          yield* c.insert("dup")
          const exits = yield* Effect.forEach(units(12), (i) => c.unit(c.inserts(i === 5 ? "dup" : `b${i}`)), { concurrency: "unbounded" })
          assert.deepStrictEqual(exits.map(Exit.isSuccess), units(12).map((i) => i !== 5))
          const keys = (yield* c.keys).map(([k]) => k)
          assert.deepStrictEqual(keys, [...units(12).map((i) => `a${i}`), ...units(12).filter((i) => i !== 5).map((i) => `b${i}`), "dup"].sort())
        }))

      it.effect("a transaction that only writes may append to an aggregate that has events: numbered after them, in one statement", () =>
        Effect.gen(function*() {
          const c = yield* counters
          const log = yield* EventLog
          const tx = yield* Transactions
          const x = `inv-${RandomIds.make()}`
          yield* log.append(event(x, ["created"]))
          yield* c.inWork(tx.withTransaction(Effect.zipRight(log.append(event(x, ["more"])), scheduleTimer(x))))
          assert.deepStrictEqual(yield* changesOf(x), [["created"], ["more"]])
          assert.strictEqual(yield* timersOf(x), 1)
          // PostgreSQL: the transaction never opened, its writes went as one statement; SQLite: the
          // event (its outbox row by the insert's trigger) and the timer on the group's connection
          assert.strictEqual(yield* c.sent, dialect === "pg" ? 1 : 2)
        }))

      it.effect("units that update or upsert one row, arriving together, each count: none is lost in a shared statement", () =>
        Effect.gen(function*() {
          const c = yield* counters
          const k = `${c.run}-row`
          yield* c.sql`INSERT INTO batch_test (k, n) VALUES (${k}, 0)`
          const updates = yield* Effect.forEach(units(10), () => c.unit(changing("batch_test", c.sql`UPDATE batch_test SET n = n + 1 WHERE k = ${k}`)), { concurrency: "unbounded" })
          assert.isTrue(updates.every(Exit.isSuccess))
          const upsert = (key: string) =>
            inserting("batch_test", c.sql`INSERT INTO batch_test (k, n) VALUES (${key}, 1) ON CONFLICT (k) DO UPDATE SET n = batch_test.n + 1`)
          const upserts = yield* Effect.forEach(units(10), () => c.unit(upsert(`${c.run}-up`)), { concurrency: "unbounded" })
          assert.isTrue(upserts.every(Exit.isSuccess))
          assert.deepStrictEqual(yield* c.keys, [["row", 10], ["up", 10]])
        }))
    }
  )
}
