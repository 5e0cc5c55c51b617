/**
 * What payments do to their invoice: one in flight holds it, a captured one pays it (and only
 * then can it be fulfilled), one that fails or is cancelled leaves it open to the next.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import * as ApplyCommand from "@kassa/core/payment/ApplyCommand"
import * as PaymentContext from "@kassa/core/payment/PaymentContext"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted

describe("invoice settlement by its payments", () => {
  it.effect("an invoice with a payment in flight cannot be rescinded; once the payment failed it can", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(1_000, {
        script: { authorize: [Scripted.answer(Scripted.challenge)] }
      })
      yield* MemoryKassa.settle
      const invoices = yield* InvoiceService
      assert.strictEqual(yield* businessCode(invoices.rescind(m.partyID, inv.id, "changed my mind")), "invoicePaymentPending")
      const payments = yield* PaymentService
      const p = yield* payments.get(m.partyID, inv.id, started.id)
      yield* payments.completeChallenge(p.interactionID!, false)
      yield* MemoryKassa.settle
      const rescinded = yield* invoices.rescind(m.partyID, inv.id, "changed my mind")
      assert.strictEqual(rescinded.status, "cancelled")
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidInvoiceStatus")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("only a paid invoice is fulfilled", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const invoices = yield* InvoiceService
      const open = yield* Arrange.invoice(m, 1_000)
      assert.strictEqual(yield* businessCode(invoices.fulfill(m.partyID, open.id, "delivered")), "invalidInvoiceStatus")
      const { invoice } = yield* Arrange.paidInvoice(m, 1_000)
      const fulfilled = yield* invoices.fulfill(m.partyID, invoice.id, "delivered")
      assert.strictEqual(fulfilled.status, "fulfilled")
      assert.strictEqual(fulfilled.reason, "delivered")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a cancelled hold, a declined payment, then a captured one: the invoice is paid once, by the last", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000)
      const payments = yield* PaymentService
      const hold = yield* Arrange.startPayment(m, inv.id, { flow: { type: "PaymentFlowHold" } })
      yield* MemoryKassa.settle
      yield* payments.cancel(m.partyID, inv.id, hold.id, "customer asked")
      yield* MemoryKassa.settle
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.declined()))
      yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      const last = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      assert.deepStrictEqual((yield* payments.list(m.partyID, inv.id)).map((p) => [p.id, p.status]), [
        ["1", "cancelled"],
        ["2", "failed"],
        [last.id, "captured"]
      ])
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, inv.id)).status, "paid")
      const types = yield* Arrange.changeTypes(m.partyID, inv.id)
      assert.strictEqual(types.filter((t) => t === "InvoiceStatusChanged").length, 1)
      assert.strictEqual(types.at(-1), "InvoiceStatusChanged")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 1_000 - 35)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a transition given the invoice as its payment's creation wrote it settles the invoice as it stands when it changed since", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.challenge))
      const inv = yield* Arrange.invoice(m, 1_000)
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      const invoices = yield* InvoiceRepository
      const seen = Option.getOrThrow(yield* invoices.findById(m.partyID, inv.id))
      assert.strictEqual(seen.activePaymentID, started.id)
      // changed since it was seen
      assert.isTrue(yield* invoices.update({ ...seen, description: "changed meanwhile", version: seen.version + 1 }, seen.version))
      const { apply } = ApplyCommand.make(yield* PaymentContext.make)
      const p = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      const failed = yield* apply(inv.id, started.id, { _tag: "DeadlineReached" }, p, seen)
      assert.strictEqual(failed.status, "failed")
      // reopened, the change kept: decided again on a fresh read, not written over from the stale copy
      const after = Option.getOrThrow(yield* invoices.findById(m.partyID, inv.id))
      assert.deepStrictEqual(
        [after.status, after.activePaymentID, after.description, after.version],
        ["unpaid", undefined, "changed meanwhile", seen.version + 2]
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a capture's end given the invoice as the capture read it settles the invoice as it stands when it changed since", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000)
      const payments = yield* PaymentService
      const hold = yield* Arrange.startPayment(m, inv.id, { flow: { type: "PaymentFlowHold" } })
      yield* MemoryKassa.settle
      // the acquirer's capture fails once: the payment stays capturing
      yield* (yield* ScriptedAcquirer).script.capture(Scripted.fail())
      yield* payments.capture(m.partyID, inv.id, hold.id, { reason: "shipped" })
      yield* MemoryKassa.settle
      const p = yield* payments.get(m.partyID, inv.id, hold.id)
      assert.deepStrictEqual([p.status, p.activity], ["processed", "capturing"])
      const invoices = yield* InvoiceRepository
      const seen = Option.getOrThrow(yield* invoices.findById(m.partyID, inv.id))
      assert.isTrue(yield* invoices.update({ ...seen, description: "changed meanwhile", version: seen.version + 1 }, seen.version))
      yield* payments.advance(inv.id, hold.id, p, seen)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, hold.id)).status, "captured")
      // paid, the change kept: decided again on a fresh read, not written over from the stale copy
      const after = Option.getOrThrow(yield* invoices.findById(m.partyID, inv.id))
      assert.deepStrictEqual([after.status, after.description, after.version], ["paid", "changed meanwhile", seen.version + 2])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
