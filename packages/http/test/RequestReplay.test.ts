import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it, layer } from "@effect/vitest"
import { Kassa, Statements, TokenKeys } from "@kassa/adapters"
import { ApiKeyService } from "@kassa/core"
import * as ReplayKeys from "@kassa/http/server/ReplayKeys"
import { Dialects, Fixtures, TestDatabase, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"

/**
 * `X-Request-ID` replay: a mutating request repeated by the same caller with the same id,
 * method, path and body within 24 h answers the first answer again without running again.
 */

const HOUR = 3_600_000
const DAY = 24 * HOUR

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const post = (path: string, token: string, requestId: string, body: unknown) =>
  TestServer.raw("POST", path, {
    headers: { "x-request-id": requestId, authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })

const invoiceBody = (shopID: string, product = "Tea", dueIn = DAY) =>
  Effect.map(Clock.currentTimeMillis, (now) => ({
    shopID,
    dueDate: new Date(now + dueIn).toISOString(),
    amount: 1000,
    currency: "RUB",
    product,
    metadata: {}
  }))

const createInvoice = (token: string, requestId: string, body: unknown) =>
  post("/v2/processing/invoices", token, requestId, body)

const count = (table: "invoices" | "payments" | "events", partyID: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT COUNT(*) AS n FROM ${sql(table)} WHERE party_id = ${partyID}`.pipe(
      Effect.map((rows) => Number((rows[0] as { n: unknown }).n)),
      Effect.orDie
    ))

/** Rows of request_replays: those without an answer yet, those claimed at or before `claimedBy`. */
const replayRows = (where: { readonly unanswered?: boolean; readonly claimedBy?: number } = {}) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT COUNT(*) AS n FROM request_replays WHERE ${
      sql.and([
        ...(where.unanswered === true ? [sql`status IS NULL`] : []),
        ...(where.claimedBy === undefined ? [] : [sql`created_at <= ${where.claimedBy}`])
      ])
    }`.pipe(Effect.map((rows) => Number((rows[0] as { n: unknown }).n)), Effect.orDie))

/** Polls (real time, 2 s at most) until `count` is 0: answers are stored off the request's path. */
const untilNone = (count: Effect.Effect<number, never, SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    let n = yield* count
    for (let i = 0; i < 100 && n > 0; i++) {
      yield* sleepReal(20)
      n = yield* count
    }
    return n
  })

let cards = 0
/** A card number no other test uses (what a card paid before is remembered), authorised. */
const freshCard = () => {
  const digits = `4${String(process.pid % 100_000).padStart(5, "0")}${String(++cards).padStart(9, "0")}`
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits[digits.length - 1 - i])
    sum += i % 2 === 0 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d
  }
  return digits + String((10 - (sum % 10)) % 10)
}

/** A new invoice's createPayment path, and a createPayment body with a tokenized card. */
const paymentOf = (m: { readonly apiKey: string; readonly shopID: string }, cardNumber = "4242424242424242") =>
  Effect.gen(function*() {
    const created = yield* createInvoice(m.apiKey, TestServer.requestId(), yield* invoiceBody(m.shopID))
    const resource = yield* post("/v2/processing/payment-resources", m.apiKey, TestServer.requestId(), {
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "device-1" }
    })
    assert.deepStrictEqual([created.status, resource.status], [201, 201])
    const body = {
      flow: { type: "PaymentFlowInstant" },
      payer: {
        payerType: "PaymentResourcePayer",
        paymentToolToken: resource.json.paymentToolToken,
        paymentSession: resource.json.paymentSession,
        contactInfo: {}
      },
      makeRecurrent: false
    }
    return { body, path: `/v2/processing/invoices/${created.json.invoice.id}/payments` }
  })

