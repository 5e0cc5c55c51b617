import { assert, layer } from "@effect/vitest"
import * as Statement from "@effect/sql/Statement"
import { Statements } from "@kassa/adapters"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"

const statementsOf = (metrics: string, work: string) => {
  const line = metrics.split("\n").find((l) => l.startsWith(`kassa_sql_statements_total{work="${work}"} `))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

const get = (path: string, token?: string) =>
  TestServer.raw("GET", path, {
    headers: { "x-request-id": TestServer.requestId(), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) }
  })

/** The statements sent, with the work they were for. */
const recorded: Array<readonly [work: string, text: string]> = []
// (`StatementCounts` there has the server tag each request's statements with its operation)
const recording = Layer.merge(
  Statement.setTransformer((statement, _sql, refs) => {
    recorded.push([FiberRefs.getOrDefault(refs, Statements.currentWork), statement.compile()[0]])
    return Effect.succeed(statement)
  }),
  Layer.succeed(Statements.StatementCounts, { snapshot: () => new Map() })
)

/**
 * The statements of `work` from `from` on, but the ledger's lookups of an account id it does not
 * keep yet, whose count depends on the machine's other work (it keeps one once the account's row
 * is older than the transaction). A shop's terms, kept a second in real time, are read as the
 * work `cache`.
 */
const sentFor = (work: string, from: number) =>
  recorded.slice(from).filter(([w, text]) => w === work && !/AS committed FROM ledger_accounts/.test(text)).map(([, text]) => text)

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Polls `path` (real time, at most 5 s) until its `status` is `status`. */
const reaches = (token: string, path: string, status: string) =>
  Effect.gen(function*() {
    let seen = ""
    for (let i = 0; i < 250 && seen !== status; i++) {
      if (i > 0) yield* sleepReal(20)
      seen = (yield* get(path, token)).json.status
    }
    return seen
  })

const post = (path: string, token: string, body: unknown) =>
  TestServer.raw("POST", path, {
    headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })

/**
 * A payment by card of a new invoice, instant (answered once captured) or held (once processed);
 * answers its path and where its statements start.
 */
const cardPayment = (m: Fixtures.Merchant, flow: "instant" | "hold" = "instant") =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const invoice = yield* post("/v2/processing/invoices", m.apiKey, {
      shopID: m.shopID,
      dueDate: new Date(now + 86_400_000).toISOString(),
      amount: 10_000,
      currency: "RUB",
      product: "Tea",
      metadata: {}
    })
    const resource = yield* post("/v2/processing/payment-resources", m.apiKey, {
      paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "device-1" }
    })
    const from = recorded.length
    const payment = yield* post(`/v2/processing/invoices/${invoice.json.invoice.id}/payments`, m.apiKey, {
      flow: flow === "instant" ? { type: "PaymentFlowInstant" } : { type: "PaymentFlowHold", onHoldExpiration: "cancel" },
      payer: {
        payerType: "PaymentResourcePayer",
        paymentToolToken: resource.json.paymentToolToken,
        paymentSession: resource.json.paymentSession,
        contactInfo: {}
      }
    })
    assert.strictEqual(payment.status, 201)
    const path = `/v2/processing/invoices/${invoice.json.invoice.id}/payments/${payment.json.id}`
    const status = flow === "instant" ? "captured" : "processed"
    assert.strictEqual(yield* reaches(m.apiKey, path, status), status)
    return { path, from }
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect).pipe(Layer.provideMerge(Statements.layer)), { timeout: "60 seconds" })(
    `Statements [${dialect}]`,
    (it) => {
      it.effect("a request's SQL statements are counted as its operation's and shown at /metrics", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const now = yield* Clock.currentTimeMillis
          const created = yield* TestServer.raw("POST", "/v2/processing/invoices", {
            headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${m.apiKey}` },
            body: JSON.stringify({
              shopID: m.shopID,
              dueDate: new Date(now + 86_400_000).toISOString(),
              amount: 1000,
              currency: "RUB",
              product: "Tea",
              metadata: {}
            })
          })
          assert.strictEqual(created.status, 201)
          const before = (yield* get("/metrics")).text
          assert.isAtLeast(statementsOf(before, "createInvoice"), 1)
          // one read of the invoice, nothing else (the API key is known by now)
          assert.strictEqual((yield* get(`/v2/processing/invoices/${created.json.invoice.id}`, m.apiKey)).status, 200)
          const after = (yield* get("/metrics")).text
          assert.strictEqual(statementsOf(after, "getInvoiceByID") - statementsOf(before, "getInvoiceByID"), 1)
          assert.match(after, /# TYPE kassa_sql_statements_total counter/)
        }))

      it.effect("createPaymentResource of a stored card: the vault session and the resource go as one write", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          // a new X-Request-ID each time: the same one would replay the first answer
          const tokenize = Effect.suspend(() =>
            TestServer.raw("POST", "/v2/processing/payment-resources", {
              headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${m.apiKey}` },
              body: JSON.stringify({
                paymentTool: { paymentToolType: "CardData", cardNumber: "4111111111111111", expDate: "12/30", cvv: "123" },
                clientInfo: { fingerprint: "device-1" }
              })
            })
          )
          assert.strictEqual((yield* tokenize).status, 201)
          const before = statementsOf((yield* get("/metrics")).text, "createPaymentResource")
          assert.strictEqual((yield* tokenize).status, 201)
          const sent = statementsOf((yield* get("/metrics")).text, "createPaymentResource") - before
          // the card by its fingerprint with the vault's current key, then (PostgreSQL) the
          // expired sessions' purge, the new session, the resource and the claim of the request's
          // X-Request-ID in one statement (SQLite: one each)
          assert.strictEqual(sent, dialect === "pg" ? 2 : 5)
        }))
    }
  )

  // On a server of their own, whose recovery timers wait ten minutes: none fires in the window.
  layer(
    TestServer.layer(dialect, { settings: { recoveryDelayMs: 600_000 } }).pipe(Layer.provideMerge(recording)),
    { timeout: "60 seconds" }
  )(`Statements per operation [${dialect}]`, (it) => {
    it.effect("createPayment (instant, to its capture) and createRefund (to its success), each with its background work", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        // the first flow warms the caches (terms, vault keys, ledger accounts); the shop's terms
        // are read as the cache's work, not the request's
        const warmFrom = recorded.length
        const warm = yield* cardPayment(m)
        assert.isTrue(recorded.slice(warmFrom).some(([w, text]) => w === "cache" && /^SELECT s\.\*, p\.name AS p_name/.test(text.trim())))
        assert.strictEqual((yield* post(`${warm.path}/refunds`, m.apiKey, { amount: 100, currency: "RUB" })).status, 201)
        const { from, path } = yield* cardPayment(m)
        const payment = sentFor("createPayment", from)
        const refundFrom = recorded.length
        const refund = yield* post(`${path}/refunds`, m.apiKey, { amount: 100, currency: "RUB" })
        assert.strictEqual(refund.status, 201)
        assert.strictEqual(yield* reaches(m.apiKey, `${path}/refunds/${refund.json.id}`, "succeeded"), "succeeded")
        const refunded = sentFor("createRefund", refundFrom)
        // PostgreSQL: no event of a party without webhooks costs the dispatcher or the signals a
        // statement (SQLite's dispatcher, woken in-process, looks at the outbox)
        if (dialect === "pg") {
          assert.deepStrictEqual(
            recorded.slice(from).filter(([w]) => w === "webhooks" || w === "signals").map(([w, text]) => `${w}: ${text}`),
            []
          )
        }
        assert.deepStrictEqual({ createPayment: payment.length, createRefund: refunded.length }, EXPECTED[dialect], [
          ...payment,
          "=== createRefund",
          ...refunded
        ].join("\n---\n"))
      }))

    it.effect("createPayment (hold, to its authorisation) and capturePayment (to its capture), each with its background work", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        // the first flow warms the caches (terms, vault keys, ledger accounts)
        yield* cardPayment(m)
        const { from, path } = yield* cardPayment(m, "hold")
        const payment = sentFor("createPayment", from)
        const captureFrom = recorded.length
        assert.strictEqual((yield* post(`${path}/capture`, m.apiKey, { reason: "shipped" })).status, 202)
        assert.strictEqual(yield* reaches(m.apiKey, path, "captured"), "captured")
        const captured = sentFor("capturePayment", captureFrom)
        assert.deepStrictEqual({ createPayment: payment.length, capturePayment: captured.length }, EXPECTED_HOLD[dialect], [
          ...payment,
          "=== capturePayment",
          ...captured
        ].join("\n---\n"))
      }))
  })
}

