import { assert, layer } from "@effect/vitest"
import { Statements } from "@kassa/adapters"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const statementsOf = (metrics: string, work: string) => {
  const line = metrics.split("\n").find((l) => l.startsWith(`kassa_sql_statements_total{work="${work}"} `))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

const get = (path: string, token?: string) =>
  TestServer.raw("GET", path, {
    headers: { "x-request-id": TestServer.requestId(), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) }
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
}
