import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as Statement from "@effect/sql/Statement"
import { RandomIds } from "@kassa/adapters"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Scope from "effect/Scope"
import { opens, rows } from "../src/sql/driver/reads.js"
import { inserting, writeAll } from "../src/sql/driver/writes.js"
import { withStatementTexts } from "./statementTexts.js"
import { FlagUpdates, Steps } from "./support/Supervisors.js"

/** `effect` as the server runs it: without tracing. */
const untraced = Effect.withTracerEnabled(false)

const eventsOf = (sql: SqlClient.SqlClient, aggregateID: string) =>
  sql<{ aggregateId: string; id: unknown }>`SELECT aggregate_id, id FROM events
    WHERE aggregate_type = 'invoice' AND aggregate_id = ${aggregateID} ORDER BY id`

const append = (aggregateID: string, change: string) =>
  Effect.flatMap(EventLog, (log) => log.append({ aggregateType: "invoice", aggregateID, partyID: "p", changes: [change] }))

/** What `effect` costs: the run loop's steps, and the steps that change the runtime flags (uninterruptible regions). */
const cost = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const steps = new Steps()
    const updates = new FlagUpdates()
    const counted = Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
    const value = yield* Effect.supervised(Effect.supervised(counted, steps), updates)
    return { value, steps: yield* steps.value, updates: yield* updates.value }
  })

/** A connection answering `[{ one: 1 }]` to every statement. */
const fakeConnection = { execute: () => Effect.succeed([{ one: 1 }]) } as unknown as SqlConnection.Connection