/**
 * PostgreSQL: the payment: its invoice with its resource, one read; the invoice's update (checked as it
 * goes) with the payment, its event and timers; the card read; the acquirer's authorisation and
 * capture, then one transaction: the payment's and the invoice's updates (the invoice as the
 * payment's creation wrote it, no read), checked, with the ledger's plan opened (committed: the
 * flow posted at once) and its accounts locked; the batch's and the accounts' writes, the event
 * and timers.
 * The refund: the payment with its refunds and chargebacks, one read; the payment's update,
 * checked, and the refund with the ledger's hold; its writes with the refund's event; the
 * acquirer's answer, settled on what the refund's creation left (the payment's update, checked
 * at the version created, and the refund's, with the plan and its accounts locked; the writes).
 * SQLite sends its writes one by one, on the connection its group commit holds (an event with its
 * outbox row, by the insert's trigger); its ledger reads no account first: the instant payment's
 * post (the plan's insert, its batch's, the accounts' update), a hold on a plan just opened, and
 * a commit of a plan held before (its state's update answers its batches), check the accounts as
 * their update answers them (the refund's balance after its hold reads nothing).
 */
const EXPECTED: Record<Dialects.Dialect, { readonly createPayment: number; readonly createRefund: number }> = {
  pg: { createPayment: 5, createRefund: 5 },
  sqlite: { createPayment: 15, createRefund: 15 }
}

/**
 * PostgreSQL: the hold payment as the instant one to the acquirer's authorisation, then one
 * transaction: the payment's update, checked, with the ledger's plan opened and its accounts
 * locked; the hold's writes with the event and timers. The capture: the payment with its
 * invoice, one read; the payment's update, checked, with its timer; the acquirer's capture, then
 * the payment's and the invoice's updates (the invoice as the capture read it, no lock taken
 * before its write), checked, with the plan and its accounts locked; the writes.
 * SQLite: one by one, the creation's two timers in one insert, the capture's plan's update (which
 * answers its batches) and its accounts' (which answers them).
 */
const EXPECTED_HOLD: Record<Dialects.Dialect, { readonly createPayment: number; readonly capturePayment: number }> = {
  pg: { createPayment: 5, capturePayment: 4 },
  sqlite: { createPayment: 13, capturePayment: 10 }
}
