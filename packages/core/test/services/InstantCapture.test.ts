/**
 * An instant payment is authorised and captured with the acquirer before anything is recorded,
 * and both answers commit together. A crash between the acquirer's answers and that commit
 * leaves the payment being processed; its recovery asks the acquirer what it did before it gives
 * the payment up at its deadline.
 */
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import * as Settings from "@kassa/core/Settings"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Arrange from "../support/Arrange.js"
import { checkLedger } from "../support/LedgerInvariants.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted
const RECOVERY = Settings.defaults.recoveryDelayMs
/** The platform's fee of a 4,000 payment under the test terms. */
const FEE = 110

const methods = Effect.map(Effect.flatMap(ScriptedAcquirer, (a) => a.calls), (calls) => calls.map((c) => c.method))

/** Each event of the invoice as its change types. */
const eventsOf = (partyID: string, invoiceID: string) =>
  Effect.map(
    Effect.flatMap(InvoiceService, (invoices) => invoices.events(partyID, invoiceID, 1000, undefined)),
    (events) => events.map((e) => e.changes.map((c) => c.changeType === "PaymentStatusChanged" ? `payment ${c.status}` : c.changeType))
  )

/** The payment, its invoice, the shop's balance and the invoice's events, as they stand. */
const outcome = (m: Arrange.Merchant, invoiceID: string, paymentID: string) =>
  Effect.gen(function*() {
    const stored = Option.getOrThrow(yield* (yield* PaymentRepository).findById(invoiceID, paymentID))
    return {
      payment: stored.status,
      version: stored.version,
      invoice: (yield* (yield* InvoiceService).get(m.partyID, invoiceID)).status,
      balance: yield* Arrange.shopBalance(m.partyID, m.shopID),
      total: yield* Arrange.ledgerTotal(m),
      events: yield* eventsOf(m.partyID, invoiceID)
    }
  })

/** What a captured 4,000 payment leaves, once: its one commit after its creation. */
const capturedOnce = {
  payment: "captured",
  version: 2,
  invoice: "paid",
  balance: 4_000 - FEE,
  total: 0,
  events: [["InvoiceCreated"], ["PaymentStarted"], ["payment processed", "payment captured", "InvoiceStatusChanged"]]
}

describe("an instant payment's authorisation and capture", () => {
  it.effect("commit together: one write of the payment after its creation, one event, the ledger held and committed", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000)
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* outcome(m, inv.id, started.id), capturedOnce)
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
      yield* checkLedger(true)
      // nothing is left to resume
      yield* MemoryKassa.elapse(RECOVERY * 3)
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a hold payment still records its authorisation alone and waits", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, { params: { flow: { type: "PaymentFlowHold" } } })
      yield* MemoryKassa.settle
      const o = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([o.payment, o.version, o.invoice, o.balance], ["processed", 2, "unpaid", 0])
      assert.deepStrictEqual(yield* methods, ["authorize"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a crash after the acquirer captured, before the commit, past the deadline: captured once, not failed", () =>
    Effect.gen(function*() {
      // the acquirer captures, but its answer never comes back (the process died)
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { capture: [Scripted.lost(Scripted.done)] },
        params: { processingDeadline: "2s" }
      })
      yield* MemoryKassa.settle
      const interrupted = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([interrupted.payment, interrupted.version, interrupted.balance], ["pending", 1, 0])
      // the recovery timer is due at the deadline: the acquirer is asked, not called again
      yield* MemoryKassa.elapse(2_000)
      assert.deepStrictEqual(yield* outcome(m, inv.id, started.id), capturedOnce)
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
      yield* checkLedger(true)
      yield* MemoryKassa.elapse(RECOVERY * 3)
      assert.deepStrictEqual(yield* outcome(m, inv.id, started.id), capturedOnce)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a crash after the acquirer captured, before the deadline: the retry's repeated calls answer the same, captured once", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, { script: { capture: [Scripted.lost(Scripted.done)] } })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* outcome(m, inv.id, started.id)).payment, "pending")
      yield* MemoryKassa.elapse(RECOVERY)
      assert.deepStrictEqual(yield* outcome(m, inv.id, started.id), capturedOnce)
      assert.deepStrictEqual(yield* methods, ["authorize", "capture", "authorize", "capture"])
      yield* checkLedger(true)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a crash after the acquirer authorised, past the deadline: the authorisation is recorded and the payment captured", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { authorize: [Scripted.lost(Scripted.authorized)] },
        params: { processingDeadline: "2s" }
      })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* outcome(m, inv.id, started.id)).payment, "pending")
      yield* MemoryKassa.elapse(2_000)
      const o = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([o.payment, o.invoice, o.balance, o.total], ["captured", "paid", 4_000 - FEE, 0])
      assert.deepStrictEqual(o.events.flat().filter((t) => t.startsWith("payment ")), ["payment processed", "payment captured"])
      assert.deepStrictEqual(yield* methods, ["authorize", "capture"])
      yield* checkLedger(true)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("past the deadline with nothing done by the acquirer, the payment still fails", () =>
    Effect.gen(function*() {
      // the call dies before the acquirer took it
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { authorize: [Scripted.fail()] },
        params: { processingDeadline: "2s" }
      })
      yield* MemoryKassa.settle
      yield* MemoryKassa.elapse(2_000)
      const failed = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.subError?.code, "processing_deadline_reached")
      const o = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([o.invoice, o.balance, o.total], ["unpaid", 0, 0])
      assert.deepStrictEqual(yield* methods, ["authorize"])
      yield* checkLedger(true)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a declined capture records the authorisation alone; the timer's retry captures", () =>
    Effect.gen(function*() {
      const { m, inv, started } = yield* Arrange.startedPayment(4_000, {
        script: { capture: [Scripted.answer(Scripted.declined("temporarily_unavailable")), Scripted.answer(Scripted.done)] },
        params: { processingDeadline: "2s" }
      })
      yield* MemoryKassa.settle
      const held = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([held.payment, held.version, held.balance], ["processed", 2, 0])
      // past the deadline: a capture is never turned into a failed payment
      yield* MemoryKassa.elapse(RECOVERY)
      const o = yield* outcome(m, inv.id, started.id)
      assert.deepStrictEqual([o.payment, o.invoice, o.balance, o.total], ["captured", "paid", 4_000 - FEE, 0])
      assert.deepStrictEqual(yield* methods, ["authorize", "capture", "capture"])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
