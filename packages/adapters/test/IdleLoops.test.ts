/**
 * The background loops sleep while there is nothing to do: an idle Kassa issues no statements,
 * and what is written wakes them (the in-process signal; on PostgreSQL `LISTEN/NOTIFY` across
 * processes). The safety sweeps are set to ten minutes here, so only a signal can wake a loop
 * within a test.
 */
import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Database, Kassa } from "@kassa/adapters"
import { Ids, InvoiceService, WebhookService } from "@kassa/core"
import { Timers } from "@kassa/core/ports/Timers"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Webhook from "@kassa/core/webhook/Webhook"
import { Dialects, Fixtures, TestDatabase } from "@kassa/testing"
import * as Receiver from "@kassa/testing/WebhookReceiver"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as StatementCounting from "../src/sql/driver/Statements.js"

const SWEEP = "10 minutes"
const YEAR = 365 * 24 * 3_600_000

/** Where a test's Kassa lives, for a second process on the same database. */
class Place extends Context.Tag("test/Place")<Place, { readonly database: Database.DatabaseConfig; readonly dataDir: string }>() {}

const options = (place: Context.Tag.Service<Place>, run = true): Kassa.Options => ({
  ...place,
  scheduler: { pollInterval: SWEEP, lease: "10 seconds" },
  webhooks: { allowPrivateNetworks: true, pollInterval: SWEEP, run }
})

const stack = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), (place) =>
      Kassa.layer(options(place)).pipe(
        Layer.provideMerge(StatementCounting.layer),
        Layer.merge(Layer.succeed(Place, place))
      ))
  )

const total = Effect.map(StatementCounting.StatementCounts, (c) => [...c.snapshot().values()].reduce((a, b) => a + b, 0))

/** Until no statement has been sent for `quietMs` (real time; at most 20 s): the start's passes are over. */
const quiet = (quietMs = 600) =>
  Effect.gen(function*() {
    let last = yield* total
    for (let waited = 0; waited < 20_000; waited += quietMs) {
      yield* Effect.sleep(quietMs)
      const now = yield* total
      if (now === last) return now
      last = now
    }
    return yield* Effect.dieMessage(`still sending statements after 20 s (${last})`)
  })

const hookFor = (m: Fixtures.Merchant, url: string) =>
  Effect.gen(function*() {
    const service = yield* WebhookService.WebhookService
    const party = Ids.PartyID.make(m.partyID)
    const hook = yield* service.create(party, {
      scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: Webhook.InvoicesEventType.literals },
      url
    })
    yield* Effect.addFinalizer(() => service.delete(party, hook.id).pipe(Effect.ignore))
    return hook
  })

const newInvoice = (m: Fixtures.Merchant) =>
  Effect.gen(function*() {
    const invoices = yield* InvoiceService.InvoiceService
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* invoices.create(m.partyID, {
      shopID: m.shopID,
      dueDate: new Date(now + YEAR),
      amount: 1000,
      currency: "RUB",
      product: "Tea",
      metadata: { test: true }
    })
    return invoice
  }).pipe(Effect.orDie)

for (const dialect of Dialects.dialects()) {
  layer(stack(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Idle background loops [${dialect}]`, (it) => {
    // first in the file: no test has appended events yet
    it.scoped("a start with no deltas waiting: the search compactor's one look at them, no fold", () =>
      Effect.gen(function*() {
        yield* quiet()
        const counts = yield* StatementCounting.StatementCounts
        assert.strictEqual(counts.snapshot().get("search"), 1)
      }))

    it.scoped("an idle Kassa issues no statements", () =>
      Effect.gen(function*() {
        yield* quiet()
        const counts = yield* StatementCounting.StatementCounts
        const before = counts.snapshot()
        yield* Effect.sleep("2 seconds")
        const after = counts.snapshot()
        assert.deepStrictEqual([...after].filter(([work, n]) => n !== (before.get(work) ?? 0)), [])
      }))

    it.scoped("an event of a party without webhooks leaves the dispatcher asleep (SQLite: one look at the outbox)", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        yield* quiet()
        const counts = yield* StatementCounting.StatementCounts
        const before = counts.snapshot()
        yield* newInvoice(m)
        yield* quiet()
        const after = counts.snapshot()
        const sent = (work: string) => (after.get(work) ?? 0) - (before.get(work) ?? 0)
        assert.deepStrictEqual({ webhooks: sent("webhooks"), signals: sent("signals") }, {
          webhooks: dialect === "pg" ? 0 : 1,
          signals: 0
        })
      }))

    it.scoped("events appended wake the search rollups' compactor: their deltas are folded", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const m = yield* Fixtures.merchant()
        yield* quiet()
        const deltas = Effect.map(sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM search_deltas`, (rows) => Number(rows[0]!.n))
        yield* newInvoice(m)
        let left = -1
        // it lets a second's worth gather, then folds
        for (let waited = 0; waited < 10_000 && left !== 0; waited += 200) {
          yield* Effect.sleep("200 millis")
          left = yield* deltas
        }
        assert.strictEqual(left, 0)
      }))

    it.scoped("a timer set (in a transaction) while the scheduler sleeps fires when due", () =>
      Effect.gen(function*() {
        yield* quiet()
        const timers = yield* Timers
        const tx = yield* Transactions
        const kind = `idle-test-${Date.now()}`
        const fired = yield* Deferred.make<number>()
        yield* timers.register(kind, () => Effect.flatMap(Clock.currentTimeMillis, (now) => Deferred.succeed(fired, now)))
        const dueAt = (yield* Clock.currentTimeMillis) + 300
        yield* tx.withTransaction(timers.schedule({ kind, subject: "s", dueAt: new Date(dueAt), payload: null }))
        const at = yield* Deferred.await(fired).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "never fired" }))
        assert.isAtLeast(at, dueAt)
      }))

    it.scoped("a webhook created after the dispatcher went to sleep gets its deliveries", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        yield* quiet()
        const r = yield* Receiver.make
        yield* hookFor(m, r.urlFor("/late"))
        const invoice = yield* newInvoice(m)
        const got = yield* r.waitFor(1, { match: (x) => x.json.invoice?.id === invoice.id })
        assert.strictEqual(got[0]!.json.eventType, "InvoiceCreated")
      }))

    it.scoped("a failed delivery is retried when its retry is due, the dispatcher asleep meanwhile", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        yield* r.setDefault(500)
        yield* hookFor(m, r.urlFor("/retry"))
        const invoice = yield* newInvoice(m)
        const forInvoice = (x: Receiver.ReceivedRequest) => x.json.invoice?.id === invoice.id
        yield* r.waitFor(1, { match: forInvoice })
        yield* r.setDefault(200)
        // the first retry is 30 s after the first attempt (RetrySchedule)
        const got = yield* r.waitFor(2, { match: forInvoice, timeoutMs: 45_000 })
        assert.deepStrictEqual(got.map((x) => x.answeredStatus), [500, 200])
      }), 60_000)

    if (dialect === "pg") {
      it.scoped("two processes on one database: an event one commits wakes the other's dispatcher", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          yield* hookFor(m, r.urlFor("/other"))
          // another process on the database, with no dispatcher of its own: the suite's one, with
          // signals of its own, can hear of its event only through PostgreSQL
          const other = yield* Layer.build(Kassa.layer(options(yield* Place, false)))
          yield* quiet()
          const invoice = yield* newInvoice(m).pipe(Effect.provide(other))
          const got = yield* r.waitFor(1, { match: (x) => x.json.invoice?.id === invoice.id })
          assert.strictEqual(got[0]!.json.eventType, "InvoiceCreated")
        }))
    }
  })
}
