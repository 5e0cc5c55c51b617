/**
 * Chargebacks on a captured payment: while one is pending no refund starts; accepted, it takes
 * its body and levy from the shop and from what can still be refunded; rejected, only its levy;
 * cancelled, nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { ChargebackService } from "@kassa/core/chargeback/ChargebackService"
import { ChargebackCommand } from "@kassa/core/chargeback/Chargeback"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { RefundService } from "@kassa/core/refund/RefundService"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

/** A captured payment of 10 000 (the shop holds 9 740) and a chargeback of 4 000 with a levy of 100 opened on it. */
const chargedBack = Effect.gen(function*() {
  const m = yield* Arrange.merchant
  const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
  const chargeback = yield* Arrange.chargeback(invoice.id, payment.id, 4_000, 100)
  return { m, invoice, payment, chargeback }
})

describe("ChargebackService: chargebacks and balances", () => {
  it.effect("a pending chargeback holds its body and levy, and refunds wait for it", () =>
    Effect.gen(function*() {
      const { chargeback, invoice, m, payment } = yield* chargedBack
      assert.strictEqual(chargeback.status, "pending")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740)
      assert.strictEqual(
        yield* businessCode((yield* RefundService).create(m.partyID, invoice.id, payment.id, { amount: 100 })),
        "chargebackInProgress"
      )
      assert.strictEqual(
        yield* businessCode(Arrange.chargeback(invoice.id, payment.id, 100)),
        "chargebackInProgress"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("accepted: the shop pays body and levy, and only the rest of the payment can be refunded", () =>
    Effect.gen(function*() {
      const { chargeback, invoice, m, payment } = yield* chargedBack
      const chargebacks = yield* ChargebackService
      const accepted = yield* chargebacks.command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Accept({}))
      assert.strictEqual(accepted.status, "accepted")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 - 4_000 - 100)
      const refunds = yield* RefundService
      assert.strictEqual(
        yield* businessCode(refunds.create(m.partyID, invoice.id, payment.id, { amount: 6_001 })),
        "invoicePaymentAmountExceeded"
      )
      const refund = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 5_000 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)).status, "succeeded")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 - 4_100 - 5_005)
      assert.strictEqual(yield* Arrange.ledgerTotal(m), 0)
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "captured")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("rejected: the shop pays the levy only and the whole payment stays refundable", () =>
    Effect.gen(function*() {
      const { chargeback, invoice, m, payment } = yield* chargedBack
      yield* (yield* ChargebackService).command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Reject({}))
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 - 100)
      assert.strictEqual(
        yield* businessCode((yield* RefundService).create(m.partyID, invoice.id, payment.id, { amount: 10_001 })),
        "invoicePaymentAmountExceeded"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("cancelled: the shop's balance is as before", () =>
    Effect.gen(function*() {
      const { chargeback, invoice, m, payment } = yield* chargedBack
      yield* (yield* ChargebackService).command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Cancel())
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740)
      const refund = yield* (yield* RefundService).create(m.partyID, invoice.id, payment.id, { amount: 1_000 })
      assert.strictEqual(refund.status, "pending")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a chargeback of the whole payment, accepted, marks the payment charged back; nothing is left to refund", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
      const chargebacks = yield* ChargebackService
      const opened = yield* Arrange.chargeback(invoice.id, payment.id, 10_000)
      yield* chargebacks.command(invoice.id, payment.id, opened.id, ChargebackCommand.Accept({}))
      assert.isTrue((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).chargedBack)
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 9_740 - 10_000)
      assert.strictEqual(
        yield* businessCode((yield* RefundService).create(m.partyID, invoice.id, payment.id, { amount: 1 })),
        "invoicePaymentAmountExceeded"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("every decision on a chargeback bumps its payment's version (a refund's settlement knows its copy is stale by it)", () =>
    Effect.gen(function*() {
      const { chargeback, invoice, payment } = yield* chargedBack
      const chargebacks = yield* ChargebackService
      const version = Effect.map(
        Effect.flatMap(PaymentRepository, (r) => r.findById(invoice.id, payment.id)),
        (p) => Option.getOrThrow(p).version
      )
      const opened = yield* version
      yield* chargebacks.command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Reject({}))
      assert.strictEqual(yield* version, opened + 1)
      yield* chargebacks.command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Reopen({}))
      assert.strictEqual(yield* version, opened + 2)
      yield* chargebacks.command(invoice.id, payment.id, chargeback.id, ChargebackCommand.Accept({}))
      assert.strictEqual(yield* version, opened + 3)
      assert.isNotTrue((yield* (yield* PaymentService).get(invoice.partyID, invoice.id, payment.id)).chargedBack)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a chargeback above what refunds left of the payment is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
      yield* (yield* RefundService).create(m.partyID, invoice.id, payment.id, { amount: 7_000 })
      yield* MemoryKassa.settle
      assert.strictEqual(
        yield* businessCode(Arrange.chargeback(invoice.id, payment.id, 3_001)),
        "invoicePaymentAmountExceeded"
      )
      const opened = yield* Arrange.chargeback(invoice.id, payment.id, 3_000)
      assert.strictEqual(opened.body, 3_000)
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
