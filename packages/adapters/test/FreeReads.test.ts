import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Database from "@kassa/adapters/Database"
import * as Dialects from "@kassa/testing/Dialects"
import * as TestDatabase from "@kassa/testing/TestDatabase"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { rows } from "../src/sql/driver/reads.js"

// PostgreSQL's alone: SQLite's connection runs a statement at once, without a pool.
// One connection: a read that kept it would leave every later one waiting.
const store = Layer.unwrapScoped(
  Effect.map(TestDatabase.acquire("pg"), ({ database }) =>
    Database.layer({ ...database, maxConnections: 1 } as Database.DatabaseConfig))
)

/** `effect` as the server runs it: without tracing. */
const untraced = Effect.withTracerEnabled(false)

if (Dialects.dialects().includes("pg")) {
  layer(store, { timeout: 60_000 })("Reads outside of a transaction [pg]", (it) => {
    it.effect("an interrupted read gives its connection back to the pool once its statement has run", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const slow = yield* Effect.fork(untraced(rows(sql`SELECT pg_sleep(0.2) IS NULL AS slept`)))
        yield* Effect.yieldNow()
        const exit = yield* Fiber.interrupt(slow)
        assert.isTrue(Exit.isInterrupted(exit))
        assert.deepStrictEqual(yield* untraced(rows(sql<{ readonly one: number }>`SELECT 1 AS one`)), [{ one: 1 }])
      }))
  })
}
