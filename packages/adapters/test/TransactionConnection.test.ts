import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import { heldWrites } from "../src/sql/driver/writes.js"

const context = FiberRef.get(FiberRef.currentContext)

/** `effect` untraced: a traced transaction puts its span in the context too. */
const untraced = Effect.withTracerEnabled(false)

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(
    `A transaction's connection in the context [${dialect}]`,
    (it) => {
      it.effect("is put in a context built once for the fiber's context: transactions that follow one another share it", () =>
        Effect.gen(function*() {
          const tx = yield* Transactions
          const sql = yield* SqlClient.SqlClient
          const outside = yield* context
          const first = yield* tx.withTransaction(Effect.zipLeft(context, sql`SELECT 1`))
          // (and leaves the fiber's own as it was, not a copy: SQLite's releases its connection so)
          assert.strictEqual(yield* context, outside)
          const second = yield* tx.withTransaction(Effect.zipLeft(context, sql`SELECT 1`))
          assert.isTrue(Context.getOption(first, SqlClient.TransactionConnection)._tag === "Some")
          assert.strictEqual(first, second)
          assert.isTrue(Context.getOption(yield* context, SqlClient.TransactionConnection)._tag === "None")
        }).pipe(untraced))

      it.effect("runs a statement of a fiber that has its context but no transaction of its own on no connection: it dies", () =>
        Effect.gen(function*() {
          const tx = yield* Transactions
          const sql = yield* SqlClient.SqlClient
          const exit = yield* tx.withTransaction(Effect.exit(Effect.locally(sql`SELECT 1`, heldWrites, undefined)))
          assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Die", String(exit))
        }))

      if (dialect === "pg") {
        it.effect("concurrent transactions, sharing the context, each run their statements on their own connection", () =>
          Effect.gen(function*() {
            const tx = yield* Transactions
            const sql = yield* SqlClient.SqlClient
            const pid = Effect.map(sql<{ readonly pid: number }>`SELECT pg_backend_pid() AS pid`, ([row]) => row!.pid)
            const inside = yield* Deferred.make<void>()
            const entered = yield* Deferred.make<void>()
            // each takes its connection, then waits until the other has its own too
            const [a, b] = yield* Effect.all([
              tx.withTransaction(Effect.gen(function*() {
                const before = yield* pid
                yield* Deferred.succeed(entered, undefined)
                yield* Deferred.await(inside)
                return { before, after: yield* pid, context: yield* context }
              })),
              tx.withTransaction(Effect.gen(function*() {
                const before = yield* pid
                yield* Deferred.await(entered)
                yield* Deferred.succeed(inside, undefined)
                return { before, after: yield* pid, context: yield* context }
              }))
            ], { concurrency: 2 })
            assert.strictEqual(a.before, a.after)
            assert.strictEqual(b.before, b.after)
            assert.notStrictEqual(a.before, b.before)
            assert.strictEqual(a.context, b.context)
          }).pipe(untraced))
      }
    }
  )
}
