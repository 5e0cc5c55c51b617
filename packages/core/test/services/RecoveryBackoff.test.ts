/**
 * Background work the acquirer keeps failing transiently is retried with the recovery backoff
 * (10 s, doubling, capped at 10 min) and ends: a payment at its processing deadline, a refund when
 * its retry window closes, a binding at its deadline; each with the interface's error, its money
 * and its CVV's session handled as on any other outcome.
 */
import { assert, describe, it } from "@effect/vitest"
import { CustomerParams } from "@kassa/core/customer/Customer"
import { CustomerService } from "@kassa/core/customer/CustomerService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { CardVault } from "@kassa/core/ports/CardVault"
import { CustomerRepository } from "@kassa/core/ports/CustomerRepository"
import { Ledger } from "@kassa/core/ports/Ledger"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import * as Recovery from "@kassa/core/Recovery"
import { RefundService } from "@kassa/core/refund/RefundService"
import * as Settings from "@kassa/core/Settings"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted
const settings = Settings.defaults

/**
 * When the recovery timer fires, from the work's start, before `end`: the first after
 * `recoveryDelayMs`, then each after the backoff of the attempt before it.
 */
const firings = (end: number) =>
  Effect.gen(function*() {
    const delays = yield* Recovery.delays(settings, 200)
    const at: Array<number> = []
    let t = settings.recoveryDelayMs
    for (const d of delays) {
      if (t >= end) break
      at.push(t)
      t += d
    }
    return at
  })

const count = (method: string) =>
  Effect.map(Effect.flatMap(ScriptedAcquirer, (a) => a.calls), (calls) => calls.filter((c) => c.method === method).length)

/** Moves the clock to `start + offset` and settles. */
const at = (start: number, offset: number) => Effect.zipRight(TestClock.setTime(start + offset), MemoryKassa.settle)

const sessionLives = (session: string | undefined) =>
  session === undefined ? Effect.succeed(false) : Effect.map(Effect.flatMap(CardVault, (v) => v.getSession(session)), Option.isSome)

const shopAvailable = (partyID: string, shopID: string) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const account = yield* ledger.account({ kind: "settlement", partyID, shopID, currency: "RUB" })
    return Option.match(yield* ledger.balance(account), { onNone: () => 0, onSome: (b) => b.minAvailable })
  })

