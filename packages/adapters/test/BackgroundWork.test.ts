import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"

/** Kassa's services in a scope the test closes itself. */
const opened = (dialect: Dialects.Dialect) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(TestKassa.layer(dialect, { webhooks: { run: false } }), scope)
    return { scope, tx: Context.get(context, Transactions), sql: Context.get(context, SqlClient.SqlClient) }
  })

for (const dialect of Dialects.dialects()) {
  it.live(`[${dialect}] closing the storage lets background work in flight finish on the open database`, () =>
    Effect.gen(function*() {
      const { scope, sql, tx } = yield* opened(dialect)
      const answered = yield* Ref.make<ReadonlyArray<unknown>>([])
      yield* tx.background(
        Effect.sleep("200 millis").pipe(
          Effect.zipRight(sql<{ answer: number }>`SELECT 42 AS answer`.pipe(Effect.orDie)),
          Effect.flatMap((rows) => Ref.set(answered, rows.map((r) => Number(r.answer))))
        )
      )
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* Ref.get(answered), [42])
    }), { timeout: 60_000 })

  it.live(`[${dialect}] background work still running after the grace period is interrupted, and closing ends`, () =>
    Effect.gen(function*() {
      const { scope, tx } = yield* opened(dialect)
      const interrupted = yield* Ref.make(false)
      yield* tx.background(Effect.never.pipe(Effect.onInterrupt(() => Ref.set(interrupted, true))))
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Ref.get(interrupted))
    }), { timeout: 60_000 })
}
