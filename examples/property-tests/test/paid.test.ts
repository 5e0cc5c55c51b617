// An invoice whose payment is captured in full is paid: paid at once, or held and then captured.
import { assert, layer } from "@effect/vitest"
import { InvoiceService, PaymentService } from "@kassa/core"
import { Arbitraries, Dialects, Fixtures, TestKassa } from "@kassa/testing"
import { Effect, FastCheck } from "effect"

for (const backend of Dialects.backends()) {
  layer(TestKassa.layerOf(backend))(backend, (it) => {
    it.effect.prop(
      "an invoice paid in full is paid",
      [Arbitraries.amount, Arbitraries.testCardWith("Authorized"), FastCheck.boolean()],
      ([amount, card, hold]) =>
        Effect.gen(function*() {
          const merchant = yield* Fixtures.merchant()
          const invoice = yield* Fixtures.invoice(merchant, amount)
          const flow = hold ? { type: "PaymentFlowHold" as const, onHoldExpiration: "cancel" as const } : { type: "PaymentFlowInstant" as const }
          const started = yield* Fixtures.pay(merchant, invoice.id, { cardNumber: card.cardNumber, params: { flow } })
          yield* TestKassa.settle
          const payments = yield* PaymentService.PaymentService
          if (hold) {
            yield* payments.capture(merchant.partyID, invoice.id, started.id, { reason: "shipped" })
            yield* TestKassa.settle
          }
          const payment = yield* payments.get(merchant.partyID, invoice.id, started.id)
          assert.strictEqual(payment.status, "captured")
          assert.strictEqual(payment.amount, amount)
          const paid = yield* (yield* InvoiceService.InvoiceService).get(merchant.partyID, invoice.id)
          assert.strictEqual(paid.status, "paid")
        }),
      { fastCheck: { numRuns: backend === "memory" ? 50 : 5 } }
    )
  })
}
