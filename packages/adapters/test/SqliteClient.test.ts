import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqliteClient from "../src/sql/driver/sqliteClient.js"

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

const sqlite = Layer.unwrapScoped(Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kassa-sqlite-client-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )
  return SqliteClient.layer({ filename: path.join(dir, "client.db"), transformResultNames: (name) => name.toUpperCase() })
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
})
