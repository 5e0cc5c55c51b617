import { assert, layer } from "@effect/vitest"
import { InProcess } from "@kassa/http"
import { Dialects, Expect, Fixtures, TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const { businessError, errorTag, poll } = Expect

// Payments run in the background on the real clock: the suite excludes the test services and
// polls with a bound, as the HTTP suites do.

const DAY = 24 * 3_600_000

const invoiceParams = (shopID: string, dueDate: Date) => ({
  shopID,
  dueDate: dueDate.toISOString(),
  amount: 10_000,
  currency: "RUB",
  product: "Tea",
  metadata: {}
})

for (const dialect of Dialects.dialects()) {
  layer(InProcess.layer(TestKassa.layer(dialect)), { timeout: "60 seconds", excludeTestServices: true })(
    `InProcess [${dialect}]`,
    (it) => {
      it.effect("a party pays an invoice by card and refunds part of it, through the contract's operations", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* (yield* InProcess.InProcess).asParty(m.partyID)
          const now = yield* Clock.currentTimeMillis
          const { invoice, invoiceAccessToken } = yield* api.Invoices.createInvoice({
            payload: invoiceParams(m.shopID, new Date(now + DAY))
          })
          assert.strictEqual(invoice.status, "unpaid")
          assert.strictEqual(invoice.shopID, m.shopID)
          assert.isAbove(invoiceAccessToken.payload.length, 0)

          const resource = yield* api.Tokens.createPaymentResource({
            payload: {
              paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/40", cvv: "123" },
              clientInfo: { fingerprint: "in-process" }
            }
          })
          const started = yield* api.Payments.createPayment({
            path: { invoiceID: invoice.id },
            payload: {
              flow: { type: "PaymentFlowInstant" },
              payer: Fixtures.resourcePayer(resource),
              makeRecurrent: false
            }
          })
          const path = { invoiceID: invoice.id, paymentID: started.id }
          const payment = yield* poll(
            api.Payments.getPaymentByID({ path }),
            (p) => p.status === "captured" || p.status === "failed",
            "the payment"
          )
          assert.strictEqual(payment.status, "captured")
          assert.strictEqual(payment.amount, 10_000)

          const refund = yield* api.Refunds.createRefund({ path, payload: { amount: 2_000 } })
          assert.strictEqual(refund.status, "pending")
          assert.strictEqual(refund.amount, 2_000)
          assert.strictEqual(refund.currency, "RUB")
          const settled = yield* poll(
            api.Refunds.getRefundByID({ path: { ...path, refundID: refund.id } }),
            (r) => r.status !== "pending",
            "the refund"
          )
          assert.strictEqual(settled.status, "succeeded")
        }))

      it.effect("bad JSON parameters are the wire's typed 400 naming the field, never defects", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* (yield* InProcess.InProcess).asParty(m.partyID)
          const params = invoiceParams(m.shopID, new Date((yield* Clock.currentTimeMillis) + DAY))
          const refused = (payload: typeof params, field: string) =>
            Effect.map(businessError(api.Invoices.createInvoice({ payload }), "invalidRequest"), (message) =>
              assert.include(message, field))
          yield* refused({ ...params, dueDate: "not a date" }, "dueDate")
          yield* refused({ ...params, dueDate: new Date((yield* Clock.currentTimeMillis) - 1_000).toISOString() }, "dueDate")
          yield* refused({ ...params, amount: -1 }, "amount")
          yield* refused({ ...params, currency: "rubles" }, "currency")
          // a body that is no object at all answers alike
          const notAnObject = api.Invoices.createInvoice({ payload: "tea" as unknown as typeof params })
          yield* businessError(notAnObject, "invalidRequest")
        }))

      it.effect("another party's invoice is not found; an X-Request-ID repeated with the same body replays", () =>
        Effect.gen(function*() {
          const inProcess = yield* InProcess.InProcess
          const owner = yield* Fixtures.merchant()
          const other = yield* Fixtures.merchant()
          const ownerApi = yield* inProcess.asParty(owner.partyID)
          const otherApi = yield* inProcess.asParty(other.partyID)
          const payload = invoiceParams(owner.shopID, new Date((yield* Clock.currentTimeMillis) + DAY))

          const first = yield* InProcess.withRequestId(ownerApi.Invoices.createInvoice({ payload }), "inproc-replay-1")
          const replayed = yield* InProcess.withRequestId(ownerApi.Invoices.createInvoice({ payload }), "inproc-replay-1")
          assert.strictEqual(replayed.invoice.id, first.invoice.id)
          const fresh = yield* ownerApi.Invoices.createInvoice({ payload })
          assert.notStrictEqual(fresh.invoice.id, first.invoice.id)

          const path = { invoiceID: first.invoice.id }
          assert.strictEqual((yield* ownerApi.Invoices.getInvoiceByID({ path })).id, first.invoice.id)
          assert.strictEqual(yield* errorTag(otherApi.Invoices.getInvoiceByID({ path })), "NotFound")
        }))

      it.effect("a party acts with an API key of its own, listed to the operator; only the operator opens the operator API", () =>
        Effect.gen(function*() {
          const inProcess = yield* InProcess.InProcess
          const m = yield* Fixtures.merchant()
          const operator = inProcess.asOperator
          const before = yield* operator.Admin.listApiKeys({ path: { partyID: m.partyID } })
          const party = yield* inProcess.asParty(m.partyID)
          const after = yield* operator.Admin.listApiKeys({ path: { partyID: m.partyID } })
          assert.strictEqual(after.length, before.length + 1)
          assert.strictEqual(yield* errorTag(party.Admin.issueApiKey({ path: { partyID: m.partyID } })), "Unauthorized")
          assert.strictEqual(yield* errorTag(operator.Invoices.getInvoiceByID({ path: { invoiceID: "any" } })), "Unauthorized")
          assert.strictEqual(yield* errorTag(inProcess.asParty("no-such-party")), "NotFound")
        }))
    }
  )
}
