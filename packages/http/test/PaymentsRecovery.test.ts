import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { InvoiceService, PaymentError, PaymentResources, PaymentService } from "@kassa/core"
import type { Payment } from "@kassa/core"
import { Dialects, Fixtures, LedgerChecks } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { crashAndRestart, sleepReal } from "./support/Restart.js"

/**
 * The crash test: the domain layer is built on a database, payments are started and left in
 * every stage of their work, the layer is torn down abruptly (as a process that dies), and a
 * second layer on the same database (a restarted process, with a test acquirer that forgot
 * everything) must finish every payment exactly once.
 */

const VISA = "4242424242424242"
const SLOW = "4000000000000101"
const THREE_DS = "4000000000003220"
const DECLINED = "4000000000009995"

/** 3.5 %, rounded half up: the fee of test institution 1. */
const fee = (amount: number) => Math.floor((amount * 35 + 500) / 1000)

type Expected =
  | { readonly status: "captured"; readonly amount: number }
  | { readonly status: "cancelled" | "processed" }
  | { readonly status: "failed"; readonly error: PaymentError.PaymentError }

interface Case {
  readonly name: string
  readonly invoiceID: string
  readonly paymentID: string
  readonly expected: Expected
  /** The statuses its PaymentStatusChanged events must name, each once, in order. */
  readonly trail: ReadonlyArray<string>
}

const trailOf = (e: Expected): ReadonlyArray<string> =>
  e.status === "failed" ? ["failed"] : e.status === "processed" ? ["processed"] : ["processed", e.status]

/** The first process: starts payments in every stage and answers what each must end as. */
const firstRun = Effect.gen(function*() {
  const invoices = yield* InvoiceService.InvoiceService
  const resources = yield* PaymentResources.PaymentResources
  const payments = yield* PaymentService.PaymentService
  const m = yield* Fixtures.merchant()

  const start = (card: string, flow: Payment.PaymentParams["flow"], amount = 1000) =>
    Effect.gen(function*() {
      const { invoice } = yield* invoices.create(m.partyID, {
        shopID: m.shopID,
        dueDate: new Date(Date.now() + 86_400_000),
        amount,
        currency: "RUB",
        product: "Tea",
        metadata: {}
      })
      const resource = yield* resources.create(m.partyID, {
        paymentTool: { paymentToolType: "CardData", cardNumber: card, expDate: "12/40", cvv: "123" },
        clientInfo: { fingerprint: "device" }
      })
      const payment = yield* payments.create(m.partyID, invoice.id, {
        flow,
        payer: {
          payerType: "PaymentResourcePayer",
          paymentToolToken: resource.paymentToolToken,
          paymentSession: resource.paymentSession,
          contactInfo: {}
        },
        makeRecurrent: false
      })
      return { invoiceID: invoice.id, paymentID: payment.id }
    })

  const waitUntil = (ref: { invoiceID: string; paymentID: string }, done: (p: { status: string; activity: string }) => boolean) =>
    Effect.gen(function*() {
      const until = Date.now() + 10_000
      let p = yield* payments.get(m.partyID, ref.invoiceID, ref.paymentID)
      while (!done(p) && Date.now() < until) {
        yield* sleepReal(20)
        p = yield* payments.get(m.partyID, ref.invoiceID, ref.paymentID)
      }
      assert.isTrue(done(p), `${ref.invoiceID}/${ref.paymentID} is ${p.status}/${p.activity}`)
      return p
    })

  const hold = { type: "PaymentFlowHold", onHoldExpiration: "cancel" } as const
  const instant = { type: "PaymentFlowInstant" } as const
  const cases: Array<Case> = []
  const add = (name: string, ref: { invoiceID: string; paymentID: string }, expected: Expected) =>
    cases.push({ name, ...ref, expected, trail: trailOf(expected) })

  // holds, authorised first: to be captured, captured in part, cancelled, and left alone
  const holds = yield* Effect.all([start(VISA, hold), start(VISA, hold), start(VISA, hold), start(VISA, hold)])
  for (const ref of holds) yield* waitUntil(ref, (p) => p.status === "processed" && p.activity === "waiting")
  // a 3-D Secure challenge the payer has not answered yet
  const challenged = yield* start(THREE_DS, instant)
  const interaction = yield* waitUntil(challenged, (p) => p.activity === "interaction")
  add("3-D Secure pending at the crash (the restarted acquirer forgot the challenge)", challenged, {
    status: "failed",
    error: { code: "preauthorization_failed" }
  })

  // in flight at the crash: slow authorisations, fresh ones, a decline, captures and a cancel
  add("slow instant card, mid-authorisation", yield* start(SLOW, instant), { status: "captured", amount: 1000 })
  add("slow instant card, mid-authorisation (2)", yield* start(SLOW, instant, 2000), { status: "captured", amount: 2000 })
  add("slow hold card, mid-authorisation", yield* start(SLOW, hold, 3000), { status: "processed" })
  add("instant card just started", yield* start(VISA, instant, 1500), { status: "captured", amount: 1500 })
  add("instant card just started (2)", yield* start(VISA, instant, 2500), { status: "captured", amount: 2500 })
  add("declined card just started", yield* start(DECLINED, instant), {
    status: "failed",
    error: PaymentError.of("authorization_failed", "insufficient_funds")
  })
  yield* payments.capture(m.partyID, holds[0]!.invoiceID, holds[0]!.paymentID, { reason: "shipped" })
  add("hold being captured", holds[0]!, { status: "captured", amount: 1000 })
  yield* payments.capture(m.partyID, holds[1]!.invoiceID, holds[1]!.paymentID, { reason: "partly shipped", amount: 700 })
  add("hold being captured in part", holds[1]!, { status: "captured", amount: 700 })
  yield* payments.cancel(m.partyID, holds[2]!.invoiceID, holds[2]!.paymentID, "out of stock")
  add("hold being cancelled", holds[2]!, { status: "cancelled" })
  add("hold left waiting", holds[3]!, { status: "processed" })
  // the slow authorisations take 5 s: they are surely in flight when the process dies
  for (const c of cases.filter((c) => c.name.startsWith("slow"))) {
    const p = yield* payments.get(m.partyID, c.invoiceID, c.paymentID)
    assert.deepStrictEqual([p.status, p.activity], ["pending", "processing"], c.name)
  }
  return { merchant: m, cases, interactionID: interaction.interactionID! }
})

