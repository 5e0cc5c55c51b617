import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { rows } from "../src/sql/driver/reads.js"
import * as SqliteClient from "../src/sql/driver/sqliteClient.js"
import { Steps } from "./support/Supervisors.js"

describe("SQLite's prepared statements", () => {
  /** `keep` over a `prepare` that counts, at most `capacity` kept. */
  const counted = (capacity: number) => {
    const prepared: Array<string> = []
    const get = SqliteClient.keep((text) => {
      if (text === "bad") throw new Error("syntax error")
      prepared.push(text)
      return { text }
    }, capacity)
    return { get, prepared }
  }

  it("a text is prepared once and its statement kept across calls", () => {
    const { get, prepared } = counted(2)
    const first = get("a")
    assert.strictEqual(get("a"), first)
    assert.strictEqual(get("a"), first)
    assert.deepStrictEqual(prepared, ["a"])
  })

  it("past its capacity the least recently used statement is dropped, and prepared again when used", () => {
    const { get, prepared } = counted(2)
    get("a")
    get("b")
    get("a") // "b" is now the least recently used
    get("c")
    get("a")
    assert.deepStrictEqual(prepared, ["a", "b", "c"])
    get("b")
    assert.deepStrictEqual(prepared, ["a", "b", "c", "b"])
  })

  it("a text that fails to prepare is not kept", () => {
    const { get, prepared } = counted(2)
    assert.throws(() => get("bad"), /syntax error/)
    get("a")
    get("b")
    get("a")
    assert.deepStrictEqual(prepared, ["a", "b"])
  })
})

/** The names the client's transform was asked for, in order. */
const renamed: Array<string> = []

const sqlite = Layer.unwrapScoped(Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kassa-sqlite-client-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  return SqliteClient.layer({ filename: path.join(dir, "client.db"), transformResultNames: (name) => {
    renamed.push(name)
    return name.toUpperCase()
  } })
}))

