/**
 * Work the acquirer interrupts is resumed by the payment's and the refund's recovery timers,
 * with the recovery backoff (see RecoveryBackoff.test.ts), until it succeeds or the acquirer answers for good.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { RefundService } from "@kassa/core/refund/RefundService"
import * as Settings from "@kassa/core/Settings"
import * as Effect from "effect/Effect"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted
const RECOVERY = Settings.defaults.recoveryDelayMs

const methods = Effect.map(Effect.flatMap(ScriptedAcquirer, (a) => a.calls), (calls) => calls.map((c) => c.method))

describe("retries by the recovery timers", () => {
  it.effect("an authorisation that fails twice is retried by the timer and the payment captured", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { authorize: [Scripted.fail(), Scripted.fail(), Scripted.answer(Scripted.authorized)] }
      })
      yield* MemoryKassa.settle
      const payments = yield* PaymentService
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "pending")
      assert.deepStrictEqual(yield* methods, ["authorize"])
      yield* MemoryKassa.elapse(RECOVERY - 1)
      assert.deepStrictEqual(yield* methods, ["authorize"])
      yield* MemoryKassa.elapse(1)
      assert.deepStrictEqual(yield* methods, ["authorize", "authorize"])
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "pending")
      yield* MemoryKassa.elapse(RECOVERY)
      assert.deepStrictEqual(yield* methods, ["authorize", "authorize", "authorize", "capture"])
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "captured")
      // nothing is left to resume
      yield* MemoryKassa.elapse(RECOVERY * 3)
      assert.strictEqual((yield* methods).length, 4)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an authorisation that fails, then is declined, fails the payment for good", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { authorize: [Scripted.fail(), Scripted.answer(Scripted.declined())] }
      })
      yield* MemoryKassa.elapse(RECOVERY)
      const failed = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.subError?.code, "rejected_by_issuer")
      yield* MemoryKassa.elapse(RECOVERY * 3)
      assert.deepStrictEqual(yield* methods, ["authorize", "authorize"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a capture the acquirer declines is retried, never turned into a failed payment", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: {
          capture: [
            Scripted.answer(Scripted.declined("temporarily_unavailable")),
            Scripted.fail(),
            Scripted.answer(Scripted.done)
          ]
        }
      })
      yield* MemoryKassa.settle
      const payments = yield* PaymentService
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "processed")
      yield* MemoryKassa.elapse(RECOVERY)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "processed")
      yield* MemoryKassa.elapse(RECOVERY)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "captured")
      assert.deepStrictEqual(yield* methods, ["authorize", "capture", "capture", "capture"])
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 4_000 - 110)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a refund the acquirer drops is retried by its timer and succeeds", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 4_000)
      yield* (yield* ScriptedAcquirer).script.refund(Scripted.fail())
      const refunds = yield* RefundService
      const refund = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 1_000 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)).status, "pending")
      yield* MemoryKassa.elapse(RECOVERY)
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)).status, "succeeded")
      assert.deepStrictEqual(yield* methods, ["authorize", "capture", "refund", "refund"])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
