/**
 * The TestClock layers: under `it.effect` (a clock that stands still) Kassa's background work
 * runs when the test settles or advances the clock, on memory and on each dialect, with no real
 * sleep in the test.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService, PaymentResources, PaymentService, RefundService } from "@kassa/core"
import * as Invoice from "@kassa/core/invoice/Invoice"
import * as Payment from "@kassa/core/payment/Payment"
import * as PaymentTool from "@kassa/core/payment/PaymentTool"
import { Dialects, Fixtures, TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const DAY = 86_400_000

const invoiceOf = (shopID: string, amount: number, dueInMs = DAY) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const params = Schema.decodeUnknownSync(Invoice.InvoiceParams)({
      shopID, dueDate: new Date(now + dueInMs).toISOString(), amount, currency: "RUB", product: "Tea", metadata: {}
    })
    return params
  })

const pay = (partyID: string, invoiceID: string, cardNumber: string, flow: unknown = { type: "PaymentFlowInstant" }) =>
  Effect.gen(function*() {
    const resource = yield* (yield* PaymentResources.PaymentResources).create(partyID, Schema.decodeUnknownSync(PaymentTool.PaymentResourceParams)({
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "test" }
    }))
    return yield* (yield* PaymentService.PaymentService).create(partyID, invoiceID, Schema.decodeUnknownSync(Payment.PaymentParams)({
      flow, payer: Fixtures.resourcePayer(resource)
    }))
  })

for (const backend of Dialects.backends()) {
  describe(`TestKassa [${backend}]`, () => {
    it.effect("a payment is captured and refunded once the test settles", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoices = yield* InvoiceService.InvoiceService
        const { invoice } = yield* invoices.create(m.partyID, yield* invoiceOf(m.shopID, 10_000))
        const started = yield* pay(m.partyID, invoice.id, "4242424242424242")
        yield* TestKassa.settle
        const payment = yield* (yield* PaymentService.PaymentService).get(m.partyID, invoice.id, started.id)
        assert.strictEqual(payment.status, "captured")
        assert.strictEqual((yield* invoices.get(m.partyID, invoice.id)).status, "paid")
        const refunds = yield* RefundService.RefundService
        const refund = yield* refunds.create(m.partyID, invoice.id, started.id, { amount: 1_000 })
        yield* TestKassa.settle
        assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, started.id, refund.id)).status, "succeeded")
      }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 60_000 })

    it.effect("an unpaid invoice is cancelled when the clock passes its due date, not before", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoices = yield* InvoiceService.InvoiceService
        const { invoice } = yield* invoices.create(m.partyID, yield* invoiceOf(m.shopID, 5_000, DAY))
        yield* TestKassa.advance("23 hours")
        assert.strictEqual((yield* invoices.get(m.partyID, invoice.id)).status, "unpaid")
        yield* TestKassa.advance("2 hours")
        assert.strictEqual((yield* invoices.get(m.partyID, invoice.id)).status, "cancelled")
      }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 60_000 })

    it.effect("a hold expires into a capture when the clock passes it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoices = yield* InvoiceService.InvoiceService
        const { invoice } = yield* invoices.create(m.partyID, yield* invoiceOf(m.shopID, 7_000, 30 * DAY))
        const started = yield* pay(m.partyID, invoice.id, "5555555555554444", { type: "PaymentFlowHold", onHoldExpiration: "capture" })
        yield* TestKassa.settle
        const payments = yield* PaymentService.PaymentService
        assert.strictEqual((yield* payments.get(m.partyID, invoice.id, started.id)).status, "processed")
        yield* TestKassa.advance("8 days")
        assert.strictEqual((yield* payments.get(m.partyID, invoice.id, started.id)).status, "captured")
      }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 60_000 })
  })
}