layer(sqlite)("The driver's SQLite client", (it) => {
  it.effect("reads and writes as a client does, a transaction's writes kept or rolled back, row names transformed", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE kept (a INTEGER NOT NULL)`
      yield* sql`INSERT INTO kept (a) VALUES (${1})`
      yield* sql.withTransaction(sql`INSERT INTO kept (a) VALUES (${2})`)
      const failed = yield* Effect.exit(sql.withTransaction(Effect.zipRight(sql`INSERT INTO kept (a) VALUES (${3})`, Effect.fail("no"))))
      assert.strictEqual(failed._tag, "Failure")
      assert.deepStrictEqual(yield* sql`SELECT a FROM kept ORDER BY a`, [{ A: 1 }, { A: 2 }])
      assert.deepStrictEqual(yield* sql`SELECT a FROM kept ORDER BY a`.values, [[1], [2]])
      // a statement read as values reads rows again afterwards
      assert.deepStrictEqual(yield* sql`SELECT a FROM kept ORDER BY a`, [{ A: 1 }, { A: 2 }])
      assert.deepStrictEqual(yield* sql`SELECT a FROM kept ORDER BY a`.unprepared, [{ A: 1 }, { A: 2 }])
      assert.deepStrictEqual(Chunk.toReadonlyArray(yield* Stream.runCollect(sql`SELECT a FROM kept ORDER BY a`.stream)), [{ A: 1 }, { A: 2 }])
    }))

  it.effect("a kept statement sees a column added under it (SQLite prepares it again itself)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE widened (a INTEGER NOT NULL)`
      yield* sql`INSERT INTO widened (a) VALUES (1)`
      assert.deepStrictEqual(yield* sql`SELECT * FROM widened`, [{ A: 1 }])
      yield* sql`ALTER TABLE widened ADD COLUMN b INTEGER NOT NULL DEFAULT 2`
      assert.deepStrictEqual(yield* sql`SELECT * FROM widened`, [{ A: 1, B: 2 }])
    }))

  it.effect("a statement that fails to prepare or to run fails with a SqlError, and the next one runs", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE uniq (a INTEGER PRIMARY KEY)`
      const missing = yield* Effect.flip(sql`SELECT a FROM nowhere`)
      assert.instanceOf(missing, SqlError)
      assert.match(missing.message, /prepare/)
      yield* sql`INSERT INTO uniq (a) VALUES (1)`
      const twice = yield* Effect.flip(sql`INSERT INTO uniq (a) VALUES (1)`)
      assert.instanceOf(twice, SqlError)
      assert.match(twice.message, /execute/)
      assert.deepStrictEqual(yield* sql`SELECT a FROM uniq`, [{ A: 1 }])
    }))

  it.effect("a statement outside a transaction waits while one holds the connection, and sees only what it committed", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE held (a INTEGER NOT NULL)`
      const written = yield* Deferred.make<void>()
      const end = yield* Deferred.make<"commit" | "rollback">()
      const transaction = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO held (a) VALUES (1)`
        yield* Deferred.succeed(written, undefined)
        if ((yield* Deferred.await(end)) === "rollback") yield* Effect.fail("rolled back")
      })))
      yield* Deferred.await(written)
      const read = yield* Effect.fork(rows(sql<{ readonly A: number }>`SELECT a FROM held`))
      const clientRead = yield* Effect.fork(sql<{ readonly A: number }>`SELECT a FROM held`)
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      assert.isUndefined(read.unsafePoll() ?? undefined)
      assert.isUndefined(clientRead.unsafePoll() ?? undefined)
      yield* Deferred.succeed(end, "rollback")
      yield* Fiber.await(transaction)
      assert.deepStrictEqual(yield* Fiber.join(read), [])
      assert.deepStrictEqual(yield* Fiber.join(clientRead), [])
      yield* sql.withTransaction(sql`INSERT INTO held (a) VALUES (2)`)
      assert.deepStrictEqual(yield* rows(sql<{ readonly A: number }>`SELECT a FROM held`), [{ A: 2 }])
    }))

  it.effect("outside a transaction a statement takes the free connection in as many steps as a suspended value", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const acquirer = (sql`SELECT 1` as unknown as { readonly acquirer: SqlConnection.Connection.Acquirer }).acquirer
      const stepsOf = (effect: Effect.Effect<unknown, unknown>) =>
        Effect.suspend(() => {
          const steps = new Steps()
          const counted = Effect.withRuntimeFlagsPatch(effect, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision))
          return Effect.zipRight(Effect.supervised(counted, steps), steps.value)
        })
      // the statement's acquirer is `@effect/sql`'s: the transaction's connection looked up, else the client's
      const lookedUp = (free: Effect.Effect<unknown>) =>
        Effect.flatMap(
          Effect.serviceOption(SqlClient.TransactionConnection),
          Option.match({ onNone: () => free, onSome: ([conn]) => Effect.succeed(conn) })
        )
      assert.strictEqual(
        yield* stepsOf(Effect.scoped(acquirer)),
        yield* stepsOf(Effect.scoped(lookedUp(Effect.suspend(() => Effect.succeed(1)))))
      )
    }))

  it.effect("a reader whose text names its columns has them named once, not for every row it reads", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE named (a INTEGER NOT NULL, b_c TEXT, d BLOB)`
      yield* sql`INSERT INTO named (a, b_c, d) VALUES (1, 'x', NULL), (2, NULL, x'00ff'), (3, 'z', NULL)`
      renamed.length = 0
      const read = sql`SELECT a, b_c, d, a + 1 AS a FROM named WHERE a >= ${1} ORDER BY a`
      for (let i = 0; i < 5; i++) {
        assert.deepStrictEqual(yield* read, [
          { A: 2, B_C: "x", D: null },
          { A: 3, B_C: null, D: Buffer.from([0, 255]) },
          { A: 4, B_C: "z", D: null }
        ])
      }
      assert.deepStrictEqual(renamed, ["a", "b_c", "d", "a"])
      // the same rows as better-sqlite3 makes them: untransformed, and with a transform of their own
      assert.deepStrictEqual(yield* sql.withoutTransforms()`SELECT a, b_c FROM named WHERE a = ${2}`, [{ a: 2, b_c: null }])
      assert.deepStrictEqual(yield* sql`SELECT * FROM named WHERE a = ${3}`, [{ A: 3, B_C: "z", D: null }])
      assert.deepStrictEqual(yield* sql`SELECT a FROM named WHERE a = ${3}`.values, [[3]])
      assert.deepStrictEqual(yield* sql`SELECT a FROM named WHERE a = ${3}`, [{ A: 3 }])
    }))
})
