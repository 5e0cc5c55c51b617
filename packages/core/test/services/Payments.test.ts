/**
 * The payment's life with the acquirer: authorisation, 3-D Secure, capture, decline, and what
 * each outcome leaves in the invoice, its events and the ledger.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentParams } from "@kassa/core/payment/Payment"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import * as Settings from "@kassa/core/Settings"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted

describe("PaymentService: authorisation and capture", () => {
  it.effect("an instant payment is authorised, captured, pays its invoice and credits the shop less the fee", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 10_000)
      assert.strictEqual(payment.status, "captured")
      assert.strictEqual(payment.fee, 260)
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepStrictEqual(calls.map((c) => [c.method, c.operationID]), [
        ["authorize", `${invoice.id}.${payment.id}`],
        ["capture", `${invoice.id}.${payment.id}`]
      ])
      assert.deepInclude(calls[0], { amount: 10_000, currency: "RUB", toolType: "BankCard", hold: false })
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, invoice.id)).status, "paid")
      assert.deepStrictEqual(yield* Arrange.changeTypes(m.partyID, invoice.id), [
        "InvoiceCreated",
        "PaymentStarted",
        "PaymentStatusChanged",
        "PaymentStatusChanged",
        "InvoiceStatusChanged"
      ])
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 10_000 - 260)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a declined payment fails with the acquirer's error; the invoice stays unpaid and takes another payment", () =>
    Effect.gen(function*() {
      const { m, inv, started: first } = yield* Arrange.startedPayment(5_000, {
        script: { authorize: [Scripted.answer(Scripted.declined("authorization_failed", "insufficient_funds"))] }
      })
      yield* MemoryKassa.settle
      const payments = yield* PaymentService
      const failed = yield* payments.get(m.partyID, inv.id, first.id)
      assert.strictEqual(failed.status, "failed")
      assert.deepStrictEqual(failed.error, { code: "authorization_failed", subError: { code: "insufficient_funds" } })
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, inv.id)).status, "unpaid")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 0)

      const second = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, second.id)).status, "captured")
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, inv.id)).status, "paid")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a second payment is refused while the first is in flight", () =>
    Effect.gen(function*() {
      const { m, inv } = yield* Arrange.startedPayment(5_000, { script: { authorize: [Scripted.answer(Scripted.challenge)] } })
      yield* MemoryKassa.settle
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invoicePaymentPending")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("PaymentService: 3-D Secure", () => {
  const challenged = Effect.gen(function*() {
    const { m, inv, started } = yield* Arrange.startedPayment(7_000, {
      script: { authorize: [Scripted.answer(Scripted.challenge)] }
    })
    yield* MemoryKassa.settle
    const p = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
    return { m, inv, p }
  })

  it.effect("a passed challenge authorises and captures the payment", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* challenged
      assert.strictEqual(p.status, "pending")
      assert.isDefined(p.interactionID)
      const payments = yield* PaymentService
      const answered = yield* payments.completeChallenge(p.interactionID!, true)
      assert.isTrue(answered.decided)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "captured")
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepStrictEqual(calls.map((c) => c.method), ["authorize", "completeInteraction", "capture"])
      assert.deepStrictEqual(yield* Arrange.changeTypes(m.partyID, inv.id), [
        "InvoiceCreated",
        "PaymentStarted",
        "PaymentInteractionRequested",
        "PaymentInteractionCompleted",
        "PaymentStatusChanged",
        "PaymentStatusChanged",
        "InvoiceStatusChanged"
      ])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a failed challenge fails the payment; a second answer to it decides nothing", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* challenged
      const payments = yield* PaymentService
      assert.isTrue((yield* payments.completeChallenge(p.interactionID!, false)).decided)
      yield* MemoryKassa.settle
      const again = yield* payments.completeChallenge(p.interactionID!, true)
      assert.isFalse(again.decided)
      const failed = yield* payments.get(m.partyID, inv.id, p.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.code, "preauthorization_failed")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("of two answers to one challenge at once, one decides and the acquirer hears it once", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* challenged
      const payments = yield* PaymentService
      const answers = yield* Effect.all(
        [true, true].map((passed) => payments.completeChallenge(p.interactionID!, passed)),
        { concurrency: "unbounded" }
      )
      yield* MemoryKassa.settle
      assert.deepStrictEqual(answers.map((a) => a.decided).sort(), [false, true])
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.strictEqual(calls.filter((c) => c.method === "completeInteraction").length, 1)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "captured")
      assert.strictEqual(yield* Arrange.ledgerTotal(m), 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an abandoned challenge fails the payment when the payer's time runs out, not before", () =>
    Effect.gen(function*() {
      const { inv, m, p } = yield* challenged
      const payments = yield* PaymentService
      yield* MemoryKassa.elapse(Settings.defaults.interactionTimeoutMs - 1)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, p.id)).status, "pending")
      yield* MemoryKassa.elapse(1)
      const failed = yield* payments.get(m.partyID, inv.id, p.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.code, "preauthorization_failed")
      assert.strictEqual((yield* (yield* InvoiceService).get(m.partyID, inv.id)).status, "unpaid")
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepStrictEqual(calls.map((c) => c.method), ["authorize"])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("PaymentService: externalID, per caller's scope", () => {
  it.effect("the same externalID and request answer the first payment; another request is a conflict naming it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000)
      const payer = yield* Arrange.cardPayer(m.partyID)
      const first = yield* Arrange.startPayment(m, inv.id, { externalID: "order-1", payer })
      yield* MemoryKassa.settle
      const again = yield* Arrange.startPayment(m, inv.id, { externalID: "order-1", payer })
      assert.strictEqual(again.id, first.id)
      assert.strictEqual(again.status, "captured")
      const conflict = yield* Effect.flip(Arrange.startPayment(m, inv.id, { externalID: "order-1", payer, makeRecurrent: true }))
      assert.deepInclude(conflict, { _tag: "ExternalIdConflict", externalID: "order-1", id: first.id })
      assert.strictEqual((yield* (yield* ScriptedAcquirer).calls).length, 2)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an externalID sent through an invoice's access token is that token's, apart from the party's", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const payments = yield* PaymentService
      const a = yield* Arrange.invoice(m, 1_000)
      yield* Arrange.startPayment(m, a.id, { externalID: "order-1" })
      yield* MemoryKassa.settle
      const b = yield* Arrange.invoice(m, 2_000)
      const conflict = yield* Effect.flip(Arrange.startPayment(m, b.id, { externalID: "order-1" }))
      assert.strictEqual(conflict._tag, "ExternalIdConflict")
      const payer = yield* Arrange.cardPayer(m.partyID)
      const params = Schema.decodeUnknownSync(PaymentParams)({ externalID: "order-1", flow: { type: "PaymentFlowInstant" }, payer })
      const viaToken = yield* payments.create(m.partyID, b.id, params, `invoice/${b.id}`)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, b.id, viaToken.id)).status, "captured")
      assert.strictEqual((yield* payments.getByExternalID(m.partyID, "order-1")).invoiceID, a.id)
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
