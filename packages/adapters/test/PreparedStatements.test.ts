import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Database from "@kassa/adapters/Database"
import * as Dialects from "@kassa/testing/Dialects"
import * as TestDatabase from "@kassa/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { EventEmitter } from "node:events"
import pg from "pg"
import { nameHotStatements } from "../src/sql/driver/preparedStatements.js"

// PostgreSQL's alone: SQLite's client keeps its own prepared statements.
// One connection: a statement outside a transaction runs where the previous one did.
const store = (preparedStatements: boolean) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire("pg"), ({ database }) =>
      Database.layer({ ...database, maxConnections: 1, preparedStatements } as Database.DatabaseConfig))
  )

/** How many statements of this text the transaction's connection has prepared by name. */
const preparedOf = (sql: SqlClient.SqlClient, text: string) =>
  Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = ${text}`, (rows) => rows[0]!.n)

describe("Prepared statements' runs", () => {
  it("a named run reaches the client as a pg Query of that name, not as a config pg would copy on every run", () => {
    const pool = new EventEmitter()
    const sent: Array<ReadonlyArray<unknown>> = []
    const client = { query: (...args: Array<unknown>) => void sent.push(args) }
    nameHotStatements(pool as unknown as pg.Pool, { hotAfter: 2, maxNamed: 10 })
    pool.emit("connect", client)
    const answered: Array<unknown> = []
    for (let i = 0; i < 2; i++) client.query("SELECT a FROM t WHERE b = $1", [i], (_: unknown, result: unknown) => answered.push(result))
    assert.deepStrictEqual(sent[0]!.slice(0, 2), ["SELECT a FROM t WHERE b = $1", [0]])
    assert.strictEqual(sent[1]!.length, 1)
    const named = sent[1]![0] as pg.Query & { name?: string; text?: string; values?: Array<unknown>; callback?: Function }
    assert.instanceOf(named, pg.Query)
    assert.deepStrictEqual([named.name, named.text, named.values], ["kassa_0", "SELECT a FROM t WHERE b = $1", [1]])
    named.callback!(null, "rows")
    assert.deepStrictEqual(answered, ["rows"])
  })
})

if (Dialects.dialects().includes("pg")) {
  layer(store(true), { timeout: 60_000 })("Prepared statements [pg]", (it) => {
    it.effect("a statement run often is prepared by name on its connection; one run a few times is not", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.gen(function*() {
          for (let i = 0; i < 12; i++) assert.deepStrictEqual(yield* sql`SELECT ${i}::int AS hot`, [{ hot: i }])
          for (let i = 0; i < 3; i++) yield* sql`SELECT ${i}::int AS rare`
          assert.strictEqual(yield* preparedOf(sql, "SELECT $1::int AS hot"), 1)
          assert.strictEqual(yield* preparedOf(sql, "SELECT $1::int AS rare"), 0)
        }).pipe(sql.withTransaction)
      }))

    it.effect("a SELECT * or a RETURNING * is never prepared: a column added under it would change its result", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.gen(function*() {
          yield* sql`CREATE TABLE starred (a integer)`
          for (let i = 0; i < 12; i++) {
            yield* sql`INSERT INTO starred (a) VALUES (${i}) RETURNING *`
            yield* sql`SELECT s.* FROM starred s WHERE a = ${i}`
            yield* sql`SELECT count(*)::int AS n FROM starred WHERE a >= ${i}`
          }
          assert.strictEqual(yield* preparedOf(sql, "INSERT INTO starred (a) VALUES ($1) RETURNING *"), 0)
          assert.strictEqual(yield* preparedOf(sql, "SELECT s.* FROM starred s WHERE a = $1"), 0)
          assert.strictEqual(yield* preparedOf(sql, "SELECT count(*)::int AS n FROM starred WHERE a >= $1"), 1)
        }).pipe(sql.withTransaction)
      }))

    it.effect("a prepared statement whose column changed type since runs again unnamed and answers; in a transaction, that one fails", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE retyped (a integer, b integer)`
        yield* sql`INSERT INTO retyped (a, b) VALUES (${1}, ${2})`
        for (let i = 0; i < 12; i++) assert.deepStrictEqual(yield* sql`SELECT a, b FROM retyped WHERE a = ${1}`, [{ a: 1, b: 2 }])
        assert.strictEqual(yield* preparedOf(sql, "SELECT a, b FROM retyped WHERE a = $1"), 1)
        // as another process's migration would
        yield* sql`ALTER TABLE retyped ALTER COLUMN b TYPE text`
        assert.deepStrictEqual(yield* sql`SELECT a, b FROM retyped WHERE a = ${1}`, [{ a: 1, b: "2" }])
        assert.deepStrictEqual(yield* sql`SELECT a, b FROM retyped WHERE a = ${1}`, [{ a: 1, b: "2" }])

        for (let i = 0; i < 12; i++) yield* sql`SELECT b FROM retyped WHERE a = ${i}`
        yield* sql`ALTER TABLE retyped ALTER COLUMN b TYPE varchar(10)`
        const failed = yield* sql`SELECT b FROM retyped WHERE a = ${1}`.pipe(sql.withTransaction, Effect.flip)
        assert.match(String((failed.cause as Error).message), /cached plan must not change result type/)
        assert.deepStrictEqual(yield* sql`SELECT b FROM retyped WHERE a = ${1}`.pipe(sql.withTransaction), [{ b: "2" }])
      }))
  })

  layer(store(false), { timeout: 60_000 })("Prepared statements turned off [pg]", (it) => {
    it.effect("nothing is prepared by name, however often it runs", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.gen(function*() {
          for (let i = 0; i < 12; i++) yield* sql`SELECT ${i}::int AS hot`
          assert.strictEqual(yield* sql`SELECT count(*)::int AS n FROM pg_prepared_statements`.pipe(Effect.map((rows: any) => rows[0].n)), 0)
        }).pipe(sql.withTransaction)
      }))
  })
}
