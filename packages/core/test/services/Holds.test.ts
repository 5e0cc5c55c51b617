/**
 * Two-step payments: authorised and held, then captured (whole or in part) or cancelled by the
 * merchant, or by the hold's own timer when it expires.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import * as Effect from "effect/Effect"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"
import { HOLD_LIFETIME_SECONDS } from "../support/ReferenceSet.js"

const { ScriptedAcquirer } = Scripted

const held = (onHoldExpiration: "cancel" | "capture" = "cancel") =>
  Effect.gen(function*() {
    const m = yield* Arrange.merchant
    const inv = yield* Arrange.invoice(m, 10_000, { dueInMs: 7 * 86_400_000 })
    const started = yield* Arrange.startPayment(m, inv.id, { flow: { type: "PaymentFlowHold", onHoldExpiration } })
    yield* MemoryKassa.settle
    const p = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
    return { m, inv, p }
  })

const methods = Effect.map(Effect.flatMap(ScriptedAcquirer, (a) => a.calls), (calls) => calls.map((c) => c.method))
const invoiceStatus = (partyID: string, invoiceID: string) =>
  Effect.map(Effect.flatMap(InvoiceService, (s) => s.get(partyID, invoiceID)), (i) => i.status)

describe("PaymentService: holds", () => {
  it.effect("a held payment waits, processed, with the money held but not credited", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held()
      assert.strictEqual(p.status, "processed")
      assert.deepStrictEqual(yield* methods, ["authorize"])
      assert.deepInclude((yield* (yield* ScriptedAcquirer).calls)[0], { hold: true })
      assert.strictEqual(yield* invoiceStatus(m.partyID, inv.id), "unpaid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("captured in part: the capture's amount is charged, its fee recomputed and credited", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held()
      const payments = yield* PaymentService
      yield* payments.capture(m.partyID, inv.id, p.id, { reason: "shipped", amount: 6_000 })
      yield* MemoryKassa.settle
      const captured = yield* payments.get(m.partyID, inv.id, p.id)
      assert.strictEqual(captured.status, "captured")
      assert.strictEqual(captured.amount, 6_000)
      assert.strictEqual(captured.fee, 160)
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepInclude(calls[1], { method: "capture", amount: 6_000 })
      assert.strictEqual(yield* invoiceStatus(m.partyID, inv.id), "paid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 6_000 - 160)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a capture above the authorised amount is refused", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held()
      const payments = yield* PaymentService
      assert.strictEqual(
        yield* businessCode(payments.capture(m.partyID, inv.id, p.id, { reason: "too much", amount: 10_001 })),
        "amountExceededCaptureBalance"
      )
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "processed")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("cancelled by the merchant: the hold is released, the invoice takes another payment", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held()
      const payments = yield* PaymentService
      yield* payments.cancel(m.partyID, inv.id, p.id, "out of stock")
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "cancelled")
      assert.deepStrictEqual(yield* methods, ["authorize", "cancel"])
      assert.strictEqual(yield* invoiceStatus(m.partyID, inv.id), "unpaid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 0)
      assert.strictEqual(
        yield* businessCode(payments.capture(m.partyID, inv.id, p.id, { reason: "late" })),
        "invalidPaymentStatus"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an instant payment on its way to capture cannot be cancelled by the merchant", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      yield* (yield* ScriptedAcquirer).script.capture(Scripted.hang)
      const inv = yield* Arrange.invoice(m, 1_000)
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* (yield* ScriptedAcquirer).awaitCalls("capture", 1)
      const payments = yield* PaymentService
      assert.strictEqual(
        yield* businessCode(payments.cancel(m.partyID, inv.id, started.id, "no")),
        "invalidPaymentStatus"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a hold that expires is cancelled by its timer when onHoldExpiration is cancel", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held("cancel")
      const payments = yield* PaymentService
      yield* MemoryKassa.elapse(HOLD_LIFETIME_SECONDS * 1000 - 1)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "processed")
      yield* MemoryKassa.elapse(1)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "cancelled")
      assert.deepStrictEqual(yield* methods, ["authorize", "cancel"])
      assert.strictEqual(yield* invoiceStatus(m.partyID, inv.id), "unpaid")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a hold that expires is captured in full by its timer when onHoldExpiration is capture", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held("capture")
      yield* MemoryKassa.elapse(HOLD_LIFETIME_SECONDS * 1000)
      const captured = yield* (yield* PaymentService).get(m.partyID, inv.id, p.id)
      assert.strictEqual(captured.status, "captured")
      assert.strictEqual(captured.amount, 10_000)
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
      assert.strictEqual(yield* invoiceStatus(m.partyID, inv.id), "paid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 10_000 - 260)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a hold captured before it expires is left alone by the expired timer", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* held("cancel")
      const payments = yield* PaymentService
      yield* payments.capture(m.partyID, inv.id, p.id, { reason: "shipped" })
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(HOLD_LIFETIME_SECONDS * 1000)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "captured")
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