/** Polls (real time, 5 s at most) until the payment at `path` is captured; answers its status. */
const captured = (token: string, path: string) =>
  Effect.gen(function*() {
    let status = ""
    for (let i = 0; i < 250 && status !== "captured"; i++) {
      if (i > 0) yield* sleepReal(20)
      const read = yield* TestServer.raw("GET", path, { headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` } })
      status = read.json.status
    }
    return status
  })

const statementsOf = (work: string) =>
  Effect.map(Statements.StatementCounts, (counts) => counts.snapshot().get(work) ?? 0)

/** The test server on a database the test keeps, to start it twice on it. */
const serverOn = (database: Kassa.Options["database"], dataDir: string, signingKey: string) =>
  TestServer.serving(Kassa.layer({ database, dataDir, signingKey, scheduler: { pollInterval: "1 minute", lease: "10 seconds" } }))

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect).pipe(Layer.provideMerge(Statements.layer)), { timeout: "60 seconds" })(
    `RequestReplay [${dialect}]`,
    (it) => {
      it.effect("a retry with the same X-Request-ID and body answers the first answer, with no second invoice or event", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const body = yield* invoiceBody(m.shopID)
          const first = yield* createInvoice(m.apiKey, "replay-1", body)
          assert.strictEqual(first.status, 201)
          const events = yield* count("events", m.partyID)
          const again = yield* createInvoice(m.apiKey, "replay-1", body)
          assert.strictEqual(again.status, 201)
          // the same invoice and the same access token, byte for byte
          assert.strictEqual(again.text, first.text)
          assert.strictEqual(yield* count("invoices", m.partyID), 1)
          assert.strictEqual(yield* count("events", m.partyID), events)
          // the stored answer is sealed: neither the access token nor the API key shows in the store
          assert.strictEqual(yield* untilNone(replayRows({ unanswered: true })), 0)
          const stored = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ readonly key: string; readonly body: string }>`SELECT key, body FROM request_replays`.pipe(Effect.orDie))
          const text = JSON.stringify(stored)
          assert.notInclude(text, first.json.invoiceAccessToken.payload)
          assert.notInclude(text, first.json.invoice.id)
          assert.notInclude(text, m.apiKey)
          // a /v1 path is the same request as its /v2 twin only if it is the same path: it is not
          const v1 = yield* post("/v1/processing/invoices", m.apiKey, "replay-1", body)
          assert.strictEqual(v1.status, 201)
          assert.notStrictEqual(v1.json.invoice.id, first.json.invoice.id)
        }))

      it.effect("createPayment replays its 201 as first answered, though the payment has since been captured", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const { body, path } = yield* paymentOf(m)
          const first = yield* post(path, m.apiKey, "pay-1", body)
          assert.strictEqual(first.status, 201)
          assert.strictEqual(first.json.status, "pending")
          assert.strictEqual(yield* captured(m.apiKey, `${path}/${first.json.id}`), "captured")
          const again = yield* post(path, m.apiKey, "pay-1", body)
          assert.strictEqual(again.status, 201)
          assert.strictEqual(again.text, first.text)
          assert.strictEqual(yield* count("payments", m.partyID), 1)
        }))

      it.effect("the same X-Request-ID with another body is another request", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const first = yield* createInvoice(m.apiKey, "page-load-1", yield* invoiceBody(m.shopID, "Tea"))
          const other = yield* createInvoice(m.apiKey, "page-load-1", yield* invoiceBody(m.shopID, "Coffee"))
          assert.deepStrictEqual([first.status, other.status], [201, 201])
          assert.notStrictEqual(other.json.invoice.id, first.json.invoice.id)
          assert.strictEqual(other.json.invoice.product, "Coffee")
          assert.strictEqual(yield* count("invoices", m.partyID), 2)
        }))

      it.effect("the same X-Request-ID and body from another API key of the party is another request", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const second = yield* Effect.flatMap(ApiKeyService.ApiKeyService, (keys) => keys.issue(m.partyID))
          const body = yield* invoiceBody(m.shopID)
          const first = yield* createInvoice(m.apiKey, "shop-1", body)
          const other = yield* createInvoice(second.token, "shop-1", body)
          assert.deepStrictEqual([first.status, other.status], [201, 201])
          assert.notStrictEqual(other.json.invoice.id, first.json.invoice.id)
          assert.strictEqual(yield* count("invoices", m.partyID), 2)
        }))

      it.effect("the operator's requests are replayed too, and only those with an X-Request-ID", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const operator = yield* Fixtures.operatorToken
          const issue = (headers: Record<string, string>) =>
            TestServer.raw("POST", `/admin/v1/parties/${m.partyID}/api-keys`, {
              headers: { authorization: `Bearer ${operator}`, ...headers }
            })
          const keys = Effect.map(
            TestServer.raw("GET", `/admin/v1/parties/${m.partyID}/api-keys`, { headers: { authorization: `Bearer ${operator}` } }),
            (listed) => listed.json.length
          )
          const first = yield* issue({ "x-request-id": "issue-1" })
          assert.strictEqual(first.status, 201)
          assert.strictEqual((yield* issue({ "x-request-id": "issue-1" })).text, first.text)
          assert.strictEqual(yield* keys, 2)
          // without one, each request is a new one
          assert.strictEqual((yield* issue({})).status, 201)
          assert.strictEqual((yield* issue({})).status, 201)
          assert.strictEqual(yield* keys, 4)
        }))

      it.effect("two identical requests at once: one runs, both get its answer", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const body = yield* invoiceBody(m.shopID)
          const [a, b] = yield* Effect.all([createInvoice(m.apiKey, "twin-1", body), createInvoice(m.apiKey, "twin-1", body)], {
            concurrency: 2
          })
          assert.deepStrictEqual([a.status, b.status], [201, 201])
          assert.strictEqual(b.text, a.text)
          assert.strictEqual(yield* count("invoices", m.partyID), 1)
        }))

      it.effect("a request whose first run committed but whose answer was lost (a crash) is not run again", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const body = JSON.stringify(yield* invoiceBody(m.shopID))
          // what a process that died after the first run's commit, before storing its answer, leaves
          const keys = ReplayKeys.derive({
            requestId: "crashed-1",
            authorization: `Bearer ${m.apiKey}`,
            method: "POST",
            url: "/v2/processing/invoices",
            body
          })
          const now = yield* Clock.currentTimeMillis
          yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql`INSERT INTO request_replays (key, created_at) VALUES (${keys.id}, ${now})`.pipe(Effect.orDie))
          const retry = yield* TestServer.raw("POST", "/v2/processing/invoices", {
            headers: { "x-request-id": "crashed-1", authorization: `Bearer ${m.apiKey}` },
            body
          })
          assert.strictEqual(retry.status, 500)
          assert.match(retry.json.message, /answer was lost/)
          assert.strictEqual(yield* count("invoices", m.partyID), 0)
        }))

      it.effect("a refusal that changed nothing is not replayed: the retry after its cause is fixed runs", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* TestServer.client(m.apiKey)
          const body = yield* invoiceBody(m.shopID)
          yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
          const refused = yield* createInvoice(m.apiKey, "checkout-1", body)
          assert.strictEqual(refused.status, 400)
          assert.strictEqual(refused.json.code, "invalidShopStatus")
          yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
          const created = yield* createInvoice(m.apiKey, "checkout-1", body)
          assert.strictEqual(created.status, 201)
          // and that answer is the one replayed now
          assert.strictEqual((yield* createInvoice(m.apiKey, "checkout-1", body)).text, created.text)
          assert.strictEqual(yield* count("invoices", m.partyID), 1)
        }))

      it.effect("an answer is replayed for 24 hours, then the same request runs again", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const body = yield* invoiceBody(m.shopID, "Tea", 3 * DAY)
          const first = yield* createInvoice(m.apiKey, "day-1", body)
          assert.strictEqual(first.status, 201)
          yield* TestClock.adjust(DAY - 1000)
          assert.strictEqual((yield* createInvoice(m.apiKey, "day-1", body)).text, first.text)
          yield* TestClock.adjust(2000)
          const later = yield* createInvoice(m.apiKey, "day-1", body)
          assert.strictEqual(later.status, 201)
          assert.notStrictEqual(later.json.invoice.id, first.json.invoice.id)
          assert.strictEqual(yield* count("invoices", m.partyID), 2)
          // and that answer is replayed in turn
          assert.strictEqual((yield* createInvoice(m.apiKey, "day-1", body)).text, later.text)
          assert.strictEqual(yield* count("invoices", m.partyID), 2)
        }))

      it.effect("rows older than 24 hours are swept as later answers are stored", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          assert.strictEqual((yield* createInvoice(m.apiKey, "old-1", yield* invoiceBody(m.shopID, "Tea", 3 * DAY))).status, 201)
          assert.strictEqual(yield* untilNone(replayRows({ unanswered: true })), 0)
          yield* TestClock.adjust(DAY + 1000)
          const cutoff = (yield* Clock.currentTimeMillis) - DAY
          assert.isAtLeast(yield* replayRows({ claimedBy: cutoff }), 1)
          assert.strictEqual((yield* createInvoice(m.apiKey, "new-1", yield* invoiceBody(m.shopID))).status, 201)
          assert.strictEqual(yield* untilNone(replayRows({ claimedBy: cutoff })), 0)
        }))
    }
  )

  // On a server of their own: what earlier tests did (the clock moved, caches filled) changes
  // no count; nor does a recovery timer firing while a loaded machine is slow to process.
  layer(
    TestServer.layer(dialect, { settings: { recoveryDelayMs: 600_000 } }).pipe(Layer.provideMerge(Statements.layer)),
    { timeout: "60 seconds" }
  )(
    `RequestReplay statements [${dialect}]`,
    (it) => {
      it.effect("createInvoice sends no more statements than without replay", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          // the first request warms the caches (API key, shop, terms)
          assert.strictEqual((yield* createInvoice(m.apiKey, TestServer.requestId(), yield* invoiceBody(m.shopID))).status, 201)
          const before = yield* statementsOf("createInvoice")
          assert.strictEqual((yield* createInvoice(m.apiKey, TestServer.requestId(), yield* invoiceBody(m.shopID))).status, 201)
          const sent = (yield* statementsOf("createInvoice")) - before
          assert.strictEqual(sent, BASELINE[dialect] + CLAIM[dialect])
        }))

      it.effect("createPayment, with the processing it starts, sends no more statements than without replay", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          // the first payment warms the caches (terms, card vault keys)
          const warm = yield* paymentOf(m, freshCard())
          const warmed = yield* post(warm.path, m.apiKey, TestServer.requestId(), warm.body)
          assert.strictEqual(yield* captured(m.apiKey, `${warm.path}/${warmed.json.id}`), "captured")
          const { body, path } = yield* paymentOf(m, freshCard())
          const before = yield* statementsOf("createPayment")
          const created = yield* post(path, m.apiKey, TestServer.requestId(), body)
          assert.strictEqual(created.status, 201)
          assert.strictEqual(yield* captured(m.apiKey, `${path}/${created.json.id}`), "captured")
          const sent = (yield* statementsOf("createPayment")) - before
          assert.strictEqual(sent, PAYMENT_BASELINE[dialect] + CLAIM[dialect])
        }))
    }
  )

  // Several servers share a PostgreSQL database; a SQLite file has one server (its one writer).
  if (dialect === "pg") {
    describe(`RequestReplay on one database shared by two servers [${dialect}]`, () => {
      it.scoped("two identical requests at once, one to each server: one runs, both get its answer", () =>
        Effect.gen(function*() {
          const { database, dataDir } = yield* TestDatabase.acquire(dialect)
          const server = serverOn(database, dataDir, TokenKeys.generatePem())
          const one = yield* Layer.build(server)
          const two = yield* Layer.build(server.pipe(Layer.fresh))
          const m = yield* Effect.provide(Fixtures.merchant(), one)
          const body = yield* invoiceBody(m.shopID)
          const [a, b] = yield* Effect.all([
            Effect.provide(createInvoice(m.apiKey, "twin-2", body), one),
            Effect.provide(createInvoice(m.apiKey, "twin-2", body), two)
          ], { concurrency: 2 })
          assert.deepStrictEqual([a.status, b.status], [201, 201])
          assert.strictEqual(b.text, a.text)
          assert.strictEqual(yield* Effect.provide(count("invoices", m.partyID), one), 1)
        }), { timeout: 60_000 })
    })
  }

  describe(`RequestReplay across a restart [${dialect}]`, () => {
    it.scoped("a retry after the server restarted on the same database answers the first answer", () =>
      Effect.gen(function*() {
        const { database, dataDir } = yield* TestDatabase.acquire(dialect)
        const server = serverOn(database, dataDir, TokenKeys.generatePem())
        const run = <A, E, R>(scope: Scope.Scope, effect: Effect.Effect<A, E, R>) =>
          Effect.flatMap(Layer.buildWithScope(server, scope), (context) => Effect.provide(effect, context as any)) as Effect.Effect<A, E>

        const firstProcess = yield* Scope.make()
        const { m, body, first } = yield* run(
          firstProcess,
          Effect.gen(function*() {
            const m = yield* Fixtures.merchant()
            const body = yield* invoiceBody(m.shopID)
            const first = yield* createInvoice(m.apiKey, "restart-1", body)
            return { m, body, first }
          })
        )
        assert.strictEqual(first.status, 201)
        yield* Scope.close(firstProcess, Exit.void)

        const secondProcess = yield* Scope.make()
        yield* run(
          secondProcess,
          Effect.gen(function*() {
            const again = yield* createInvoice(m.apiKey, "restart-1", body)
            assert.strictEqual(again.status, 201)
            assert.strictEqual(again.text, first.text)
            assert.strictEqual(yield* count("invoices", m.partyID), 1)
          })
        ).pipe(Effect.ensuring(Scope.close(secondProcess, Exit.void)))
      }), { timeout: 60_000 })
  })
}

/**
 * createInvoice's statements (API key and shop known) before `X-Request-ID` replay existed (SQLite:
 * less one since an event's outbox row is written by the event's insert).
 */
const BASELINE: Record<Dialects.Dialect, number> = { sqlite: 3, pg: 1 }
/**
 * What the claim of a request's key adds: on PostgreSQL it goes in the statement of the request's
 * writes; on SQLite it is one more insert on the group commit's connection (in-process, no round
 * trip).
 */
/**
 * createPayment's, with the processing to its capture, before `X-Request-ID` replay existed (on
 * SQLite, less three reads since an event is numbered by the insert that writes it; on
 * PostgreSQL, less one since the capture's ledger commit locks its plan and accounts in one read,
 * and three since a step's versioned update goes in the statement of its other writes or of its
 * next locking read), less what an instant payment's authorisation and capture save by committing
 * together (SQLite four, PostgreSQL one), (PostgreSQL) one since the ledger's hold and commit in
 * that commit move the accounts in one update, and one since that commit settles the invoice as
 * the payment's creation wrote it, without reading it; (both) one since the payment's invoice
 * and its payment resource are read in one statement; and (SQLite) two since that commit reads
 * the plan and the accounts its hold read and wrote no more, two since an event's outbox row
 * is written by the event's insert, one since a hold on a plan its unit opened checks the
 * accounts its update answers, and two since that plan is posted at once (`Ledger.post`).
 */
const PAYMENT_BASELINE: Record<Dialects.Dialect, number> = { sqlite: 17, pg: 8 }
const CLAIM: Record<Dialects.Dialect, number> = { sqlite: 1, pg: 0 }
