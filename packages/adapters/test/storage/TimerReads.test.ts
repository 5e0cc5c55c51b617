import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { RandomIds, SqlTimers } from "@kassa/adapters"
import { Timers } from "@kassa/core/ports/Timers"
import { TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

// SQLite's alone: without statistics it reads `kind IN (…)` through the primary key, every timer
// of the kinds (a filled store's invoice due dates made each pass, and so each start, read them
// all); PostgreSQL plans by its statistics.
layer(TestKassa.layer("sqlite", { webhooks: { run: false } }), { timeout: "60 seconds" })("Timer scheduler's reads [sqlite]", (it) => {
  it.scoped("a scheduler pass reads the timers through timers_due (by due time), both its due timers and its next due time", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sent: Array<readonly [string, ReadonlyArray<unknown>]> = []
      const passDone = yield* Deferred.make<void>()
      // a scheduler of its own, built under the transformer: its fiber inherits it and tells its statements
      const context = yield* Layer.build(SqlTimers.layer({ pollInterval: "1 hour" })).pipe(
        Statement.withTransformer((statement) => {
          const compiled = statement.compile()
          if (compiled[0].includes("FROM timers")) {
            sent.push(compiled)
            if (compiled[0].includes("MIN(")) Deferred.unsafeDone(passDone, Effect.void)
          }
          return Effect.succeed(statement)
        })
      )
      const timers = Context.get(context, Timers)
      yield* timers.schedule({ kind: `r-${RandomIds.make()}`, subject: "later", dueAt: new Date(Date.now() + 86_400_000), payload: null })
      // a handler registered wakes the scheduler: one pass
      yield* timers.register(`r-${RandomIds.make()}`, () => Effect.void)
      yield* Deferred.await(passDone).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "no pass" }))
      const reads = [...new Map(sent.map((s) => [s[0], s] as const)).values()]
      assert.isTrue(reads.some(([text]) => text.includes("ORDER BY due_at LIMIT")), "the due timers' read")
      assert.isTrue(reads.some(([text]) => text.includes("MIN(")), "the next due time's read")
      for (const [text, params] of reads) {
        const plan = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)
        const onTimers = plan.filter((row) => /\btimers\b/.test(row.detail))
        assert.isAbove(onTimers.length, 0, text)
        for (const row of onTimers) assert.include(row.detail, "USING INDEX timers_due", text)
      }
    }))
})
