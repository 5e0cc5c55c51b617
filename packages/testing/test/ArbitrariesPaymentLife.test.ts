import { assert, describe, it } from "@effect/vitest"
import * as Payment from "@kassa/core/payment/Payment"
import * as Refund from "@kassa/core/refund/Refund"
import { Arbitraries, ArbitrariesPaymentLife } from "@kassa/testing"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

const runs = { fastCheck: { numRuns: 150 } }
const decodeCapture = Schema.decodeUnknownEither(Payment.CaptureParams)
const decodeRefund = Schema.decodeUnknownEither(Refund.RefundParams)

const withAuthorised = <A>(f: (authorised: number) => FastCheck.Arbitrary<A>) =>
  Arbitraries.amount.chain((authorised) => f(authorised).map((value) => ({ authorised, value })))

describe("ArbitrariesPaymentLife", () => {
  it.prop("a capture is at most the authorised amount and decodes", [
    withAuthorised(ArbitrariesPaymentLife.captureAmount)
  ], ([{ authorised, value }]) => {
    assert.isTrue(value >= 1 && value <= authorised)
    assert.isTrue(Either.isRight(decodeCapture({ reason: "capture", amount: value, currency: "RUB" })))
  }, runs)

  it.prop("refunds within the remainder add up to at most the captured; the others exceed what was left", [
    withAuthorised(ArbitrariesPaymentLife.refundAttempts)
  ], ([{ authorised: captured, value: attempts }]) => {
    let remainder = captured
    for (const attempt of attempts) {
      assert.isTrue(Either.isRight(decodeRefund({ amount: attempt.amount, currency: "RUB" })))
      if (attempt.withinRemainder) {
        assert.isAtMost(attempt.amount, remainder)
        remainder -= attempt.amount
      } else {
        assert.isAbove(attempt.amount, remainder)
      }
    }
    assert.isAtLeast(remainder, 0)
    assert.isAtMost(attempts.filter((a) => !a.withinRemainder).length, 2)
  }, runs)

  it.prop("a payment's life: wire-valid commands, a hold settled at most once before a stray", [
    ArbitrariesPaymentLife.paymentLife
  ], ([life]) => {
    for (const command of life.commands) {
      if (command._tag === "Cancel") continue
      assert.isTrue(command.amount >= 1 && command.amount <= life.amount + 1000)
      const decoded = command._tag === "Capture"
        ? Either.isRight(decodeCapture({ reason: "capture", amount: command.amount }))
        : Either.isRight(decodeRefund({ amount: command.amount }))
      assert.isTrue(decoded)
    }
    const settlements = life.commands.filter((c) => c._tag !== "Refund").length
    assert.isAtMost(settlements, life.flow === "PaymentFlowHold" ? 2 : 1)
  }, runs)
})
