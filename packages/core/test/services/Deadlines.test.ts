/**
 * Deadlines kept by the clock: a payment's processing deadline against an acquirer that does
 * not answer, and an invoice's due date.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import * as Settings from "@kassa/core/Settings"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted

const invoiceOf = (partyID: string, invoiceID: string) => Effect.flatMap(InvoiceService, (s) => s.get(partyID, invoiceID))

describe("PaymentService: processing deadline", () => {
  it.effect("an authorisation that does not answer by the deadline fails the payment at the deadline", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const acquirer = yield* ScriptedAcquirer
      yield* acquirer.script.authorize(Scripted.hang)
      const inv = yield* Arrange.invoice(m, 3_000)
      const started = yield* Arrange.startPayment(m, inv.id, { processingDeadline: "5s" })
      const deadline = (yield* Clock.currentTimeMillis) + 5_000
      yield* acquirer.awaitCalls("authorize", 1)
      yield* MemoryKassa.awaitSleepUntil(deadline)
      const payments = yield* PaymentService
      // no settling: the authorisation is still waiting, on the clock
      yield* TestClock.adjust(4_999)
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "pending")
      yield* MemoryKassa.elapse(1)
      const failed = yield* payments.get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.deepStrictEqual(failed.error, {
        code: "authorization_failed",
        subError: { code: "processing_deadline_reached" }
      })
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "unpaid")
      assert.deepStrictEqual((yield* acquirer.calls).map((c) => c.method), ["authorize"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a payment whose deadline passed before its work resumed fails without calling the acquirer again", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const acquirer = yield* ScriptedAcquirer
      // the first attempt dies; the deadline passes before the recovery timer resumes it
      yield* acquirer.script.authorize(Scripted.fail())
      const inv = yield* Arrange.invoice(m, 3_000)
      const started = yield* Arrange.startPayment(m, inv.id, { processingDeadline: "2s" })
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(Settings.defaults.recoveryDelayMs)
      const failed = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.subError?.code, "processing_deadline_reached")
      assert.strictEqual((yield* acquirer.calls).length, 1)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a processing deadline that is no duration nor date is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 3_000)
      assert.strictEqual(
        yield* businessCode(Arrange.startPayment(m, inv.id, { processingDeadline: "soon" })),
        "invalidProcessingDeadline"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("InvoiceService: due date", () => {
  it.effect("an unpaid invoice is cancelled as overdue when its due date comes, not before", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000, { dueInMs: 60_000 })
      yield* MemoryKassa.elapse(59_999)
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "unpaid")
      yield* MemoryKassa.elapse(1)
      const expired = yield* invoiceOf(m.partyID, inv.id)
      assert.strictEqual(expired.status, "cancelled")
      assert.strictEqual(expired.reason, "overdue")
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id)), "invalidInvoiceStatus")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a paid invoice stays paid past its due date", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000, { dueInMs: 60_000 })
      yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(120_000)
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "paid")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an invoice with a payment in flight at its due date waits for it; the payment failing then cancels it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const acquirer = yield* ScriptedAcquirer
      yield* acquirer.script.authorize(Scripted.answer(Scripted.challenge))
      const inv = yield* Arrange.invoice(m, 1_000, { dueInMs: 60_000 })
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(120_000)
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "unpaid")
      const p = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      yield* (yield* PaymentService).completeChallenge(p.interactionID!, false)
      yield* MemoryKassa.settle
      const expired = yield* invoiceOf(m.partyID, inv.id)
      assert.strictEqual(expired.status, "cancelled")
      assert.strictEqual(expired.reason, "overdue")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an invoice with a payment in flight at its due date is paid when the payment is captured", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const acquirer = yield* ScriptedAcquirer
      yield* acquirer.script.authorize(Scripted.answer(Scripted.challenge))
      const inv = yield* Arrange.invoice(m, 1_000, { dueInMs: 60_000 })
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(120_000)
      const payments = yield* PaymentService
      const p = yield* payments.get(m.partyID, inv.id, started.id)
      yield* payments.completeChallenge(p.interactionID!, true)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "captured")
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "paid")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a held payment keeps its invoice past the due date; captured then, it pays it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000, { dueInMs: 60_000 })
      const started = yield* Arrange.startPayment(m, inv.id, { flow: { type: "PaymentFlowHold" } })
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(120_000)
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "unpaid")
      const payments = yield* PaymentService
      yield* payments.capture(m.partyID, inv.id, started.id, { reason: "shipped" })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "captured")
      assert.strictEqual((yield* invoiceOf(m.partyID, inv.id)).status, "paid")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
