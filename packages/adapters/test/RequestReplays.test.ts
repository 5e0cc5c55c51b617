import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { RandomIds } from "@kassa/adapters"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as SqlRequestReplays from "../src/SqlRequestReplays.js"

const hours = SqlRequestReplays.replayHours * 3_600_000

/** A request of its own fiber that claims `claim` with the one write it makes. */
const request = (claim: SqlRequestReplays.Claim) =>
  Effect.gen(function*() {
    const tx = yield* Transactions
    const log = yield* EventLog
    yield* SqlRequestReplays.claim(claim)
    yield* tx.withTransaction(
      log.append({ aggregateType: "invoice", aggregateID: `inv-${RandomIds.make()}`, partyID: "p", changes: ["x"] })
    )
  }).pipe(Effect.fork, Effect.flatMap((fiber) => fiber.await))

/** A process's replay store over the test's database, open until `scope` closes. */
const replays = (scope: Scope.Scope) =>
  Layer.buildWithScope(SqlRequestReplays.layer, scope).pipe(Effect.map(Context.get(SqlRequestReplays.RequestReplays)))

const run = (start: SqlRequestReplays.Start) => {
  assert.strictEqual(start._tag, "Run")
  return (start as Extract<SqlRequestReplays.Start, { _tag: "Run" }>).claim
}

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`RequestReplays [${dialect}]`, (it) => {
    it.effect("an answer still queued when its key expired and was claimed again goes to its own claim only", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const key = `k-${RandomIds.make()}`
        const t0 = 1_700_000_000_000
        const firstScope = yield* Scope.make()
        const secondScope = yield* Scope.make()
        const first = yield* replays(firstScope)
        const second = yield* replays(secondScope)

        // the first request, in one process, commits its claim; its answer is not queued yet
        const a = run(first.start(key, t0))
        assert.isTrue(Exit.isSuccess(yield* request(a)))

        // 24 hours on, another process gets the key: taken, expired (deleted), claimed again
        const b = run(second.start(key, t0 + hours))
        const taken = yield* request(b)
        assert.isTrue(Exit.isFailure(taken) && SqlRequestReplays.isDuplicate(taken.cause))
        assert.deepStrictEqual(yield* second.stored(b, "now"), { _tag: "Expired" })
        assert.isTrue(Exit.isSuccess(yield* request(b)))

        // the first process now stores its answer (closing stores what is queued)
        first.finish(a, Option.some({ status: 201, body: "first" }))
        yield* Scope.close(firstScope, Exit.void)
        assert.deepStrictEqual(yield* second.stored(b, "now"), { _tag: "Lost" })

        second.finish(b, Option.some({ status: 201, body: "second" }))
        yield* Scope.close(secondScope, Exit.void)
        const rows = yield* sql<{ createdAt: number | string; status: number; body: string }>`
          SELECT created_at, status, body FROM request_replays WHERE key = ${key}`
        assert.deepStrictEqual(rows.map((r) => [Number(r.createdAt), r.status, r.body]), [[t0 + hours, 201, "second"]])
      }))
  })
}
