/**
 * The TestClock layers: under `it.effect` (a clock that stands still) Kassa's background work
 * runs when the test settles or advances the clock, on memory and on each dialect, with no real
 * sleep in the test.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService, PaymentService, RefundService } from "@kassa/core"
import { Dialects, Fixtures, TestKassa } from "@kassa/testing"
import * as Effect from "effect/Effect"

const DAY = 86_400_000
const VISA = "4242424242424242"

for (const backend of Dialects.backends()) {
  describe(`TestKassa [${backend}]`, () => {
    it.effect("a payment is captured and refunded once the test settles", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoices = yield* InvoiceService.InvoiceService
        const invoice = yield* Fixtures.invoice(m, 10_000)
        const started = yield* Fixtures.pay(m, invoice.id, { cardNumber: VISA })
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
        const invoice = yield* Fixtures.invoice(m, 5_000, { dueInMs: DAY })
        yield* TestKassa.advance("23 hours")
        assert.strictEqual((yield* invoices.get(m.partyID, invoice.id)).status, "unpaid")
        yield* TestKassa.advance("2 hours")
        assert.strictEqual((yield* invoices.get(m.partyID, invoice.id)).status, "cancelled")
      }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 60_000 })

    it.effect("a hold expires into a capture when the clock passes it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoice = yield* Fixtures.invoice(m, 7_000, { dueInMs: 30 * DAY })
        const started = yield* Fixtures.pay(m, invoice.id, {
          cardNumber: "5555555555554444",
          params: { flow: { type: "PaymentFlowHold", onHoldExpiration: "capture" } }
        })
        yield* TestKassa.settle
        const payments = yield* PaymentService.PaymentService
        assert.strictEqual((yield* payments.get(m.partyID, invoice.id, started.id)).status, "processed")
        yield* TestKassa.advance("8 days")
        assert.strictEqual((yield* payments.get(m.partyID, invoice.id, started.id)).status, "captured")
      }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 60_000 })
  })
}
