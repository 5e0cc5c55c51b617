import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { RandomIds } from "@kassa/adapters"
import { EventLog } from "@kassa/core/ports/EventLog"
import { type Timer, Timers } from "@kassa/core/ports/Timers"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { insert } from "../src/sql/driver/writes.js"
import { appended, subscribed } from "./storage/records.js"

/** Lets real time pass (the test clock stands still otherwise). */
const liveSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

for (const dialect of Dialects.dialects()) {
  // No webhook dispatcher: it would take the outbox rows these tests read.
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Storage [${dialect}]`, (it) => {
    it.effect("migrations created the tables and loaded the reference data", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const count = (table: string) =>
          sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM ${sql(table)}`.pipe(Effect.map((rows) => Number(rows[0]!.n)))
        const migrations = yield* sql<{ name: string }>`SELECT name FROM kassa_migrations ORDER BY migration_id`
        assert.deepStrictEqual(migrations.slice(0, 2).map((m) => m.name), ["kernel", "reference_data"])
        for (const table of ["parties", "contracts", "shops", "api_keys", "events", "outbox", "timers", "idempotency_keys"]) {
          assert.isAtLeast(yield* count(table), 0, table)
        }
        assert.strictEqual(yield* count("ref_countries"), 249)
        assert.strictEqual(yield* count("ref_categories"), 20)
        assert.strictEqual(yield* count("ref_trade_blocs"), 9)
        assert.strictEqual(yield* count("ref_payment_institutions"), 4)
        assert.strictEqual(yield* count("ref_schedules"), 4)
        assert.strictEqual(yield* count("ref_service_providers"), 7)
        assert.strictEqual(yield* count("ref_versions"), 1)
      }))

    if (dialect === "pg") {
      it.effect("PostgreSQL: every pooled connection runs without JIT compilation", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // held open together, so that they are different connections of the pool
          const settings = yield* Effect.all(
            Array.from({ length: 4 }, () =>
              sql.withTransaction(
                Effect.zipLeft(sql<{ jit: string }>`SHOW jit`, sql`SELECT pg_sleep(0.05)`)
              ).pipe(Effect.map((rows) => rows[0]!.jit))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(settings, ["off", "off", "off", "off"])
        }))
    }

    it.effect("EventLog: concurrent transactions append to one aggregate in turn, numbered without gaps or repeats", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        yield* subscribed("p")
        const x = `inv-${RandomIds.make()}`
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [0] })
        // each transaction appends twice, with a pause between: another append must wait for it
        const ids = yield* Effect.all(
          Array.from({ length: 16 }, (_, i) =>
            tx.withTransaction(Effect.gen(function*() {
              const a = yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "a"] })
              yield* Effect.sleep("2 millis").pipe(Effect.withClock(Clock.make()))
              const b = yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "b"] })
              return [a.id, b.id] as const
            }))),
          { concurrency: "unbounded" }
        )
        // a transaction's two events are consecutive
        for (const [a, b] of ids) assert.strictEqual(b, a + 1)
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 100 })
        assert.deepStrictEqual(events.map((e) => e.id), Array.from({ length: 33 }, (_, i) => i + 1))
        const outbox = yield* sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x} ORDER BY seq`
        assert.deepStrictEqual(outbox.map((r) => Number(r.eventId)), events.map((e) => e.id))
        // and a rolled-back append leaves its number free
        yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["gone"] }).pipe(Effect.zipRight(Effect.fail("boom")))
        ).pipe(Effect.ignore)
        assert.strictEqual((yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["next"] })).id, 34)
        // PostgreSQL numbers from the aggregate's head row: it holds the last number
        const head = yield* sql.onDialectOrElse({
          pg: () => Effect.map(sql<{ last: unknown }>`SELECT last FROM event_heads WHERE aggregate_id = ${x}`, (r) => r.map((h) => Number(h.last))),
          orElse: () => Effect.succeed([34])
        })
        assert.deepStrictEqual(head, [34])
      }))

    it.effect("an event has an outbox row only while its party has a webhook (a wallet webhook counts, a deleted one does not)", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const webhooks = yield* WebhookRepository
        const sql = yield* SqlClient.SqlClient
        const party = `party-${RandomIds.make()}`
        const x = `inv-${RandomIds.make()}`
        const rows = Effect.map(
          sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x} ORDER BY seq`,
          (r) => r.map((row) => Number(row.eventId))
        )
        const append = (n: number) =>
          Effect.zipRight(
            log.append({ aggregateType: "invoice", aggregateID: x, partyID: party, changes: [n] }),
            // and inside a transaction, where the write is held back with others
            Effect.flatMap(Transactions, (tx) =>
              tx.withTransaction(log.append({ aggregateType: "invoice", aggregateID: x, partyID: party, changes: [n, "tx"] })))
          )
        yield* append(1)
        assert.deepStrictEqual(yield* rows, [])
        const hook = yield* subscribed(party)
        yield* append(2)
        assert.deepStrictEqual(yield* rows, [3, 4])
        assert.isTrue(yield* webhooks.delete(party, hook, new Date(1)))
        yield* append(3)
        assert.deepStrictEqual(yield* rows, [3, 4])
        yield* sql`INSERT INTO wallet_webhooks (id, party_id, identity_id, topic, scope, url, created_at)
          VALUES (${`ww-${x}`}, ${party}, 'identity-1', 'WithdrawalsTopic', '{}', 'https://hooks.kassa.test/w', 0)`
        yield* append(4)
        assert.deepStrictEqual(yield* rows, [3, 4, 7, 8])
      }))

    it.effect("a transaction that only writes: a first event, its outbox row and a timer are written together", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const timers = yield* Timers
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        yield* subscribed("p")
        const x = `inv-${RandomIds.make()}`
        const answer = yield* tx.withTransaction(Effect.gen(function*() {
          yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["$1 stays text"] })
          yield* timers.schedule({ kind: "atomic.test", subject: x, dueAt: new Date(4_000_000_000_000), payload: { n: 1 } })
          return "written"
        }))
        assert.strictEqual(answer, "written")
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.changes), [["$1 stays text"]])
        const outbox = yield* sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x}`
        assert.deepStrictEqual(outbox.map((r) => Number(r.eventId)), [1])
        const timer = yield* sql<{ dueAt: unknown }>`SELECT due_at FROM timers WHERE kind = 'atomic.test' AND subject = ${x}`
        assert.deepStrictEqual(timer.map((r) => Number(r.dueAt)), [4_000_000_000_000])
      }))

    it.effect("a transaction that only writes: a failure, or a write the database refuses, leaves nothing", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const timers = yield* Timers
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        const failed = yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [1] }).pipe(
            Effect.zipRight(Effect.fail("boom" as const))
          )
        ).pipe(Effect.flip)
        assert.strictEqual(failed, "boom")
        assert.deepStrictEqual(yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 }), [])
        // the row exists already: the second unit's insert is refused, and its event and timer with it
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [2] })
        const row = { kind: "atomic.twice", subject: x, dueAt: 4_000_000_000_000, payload: "null" }
        yield* sql`INSERT INTO timers ${sql.insert(row)}`
        const exit = yield* tx.withTransaction(Effect.gen(function*() {
          yield* timers.schedule({ kind: "atomic.test", subject: x, dueAt: new Date(4_000_000_000_000), payload: null })
          yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [3] })
          yield* insert(sql, "timers", sql`INSERT INTO timers ${sql.insert(row)}`)
        })).pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure")
        const timer = yield* sql`SELECT due_at FROM timers WHERE kind = 'atomic.test' AND subject = ${x}`
        assert.strictEqual(timer.length, 0)
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.changes), [[2]])
      }))

    it.effect("the Kassa layer's scheduler fiber fires due timers by itself", () =>
      Effect.gen(function*() {
        const timers = yield* Timers
        const kind = `bg-${RandomIds.make()}`
        const fired: Array<Timer> = []
        yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t)))
        const now = yield* Clock.currentTimeMillis
        yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now + 1000), payload: null })
        for (let i = 0; i < 20; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(5)
        }
        for (let i = 0; i < 200 && fired.length === 0; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(10)
        }
        assert.strictEqual(fired.length, 1)
        assert.strictEqual(fired[0]!.subject, "s")
        for (let i = 0; i < 5; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(10)
        }
        assert.strictEqual(fired.length, 1, "fired exactly once")
      }))
  })
}
