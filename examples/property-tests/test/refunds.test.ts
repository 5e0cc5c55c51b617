// However a merchant splits refunds, and however often it asks for more than is left, a refund
// of more than what is left is refused, and the refunds that succeed never add up to more than
// the payment captured.
import { assert, layer } from "@effect/vitest"
import { RefundService } from "@kassa/core"
import { Arbitraries, ArbitrariesPaymentLife, Dialects, Fixtures, TestKassa } from "@kassa/testing"
import { Effect, Either, FastCheck } from "effect"

const payment = Arbitraries.amount.chain((amount) =>
  ArbitrariesPaymentLife.refundAttempts(amount).map((attempts) => ({ amount, attempts }))
)

for (const backend of Dialects.backends()) {
  layer(TestKassa.layerOf(backend))(backend, (it) => {
    it.effect.prop("a refund never exceeds the capture", [payment], ([{ amount, attempts }]) =>
      Effect.gen(function*() {
        const merchant = yield* Fixtures.merchant()
        const invoice = yield* Fixtures.invoice(merchant, amount)
        const paid = yield* Fixtures.pay(merchant, invoice.id)
        yield* TestKassa.settle
        const refunds = yield* RefundService.RefundService
        let refunded = 0
        for (const attempt of attempts) {
          const result = yield* Effect.either(refunds.create(merchant.partyID, invoice.id, paid.id, { amount: attempt.amount }))
          yield* TestKassa.settle
          if (attempt.amount > amount - refunded) {
            const refused = Either.isLeft(result) && result.left._tag === "BusinessError" ? result.left.code : undefined
            assert.strictEqual(refused, "invoicePaymentAmountExceeded", `a refund of ${attempt.amount}, more than what is left`)
          }
          if (Either.isRight(result)) {
            const refund = yield* refunds.get(merchant.partyID, invoice.id, paid.id, result.right.id)
            if (refund.status === "succeeded") refunded += refund.amount
          }
          assert.isAtMost(refunded, amount)
        }
      }), { fastCheck: { numRuns: backend === "memory" ? 50 : 5 } })
  })
}