/** A statement of a client whose acquirer is `acquirer`. */
const statementOf = (acquirer: SqlConnection.Connection.Acquirer) =>
  Statement.make(acquirer, Statement.makeCompilerSqlite(), [], undefined)`SELECT 1 AS one`

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Reads [${dialect}]`, (it) => {
    it.effect("the client's statements are ones the driver runs itself", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.isTrue(opens(sql`SELECT 1`))
      }))

    it.effect("a read answers the rows and row names the client answers, traced or not", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        yield* append(x, "a")
        yield* append(x, "b")
        const direct = yield* untraced(rows(eventsOf(sql, x)))
        assert.deepStrictEqual(direct.map((r) => [r.aggregateId, Number(r.id)]), [[x, 1], [x, 2]])
        assert.deepStrictEqual(yield* rows(eventsOf(sql, x)), yield* eventsOf(sql, x))
        assert.deepStrictEqual(direct, yield* untraced(eventsOf(sql, x)))
      }))

    it.effect("outside a transaction a read takes the client's connection without its acquirer: a few steps", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const read = yield* untraced(cost(rows(sql<{ readonly one: number }>`SELECT 1 AS one`)))
        assert.deepStrictEqual(read.value, [{ one: 1 }])
        // the read's own step, the connection's run and its answer (PostgreSQL's run and resume
        // are two); through the client's acquirer SQLite's took 11, PostgreSQL's 22
        assert.isAtMost(read.steps, dialect === "pg" ? 4 : 3)
      }))

    it.effect("outside a transaction a read that fails answers the client's error and gives its connection back", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const missing = sql`SELECT a FROM no_such_table`
        const expected = yield* Effect.flip(untraced(missing))
        // more failures than the pool has connections: each is given back
        for (let i = 0; i < 12; i++) {
          const failed = yield* Effect.flip(untraced(rows(missing)))
          assert.strictEqual(failed._tag, "SqlError")
          assert.strictEqual(failed.message, expected.message)
        }
        assert.deepStrictEqual(yield* untraced(rows(sql`SELECT 2 AS two`)), [{ two: 2 }])
      }))

    it.effect("an aggregate's events are read as the driver reads: no span, no scope, in a few steps", () =>
      Effect.gen(function*() {
        const x = `inv-${RandomIds.make()}`
        yield* append(x, "a")
        yield* append(x, "b")
        const log = yield* EventLog
        const page = yield* untraced(cost(log.list({ aggregateType: "invoice", aggregateID: x, partyID: "p", after: 0, limit: 10 })))
        assert.deepStrictEqual(page.value.map((e) => [e.aggregateID, e.partyID, e.id, e.changes]), [[x, "p", 1, ["a"]], [x, "p", 2, ["b"]]])
        // through `@effect/sql` with its span and the schema's decoding as an effect: 66 (PostgreSQL 77)
        assert.isAtMost(page.steps, 8)
      }))

    it.effect("the client hands out its connection for a read without a scope", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const statement = sql`SELECT 1`
        assert.isTrue(opens(statement))
        const acquirer = (statement as unknown as { readonly acquirer: SqlConnection.Connection.Acquirer }).acquirer
        // with no service at all, a Scope among them
        const exit = yield* Effect.exit(Effect.provide(acquirer, Context.empty()) as Effect.Effect<SqlConnection.Connection, unknown>)
        assert.strictEqual(exit._tag, "Success")
      }))

    it.effect("outside a transaction a read opens no scope for a connection that needs none", () =>
      Effect.gen(function*() {
        const scoped: Array<boolean> = []
        const acquirer = Effect.map(Effect.serviceOption(Scope.Scope), (scope) => {
          scoped.push(Option.isSome(scope))
          return fakeConnection
        }) as SqlConnection.Connection.Acquirer
        const statement = statementOf(acquirer)
        assert.deepStrictEqual(yield* untraced(rows(statement)), [{ one: 1 }])
        assert.deepStrictEqual(yield* untraced(rows(statement)), [{ one: 1 }])
        assert.deepStrictEqual(scoped, [false, false])
      }))

    it.effect("a connection that needs a scope gets one per read, closed once the read is done", () =>
      Effect.gen(function*() {
        let opened = 0
        let closed = 0
        const acquirer = Effect.flatMap(Scope.Scope, (scope) => {
          opened++
          return Effect.as(Scope.addFinalizer(scope, Effect.sync(() => closed++)), fakeConnection)
        })
        const statement = statementOf(acquirer)
        assert.deepStrictEqual(yield* untraced(rows(statement)), [{ one: 1 }])
        assert.deepStrictEqual(yield* untraced(rows(statement)), [{ one: 1 }])
        assert.deepStrictEqual([opened, closed], [2, 2])
      }))

    it.effect("outside a transaction a write whose answer nobody reads runs as a read does: no scope, unless traced", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const scoped: Array<boolean> = []
        const acquirer = Effect.map(Effect.serviceOption(Scope.Scope), (scope) => {
          scoped.push(Option.isSome(scope))
          return fakeConnection
        }) as SqlConnection.Connection.Acquirer
        const write = inserting("events", statementOf(acquirer))
        yield* untraced(writeAll(sql, [write]))
        yield* untraced(writeAll(sql, [write]))
        // traced, it goes through `@effect/sql` (its span, in its statement's scope)
        yield* Effect.withTracerEnabled(writeAll(sql, [write]), true)
        assert.deepStrictEqual(scoped, [false, false, true])
      }))

    it.effect("a statement transformer (statement counting) still sees every write whose answer nobody reads", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        const [, texts] = yield* untraced(withStatementTexts(
          writeAll(sql, [inserting("idempotency_keys", sql`INSERT INTO idempotency_keys ${
            sql.insert({ partyId: x, namespace: "n", operation: "o", externalId: x, entityId: x, fingerprint: "f", createdAt: 0 })
          }`)])
        ))
        assert.deepStrictEqual(texts.map((t) => t.trim().split(" ").slice(0, 3).join(" ")), ["INSERT INTO idempotency_keys"])
      }))

    it.effect("a statement transformer (statement counting) still sees every read", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [, texts] = yield* untraced(withStatementTexts(rows(sql`SELECT 1 AS one`)))
        assert.deepStrictEqual(texts.map((t) => t.trim()), ["SELECT 1 AS one"])
      }))

    it.effect("an idempotency key's find and claim run as reads: no span, no scope, no uninterruptible region of their own, unless traced", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const tx = yield* Transactions
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createInvoice", externalID: "x" }
        const record = { entityID: "inv-1", fingerprint: "f" }
        const found = yield* untraced(cost(idem.find(key)))
        assert.isTrue(Option.isNone(found.value))
        // traced, it has `@effect/sql`'s span: 6 flag updates (PostgreSQL 8); untraced 2 (4), and 6 (8)
        // when it went through `@effect/sql` untraced too
        const traced = yield* Effect.withTracerEnabled(cost(idem.find(key)), true)
        assert.isBelow(found.updates, traced.updates)
        // in a transaction, as createInvoice claims (beside what the transaction costs alone)
        const bare = yield* untraced(cost(tx.withTransaction(Effect.void)))
        const claimed = yield* untraced(cost(tx.withTransaction(idem.claim(key, record))))
        assert.isTrue(Option.isNone(claimed.value))
        // SQLite: none of its own, 6 through `@effect/sql`; PostgreSQL: the BEGIN and COMMIT it
        // brings, 10, and 16 through `@effect/sql`
        assert.isAtMost(claimed.updates - bare.updates, dialect === "pg" ? 10 : 0)
        const lost = yield* untraced(tx.withTransaction(idem.claim(key, { entityID: "inv-2", fingerprint: "g" })))
        assert.deepStrictEqual(lost, Option.some(record))
      }))

    it.effect("inside a transaction a read runs on its connection and sees its writes", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactions
        const x = `inv-${RandomIds.make()}`
        yield* append(x, "a")
        const inside = yield* untraced(tx.withTransaction(Effect.zipRight(append(x, "b"), rows(eventsOf(sql, x)))))
        assert.strictEqual(inside.length, 2)
      }))

    it.effect("outside a transaction a read does not see another fiber's uncommitted writes", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactions
        const x = `inv-${RandomIds.make()}`
        yield* append(x, "a")
        const written = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        // a read first opens the transaction; the write is then sent before the next read
        const writer = yield* Effect.fork(tx.withTransaction(Effect.gen(function*() {
          yield* rows(eventsOf(sql, x))
          yield* append(x, "b")
          yield* rows(eventsOf(sql, x))
          yield* Deferred.succeed(written, undefined)
          yield* Deferred.await(release)
        })))
        yield* Deferred.await(written)
        const outside = yield* untraced(rows(eventsOf(sql, x))).pipe(Effect.fork)
        // SQLite's one connection: the read waits for the transaction; PostgreSQL's reads its snapshot
        if (dialect === "pg") assert.strictEqual((yield* Fiber.join(outside)).length, 1)
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(writer)
        if (dialect === "sqlite") assert.strictEqual((yield* Fiber.join(outside)).length, 2)
        assert.strictEqual((yield* untraced(rows(eventsOf(sql, x)))).length, 2)
      }))
  })
}