/** The restarted process: finishes what is left and checks that everything happened once. */
const secondRun = (setup: Effect.Effect.Success<typeof firstRun>) =>
  Effect.gen(function*() {
    const payments = yield* PaymentService.PaymentService
    const invoices = yield* InvoiceService.InvoiceService
    const sql = yield* SqlClient.SqlClient
    const m = setup.merchant
    // the payer answers the challenge only now
    yield* payments.completeChallenge(setup.interactionID, true).pipe(Effect.ignore)

    const isDone = (c: Case, p: { status: string; activity: string }) =>
      c.expected.status === "processed" ? p.status === "processed" && p.activity === "waiting" : p.activity === "done"
    const until = Date.now() + 20_000
    let pending = [...setup.cases]
    while (pending.length > 0 && Date.now() < until) {
      const left: Array<Case> = []
      for (const c of pending) {
        const p = yield* payments.get(m.partyID, c.invoiceID, c.paymentID)
        if (!isDone(c, p)) left.push(c)
      }
      pending = left
      if (pending.length > 0) yield* sleepReal(50)
    }
    assert.deepStrictEqual(pending.map((c) => c.name), [], "every payment ends within 20 s of the restart")
    // time for duplicated work to show up, were there any: several recovery periods
    yield* sleepReal(1_500)

    let shopOwn = 0
    for (const c of setup.cases) {
      const p = yield* payments.get(m.partyID, c.invoiceID, c.paymentID)
      assert.strictEqual(p.status, c.expected.status, c.name)
      if (c.expected.status === "captured") {
        assert.strictEqual(p.amount, c.expected.amount, c.name)
        shopOwn += c.expected.amount - fee(c.expected.amount)
      }
      if (c.expected.status === "failed") assert.deepStrictEqual(p.error, c.expected.error, c.name)
      // one PaymentStatusChanged per status it went through, in order, and nothing twice
      const events = yield* invoices.events(m.partyID, c.invoiceID, 1000, undefined)
      const changes = events.flatMap((e) => e.changes)
      const statuses = changes.flatMap((ch) =>
        ch.changeType === "PaymentStatusChanged" && ch.paymentID === c.paymentID ? [ch.status] : []
      )
      assert.deepStrictEqual(statuses, c.trail, `${c.name}: status events`)
      assert.strictEqual(changes.filter((ch) => ch.changeType === "PaymentStarted").length, 1, c.name)
      // the invoice is paid exactly when its payment is captured, in the same event
      const invoice = yield* invoices.get(m.partyID, c.invoiceID)
      const paidEvents = events.filter((e) => e.changes.some((ch) => ch.changeType === "InvoiceStatusChanged" && ch.status === "paid"))
      if (c.expected.status === "captured") {
        assert.strictEqual(invoice.status, "paid", c.name)
        assert.strictEqual(paidEvents.length, 1, c.name)
        assert.isTrue(paidEvents[0]!.changes.some((ch) => ch.changeType === "PaymentStatusChanged" && ch.status === "captured"))
      } else {
        assert.strictEqual(invoice.status, "unpaid", c.name)
        assert.strictEqual(paidEvents.length, 0, c.name)
      }
      // the ledger plan follows the status
      const plan = (yield* LedgerChecks.snapshot).plans.find((pl) => pl.id === `payment/${c.invoiceID}/${c.paymentID}`)
      const expectedPlan = { captured: "commit", cancelled: "rollback", processed: "hold", failed: undefined }[c.expected.status]
      assert.strictEqual(plan?.state, expectedPlan, `${c.name}: ledger plan`)
      // a final payment keeps no timers; a waiting hold keeps its hold timer
      const timers = yield* sql<{ kind: string }>`SELECT kind FROM timers WHERE subject = ${`${c.invoiceID}/${c.paymentID}`}`.pipe(
        Effect.orDie
      )
      const kinds = timers.map((t) => t.kind).sort()
      if (c.expected.status === "processed") assert.include(kinds, PaymentService.HOLD_TIMER, `${c.name}: timers`)
      else assert.deepStrictEqual(kinds, [], `${c.name}: timers left`)
    }
    yield* LedgerChecks.invariants
    const account = yield* LedgerChecks.account({ kind: "settlement", partyID: m.partyID, shopID: m.shopID, currency: "RUB" })
    assert.strictEqual(account?.own, shopOwn, "the shop earns each captured amount less the fee on it, once")
  })

for (const dialect of Dialects.dialects()) {
  describe(`Payments recovery [${dialect}]`, () => {
    it.live(
      "a process dies with payments in flight; the restarted one finishes each exactly once",
      // the second process's extra slow authorisations (a durable timer retries every 500 ms
      // while the slow card takes 5 s) end after the test
      () => crashAndRestart(dialect, firstRun, secondRun),
      60_000
    )
  })
}
