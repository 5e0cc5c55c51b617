import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Kassa, TestAcquirer, TokenKeys } from "@kassa/adapters"
import { InvoiceService, PaymentService, RefundService } from "@kassa/core"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import { Dialects, Fixtures, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"

/**
 * The recovery backoff survives a restart: a refund the acquirer keeps failing is retried with
 * growing waits; the process dies, and the restarted one goes on from the attempt the timer's
 * stored count says (neither starting the backoff over nor retrying twice).
 */

const FIRST = 200

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** The test acquirer, except that every refund call dies (a dropped connection); counted. */
const refundCalls = { count: 0 }
const failingRefunds = Layer.effect(
  Acquirer,
  Effect.map(Acquirer, (a) => ({
    ...a,
    refund: () =>
      Effect.suspend(() => {
        refundCalls.count++
        return Effect.dieMessage("acquirer unreachable")
      })
  }))
).pipe(Layer.provide(TestAcquirer.layer))

const waitFor = <A, E, R>(what: string, read: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    const until = Date.now() + 15_000
    let a = yield* read
    while (!done(a)) {
      if (Date.now() > until) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* sleepReal(10)
      a = yield* read
    }
    return a
  })

/** The refund's recovery timer as stored: its attempt count and when it is due. */
const storedTimer = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Record<string, unknown>>`SELECT due_at, payload FROM timers WHERE kind = 'refund.advance'`.pipe(
    Effect.orDie
  )
  if (rows.length === 0) return undefined
  const row = rows[0]!
  const raw = row.payload
  const payload = typeof raw === "string" ? JSON.parse(raw) : raw
  return { attempt: (payload as { attempt?: number } | null)?.attempt ?? 0, dueAt: Number(row.due_at ?? row.dueAt) }
})

for (const dialect of Dialects.dialects()) {
  describe(`Recovery backoff across a restart [${dialect}]`, () => {
    it.live(
      "a refund's retry count and wait carry over to the restarted process",
      () =>
        Effect.gen(function*() {
          refundCalls.count = 0
          const { database, dataDir } = yield* TestDatabase.acquire(dialect)
          const layer = Kassa.layer({
            database,
            dataDir,
            signingKey: TokenKeys.generatePem(),
            scheduler: { pollInterval: "20 millis", lease: "2 seconds" },
            settings: { recoveryDelayMs: FIRST, recoveryMaxDelayMs: 60_000 },
            acquirer: failingRefunds
          })
          const run = <A, E, R>(scope: Scope.Scope, effect: Effect.Effect<A, E, R>) =>
            Effect.flatMap(Layer.buildWithScope(layer, scope), (context) => Effect.provide(effect, context)).pipe(
              Logger.withMinimumLogLevel(LogLevel.None)
            )

          // the first process: a captured payment, a refund retried at 0, 200, 400 and 800 ms
          const first = yield* Scope.make()
          const before = yield* run(
            first,
            Effect.gen(function*() {
              const m = yield* Fixtures.merchant()
              const { invoice } = yield* (yield* InvoiceService.InvoiceService).create(m.partyID, {
                shopID: m.shopID,
                dueDate: new Date(Date.now() + 86_400_000),
                amount: 1_000,
                currency: "RUB",
                product: "Tea",
                metadata: {}
              })
              const payment = yield* Fixtures.pay(m, invoice.id)
              const payments = yield* PaymentService.PaymentService
              yield* waitFor(
                "the capture",
                Effect.map(payments.get(m.partyID, invoice.id, payment.id), (p) => p.status),
                (s) => s === "captured"
              )
              yield* (yield* RefundService.RefundService).create(m.partyID, invoice.id, payment.id, { amount: 500 })
              yield* waitFor("four refund calls", Effect.sync(() => refundCalls.count), (n) => n >= 4)
              // the timer's move commits with its firing, the call it starts may come first
              return yield* waitFor("the fourth call's timer", storedTimer, (t) => (t?.attempt ?? 0) >= 3)
            })
          )
          yield* Scope.close(first, Exit.interrupt(FiberId.none))
          assert.strictEqual(refundCalls.count, 4)
          assert.strictEqual(before?.attempt, 3, "three retries made, counted with the timer")

          // the restarted process fires the stored timer once, then waits the fourth retry's backoff
          const second = yield* Scope.make()
          const after = yield* run(
            second,
            Effect.gen(function*() {
              yield* waitFor("the fifth refund call", Effect.sync(() => refundCalls.count), (n) => n >= 5)
              return yield* waitFor("the fifth call's timer", storedTimer, (t) => (t?.attempt ?? 0) >= 4)
            })
          ).pipe(Effect.ensuring(Scope.close(second, Exit.void)))
          assert.strictEqual(refundCalls.count, 5, "the restart retried once")
          assert.strictEqual(after?.attempt, 4)
          assert.isAtLeast(after!.dueAt - before!.dueAt, FIRST * 8, "the wait after the fourth retry: 200 ms doubled three times")
        }).pipe(Effect.scoped),
      60_000
    )
  })
}
