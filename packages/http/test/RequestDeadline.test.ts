import { assert, layer } from "@effect/vitest"
import { Database, Kassa, TokenKeys, WebhookDispatcher, Workers } from "@kassa/adapters"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, Fixtures, TestDatabase, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"

// The server runs on the TestClock: a test hook moves it past the request's deadline at an
// exact point of the request, just before or just after its transaction commits.

type When = "beforeCommit" | "afterCommit"
let armed: { readonly when: When; readonly run: Effect.Effect<void> } | undefined

/** The armed hook, once, at `when` of the next transaction that gets there. */
const hook = (when: When) =>
  Effect.suspend(() => {
    if (armed?.when !== when) return Effect.void
    const { run } = armed
    armed = undefined
    return run
  })

const hookedTransactions = Layer.effect(
  Transactions,
  Effect.map(Transactions, (tx) =>
    Transactions.of({
      ...tx,
      withTransaction: (effect) => Effect.zipLeft(tx.withTransaction(Effect.zipLeft(effect, hook("beforeCommit"))), hook("afterCommit"))
    }))
)

const serverLayer = (dialect: Dialects.Dialect) =>
  TestServer.serving(
    Layer.unwrapScoped(
      Effect.map(TestDatabase.acquire(dialect), ({ dataDir, database }) => {
        const pem = TokenKeys.generatePem()
        return Kassa.services.pipe(
          Layer.provide(hookedTransactions),
          Layer.provideMerge(WebhookDispatcher.dispatcherLayer()),
          // no recovery within the test: only the request itself starts the payment's processing
          Layer.provideMerge(Kassa.ports({
            dataDir,
            scheduler: { pollInterval: "1 hour", lease: "10 seconds" },
            settings: { recoveryDelayMs: 24 * 3_600_000 }
          })),
          Layer.provideMerge(TokenKeys.layer({ dataDir, pem })),
          Layer.provideMerge(Database.layer(database)),
          Layer.provideMerge(Workers.layer)
        )
      })
    )
  )

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** An invoice and a tokenized card, and the raw request that pays it with `X-Request-Deadline: 1s`. */
const setup = Effect.gen(function*() {
  const m = yield* Fixtures.merchant()
  const api = yield* TestServer.client(m.apiKey)
  const { invoice } = yield* api.Invoices.createInvoice({
    payload: { shopID: m.shopID, dueDate: new Date(Date.now() + 86_400_000), amount: 1000, currency: "RUB", product: "Tea", metadata: {} }
  })
  const resource = yield* api.Tokens.createPaymentResource({
    payload: {
      paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "deadline-tests" }
    }
  })
  const createPayment = TestServer.raw("POST", `/v2/processing/invoices/${invoice.id}/payments`, {
    headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId(), "x-request-deadline": "1s" },
    body: JSON.stringify({
      flow: { type: "PaymentFlowInstant" },
      payer: {
        payerType: "PaymentResourcePayer",
        paymentToolToken: resource.paymentToolToken,
        paymentSession: resource.paymentSession,
        contactInfo: {}
      },
      makeRecurrent: false
    })
  })
  return { api, invoiceID: invoice.id, createPayment }
})

const pastTheDeadline = TestClock.adjust("2 seconds")

for (const dialect of Dialects.dialects()) {
  layer(serverLayer(dialect), { timeout: "60 seconds" })(`X-Request-Deadline [${dialect}]`, (it) => {
    it.effect("past the deadline before the commit: 504 and nothing written", () =>
      Effect.gen(function*() {
        const { api, createPayment, invoiceID } = yield* setup
        armed = { when: "beforeCommit", run: pastTheDeadline }
        const response = yield* createPayment
        assert.strictEqual(response.status, 504, response.text)
        assert.deepStrictEqual(Object.keys(response.json), ["message"])
        assert.isUndefined(armed, "the hook ran")
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID } }), [])
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID } })).status, "unpaid")
      }))

    it.effect("past the deadline after the commit: 201 with the payment, whose processing goes on", () =>
      Effect.gen(function*() {
        const { api, createPayment, invoiceID } = yield* setup
        armed = { when: "afterCommit", run: pastTheDeadline }
        const response = yield* createPayment
        assert.isUndefined(armed, "the hook ran")
        assert.strictEqual(response.status, 201, response.text)
        assert.strictEqual(response.json.id, "1")
        assert.strictEqual(response.json.status, "pending")
        // processed by the request's own background step (recovery is a day away)
        let status = ""
        for (let i = 0; i < 200 && status !== "captured"; i++) {
          status = (yield* api.Payments.getPaymentByID({ path: { invoiceID, paymentID: "1" } })).status
          if (status !== "captured") yield* sleepReal(25)
        }
        assert.strictEqual(status, "captured")
      }))
  })
}