describe("recovery backoff: a payment", () => {
  it.effect("an authorisation that keeps failing is retried with backoff and fails at the processing deadline", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      yield* (yield* ScriptedAcquirer).script.authorize(...Array.from({ length: 50 }, () => Scripted.fail()))
      const inv = yield* Arrange.invoice(m, 4_000)
      const start = yield* Clock.currentTimeMillis
      const started = yield* Arrange.startPayment(m, inv.id, { processingDeadline: "45s" })
      yield* MemoryKassa.settle
      const payments = yield* PaymentService
      const record = yield* Effect.flatMap(PaymentRepository, (r) => r.findById(inv.id, started.id))
      const session = Option.getOrThrow(record).vaultSession
      assert.isTrue(yield* sessionLives(session))
      // retried 10 s, then 10, 20 s apart: the next (at 80 s) would come after the deadline
      for (const [offset, calls] of [[9_999, 1], [10_000, 2], [20_000, 3], [39_999, 3], [40_000, 4], [44_999, 4]] as const) {
        yield* at(start, offset)
        assert.strictEqual(yield* count("authorize"), calls, `calls at ${offset}`)
        assert.strictEqual((yield* payments.get(m.partyID, inv.id, started.id)).status, "pending")
      }
      yield* at(start, 45_000)
      const failed = yield* payments.get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.deepStrictEqual(failed.error, { code: "authorization_failed", subError: { code: "processing_deadline_reached" } })
      assert.isFalse(yield* sessionLives(session), "the CVV's session ends with the payment")
      assert.strictEqual(yield* Arrange.shopBalance(m.partyID, m.shopID), 0)
      // nothing is left to retry
      yield* MemoryKassa.elapse(3_600_000)
      assert.strictEqual(yield* count("authorize"), 4)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a payment naming no deadline fails at the default one however long the acquirer keeps failing", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      yield* (yield* ScriptedAcquirer).script.authorize(...Array.from({ length: 200 }, () => Scripted.fail()))
      const inv = yield* Arrange.invoice(m, 4_000)
      const start = yield* Clock.currentTimeMillis
      const started = yield* Arrange.startPayment(m, inv.id)
      yield* MemoryKassa.settle
      const deadline = settings.defaultProcessingDeadlineMs
      const times = yield* firings(deadline)
      for (const [i, t] of times.entries()) {
        yield* at(start, t)
        assert.strictEqual(yield* count("authorize"), i + 2, `the retry at ${t} ms`)
      }
      yield* at(start, deadline - 1)
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)).status, "pending")
      yield* at(start, deadline)
      const failed = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.subError?.code, "processing_deadline_reached")
      assert.strictEqual(yield* count("authorize"), times.length + 1)
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("recovery backoff: a refund", () => {
  it.effect("a refund that keeps failing is retried with backoff and fails when its window closes, its money released", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const { invoice, payment } = yield* Arrange.paidInvoice(m, 4_000)
      const window = settings.refundRetryWindowMs
      const times = yield* firings(window)
      yield* (yield* ScriptedAcquirer).script.refund(...Array.from({ length: times.length + 1 }, () => Scripted.fail()))
      const available = yield* shopAvailable(m.partyID, m.shopID)
      const refunds = yield* RefundService
      const start = yield* Clock.currentTimeMillis
      const refund = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 1_000 })
      yield* MemoryKassa.settle
      assert.isAtMost(yield* shopAvailable(m.partyID, m.shopID), available - 1_000, "the refund holds its money")
      for (const [i, t] of times.entries()) {
        yield* at(start, t - 1)
        assert.strictEqual(yield* count("refund"), i + 1, `no retry before ${t} ms`)
        yield* at(start, t)
        assert.strictEqual(yield* count("refund"), i + 2, `the retry at ${t} ms`)
      }
      // the waits doubled from 10 s to the cap, then stayed there
      assert.deepStrictEqual(times.slice(0, 8), [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_240_000])
      assert.strictEqual(times[times.length - 1]! - times[times.length - 2]!, settings.recoveryMaxDelayMs)
      yield* at(start, window - 1)
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)).status, "pending")
      yield* at(start, window)
      const failed = yield* refunds.get(m.partyID, invoice.id, payment.id, refund.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.code, "timeout")
      assert.strictEqual(yield* shopAvailable(m.partyID, m.shopID), available, "the failed refund's money is released")
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, invoice.id, payment.id)).status, "captured")
      yield* MemoryKassa.elapse(3_600_000)
      assert.strictEqual(yield* count("refund"), times.length + 1, "nothing is retried after the end")
      // the failed refund took nothing from the payment: the same amount refunds once the acquirer answers
      const again = yield* refunds.create(m.partyID, invoice.id, payment.id, { amount: 1_000 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* refunds.get(m.partyID, invoice.id, payment.id, again.id)).status, "succeeded")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("recovery backoff: a binding", () => {
  it.effect("a verification that keeps failing is retried with backoff and fails at the binding's deadline", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const deadline = settings.defaultProcessingDeadlineMs
      const times = yield* firings(deadline)
      yield* (yield* ScriptedAcquirer).script.authorize(...Array.from({ length: times.length + 1 }, () => Scripted.fail()))
      const customers = yield* CustomerService
      const { customer } = yield* customers.create(
        m.partyID,
        Schema.decodeUnknownSync(CustomerParams)({ shopID: m.shopID, contactInfo: {}, metadata: {} })
      )
      const resource = yield* Arrange.card(m.partyID)
      const start = yield* Clock.currentTimeMillis
      const started = yield* customers.createBinding(m.partyID, customer.id, {
        paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
      })
      yield* MemoryKassa.settle
      const record = yield* Effect.flatMap(CustomerRepository, (r) => r.findBinding(customer.id, started.id))
      const session = Option.getOrThrow(record).vaultSession
      assert.isTrue(yield* sessionLives(session))
      for (const [i, t] of times.entries()) {
        yield* at(start, t)
        assert.strictEqual(yield* count("authorize"), i + 2, `the retry at ${t} ms`)
      }
      yield* at(start, deadline - 1)
      assert.strictEqual((yield* customers.binding(m.partyID, customer.id, started.id)).status, "pending")
      yield* at(start, deadline)
      const failed = yield* customers.binding(m.partyID, customer.id, started.id)
      assert.strictEqual(failed.status, "failed")
      assert.strictEqual(failed.error?.code, "processing_deadline_reached")
      assert.strictEqual((yield* customers.get(m.partyID, customer.id)).status, "unready")
      assert.isFalse(yield* sessionLives(session), "the CVV's session ends with the binding")
      yield* MemoryKassa.elapse(3_600_000)
      assert.strictEqual(yield* count("authorize"), times.length + 1)
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
