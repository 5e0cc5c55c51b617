/**
 * Refunds against what remains of a captured payment: partial, full, too much, two at once,
 * declined; what each leaves in the payment, the invoice and the shop's balance.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { RefundRepository } from "@kassa/core/ports/RefundRepository"
import { RefundService } from "@kassa/core/refund/RefundService"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted

/** Payments of 10 000 (fee 260) and, to cover a full refund's fee, of 1 000 (fee 35). */
const captured = Effect.gen(function*() {
  const m = yield* Arrange.merchant
  const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
  yield* Arrange.paidInvoice(m, 1_000)
  assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 + 965)
  return { m, invoice, payment }
})

describe("RefundService: refunds against the remainder", () => {
  it.effect("a partial refund succeeds; the shop gives back the amount and the refund fee; the payment stays captured", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      const refunds = yield* RefundService
      const refund = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 3_000, reason: "one item back" })
      assert.strictEqual(refund.status, "pending")
      yield* MemoryKassa.settle
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)).status, "succeeded")
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "captured")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 + 965 - 3_000 - 5)
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepInclude(calls.at(-1), { method: "refund", amount: 3_000, refundID: refund.id })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("refunds up to the whole amount refund the payment; the invoice stays paid", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      const refunds = yield* RefundService
      yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 4_000 })
      yield* MemoryKassa.settle
      const rest = yield* refunds.create(m.partyID, invoice.id, payment.id, {})
      assert.strictEqual(rest.amount, 6_000)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "refunded")
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, invoice.id)).status, "paid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 + 965 - 10_000 - 2 * 5)
      const types = yield* Arrange.changeTypes(m.partyID, invoice.id)
      assert.deepStrictEqual(types.slice(-5), [
        "RefundStarted",
        "RefundStatusChanged",
        "RefundStarted",
        "RefundStatusChanged",
        "PaymentStatusChanged"
      ])
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, invoice.id, payment.id, { amount: 1 })),
        "invalidPaymentStatus"
      )
      assert.strictEqual(yield* Arrange.ledgerTotal(m), 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a refund above the remainder is refused; a pending refund counts against it", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      yield* (yield* ScriptedAcquirer).script.refund(Scripted.hang)
      const refunds = yield* RefundService
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, invoice.id, payment.id, { amount: 10_001 })),
        "invoicePaymentAmountExceeded"
      )
      yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 7_000 })
      yield* (yield* ScriptedAcquirer).awaitCalls("refund", 1)
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, invoice.id, payment.id, { amount: 3_001 })),
        "invoicePaymentAmountExceeded"
      )
      const last = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 3_000 })
      assert.strictEqual(last.amount, 3_000)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("of two refunds at once that together exceed the remainder, exactly one is accepted", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      const refunds = yield* RefundService
      const results = yield* Effect.all(
        [6_000, 7_000].map((amount) => Effect.either(refunds.create(m.partyID, invoice.id, payment.id, { amount }))),
        { concurrency: "unbounded" }
      )
      yield* MemoryKassa.settle
      const accepted = results.filter(Either.isRight)
      const refused = results.filter(Either.isLeft)
      assert.strictEqual(accepted.length, 1)
      assert.strictEqual(refused.length, 1)
      assert.deepInclude(refused[0]!.left, { _tag: "BusinessError", code: "invoicePaymentAmountExceeded" })
      const listed = yield* refunds.list(m.partyID, invoice.id, payment.id)
      assert.deepStrictEqual(listed.map((r) => [r.id, r.status]), [["1", "succeeded"]])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a settlement decided on a stale copy reads again: two refunds that empty the payment, settled on one copy, refund it", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      yield* Arrange.paidInvoice(m, 10_000) // the fees of both
      const acquirer = yield* ScriptedAcquirer
      yield* acquirer.script.refund(Scripted.hang, Scripted.hang)
      const refunds = yield* RefundService
      const first = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 4_000 })
      const second = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 6_000 })
      yield* acquirer.awaitCalls("refund", 2)
      // both pending, as each settlement's copy has them; the first one settled makes it stale
      const copy = Option.getOrThrow(yield* (yield* RefundRepository).findPaymentOfParty(m.partyID, invoice.id, payment.id))
      assert.deepStrictEqual(copy.refunds.map((r) => r.status), ["pending", "pending"])
      yield* refunds.advance(invoice.id, payment.id, second.id, second, copy)
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "captured")
      yield* refunds.advance(invoice.id, payment.id, first.id, first, copy)
      const listed = yield* refunds.list(m.partyID, invoice.id, payment.id)
      assert.deepStrictEqual(listed.map((r) => r.status), ["succeeded", "succeeded"])
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "refunded")
      const types = yield* Arrange.changeTypes(m.partyID, invoice.id)
      assert.deepStrictEqual(types.filter((t) => t === "PaymentStatusChanged").length, 3) // processed, captured, refunded
      assert.strictEqual(yield* Arrange.ledgerTotal(m), 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a refund the acquirer declines fails, gives the shop's money back and frees the remainder", () =>
    Effect.gen(function*() {
      const { invoice, m, payment } = yield* captured
      yield* (yield* ScriptedAcquirer).script.refund(Scripted.answer(Scripted.declined("authorization_failed", "unknown")))
      const refunds = yield* RefundService
      const refund = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 8_000 })
      yield* MemoryKassa.settle
      const failed = yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.code, "authorization_failed")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 + 965)
      const again = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 8_000 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, again.id)).status, "succeeded")
      assert.strictEqual(yield* Arrange.ledgerTotal(m), 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a refund the shop's balance cannot cover is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
      const refunds = yield* RefundService
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, invoice.id, payment.id, {})),
        "insufficentAccountBalance"
      )
      assert.deepStrictEqual(yield* refunds.list(m.partyID, invoice.id, payment.id), [])
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a payment that is not captured cannot be refunded", () =>
    Effect.gen(function*() {
      const { m, inv, started: p } = yield* Arrange.startedPayment(2_000, { params: { flow: { type: "PaymentFlowHold" } } })
      yield* MemoryKassa.settle
      assert.strictEqual(
        yield* businessCode((yield* RefundService).create(m.partyID, inv.id, p.id, { amount: 100 })),
        "invalidPaymentStatus"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
