import { assert, layer } from "@effect/vitest"
import type { Invoice, Refund } from "@kassa/core"
import { Dialects, Expect, Fixtures, LedgerChecks, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const { businessError, errorTag, poll } = Expect

// Payments and refunds run in the background on the real clock: the suites exclude the test
// services (the `it.live` of a shared layer) and poll with a bound.

const DAY = 24 * 3_600_000
const CARD = "4242424242424242"
const SLOW_CARD = "4000000000000101"
const DECLINED_CARD = "4000000000000002"
const NO_REFUND_CARD = "4000000000000077"
const AMOUNT_99_MESSAGE = "Declined by the test acquirer: amounts ending in 99 are refused"
const CARD_MESSAGE = "Declined by the test acquirer: refunds of payments by this test card are refused"

type Api = Effect.Effect.Success<ReturnType<typeof TestServer.client>>

const call = TestServer.call

interface PayOptions {
  readonly amount?: number
  readonly card?: string
  readonly currency?: string
  readonly hold?: boolean
  readonly wait?: boolean
  readonly invoice?: Partial<Invoice.InvoiceParams>
}

/** An invoice of `shopID` paid by card, awaited until captured (instant) or processed (hold), or failed. */
const pay = (api: Api, shopID: string, options: PayOptions = {}) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* api.Invoices.createInvoice({
      payload: {
        shopID,
        dueDate: new Date(now + DAY),
        amount: options.amount ?? 10_000,
        currency: options.currency ?? "RUB",
        product: "Tea",
        metadata: {},
        ...options.invoice
      }
    })
    const resource = yield* api.Tokens.createPaymentResource({
      payload: {
        paymentTool: { paymentToolType: "CardData", cardNumber: options.card ?? CARD, expDate: "12/40", cvv: "123" },
        clientInfo: { fingerprint: "refund-tests" }
      }
    })
    const started = yield* api.Payments.createPayment({
      path: { invoiceID: invoice.id },
      payload: {
        flow: options.hold === true ? { type: "PaymentFlowHold", onHoldExpiration: "cancel" } : { type: "PaymentFlowInstant" },
        payer: Fixtures.resourcePayer(resource),
        makeRecurrent: false
      }
    })
    // an instant payment passes through processed on its way to captured; a hold stops there
    const settledStatus = (s: string) => s !== "pending" && (options.hold === true || s !== "processed")
    const payment = options.wait === false ? started : yield* awaitPayment(api, invoice.id, started.id, settledStatus)
    return { invoice, payment, path: { invoiceID: invoice.id, paymentID: started.id } }
  })

const awaitPayment = (api: Api, invoiceID: string, paymentID: string, done: (status: string) => boolean) =>
  poll(api.Payments.getPaymentByID({ path: { invoiceID, paymentID } }), (p) => done(p.status), `payment ${invoiceID}/${paymentID}`)

type PaymentPath = { readonly invoiceID: string; readonly paymentID: string }

/** The refund once the acquirer answered it. */
const settled = (api: Api, path: PaymentPath, refundID: string) =>
  poll(api.Refunds.getRefundByID({ path: { ...path, refundID } }), (r) => r.status !== "pending", `refund ${refundID}`)

/** Every refund of the payment once none is pending. */
const allSettled = (api: Api, path: PaymentPath) =>
  poll(api.Refunds.getRefunds({ path }), (rs) => rs.every((r) => r.status !== "pending"), "refunds")

/** Creates a refund and waits for its outcome. */
const refund = (api: Api, path: PaymentPath, payload: Refund.RefundParams) =>
  Effect.flatMap(api.Refunds.createRefund({ path, payload }), (r) => settled(api, path, r.id))

const num = (v: unknown) => (typeof v === "number" ? v : Number(v))

const settlement = LedgerChecks.settlementAccount

const balanceIs = (partyID: string, shopID: string, own: number, minDiff = 0, maxDiff = 0) =>
  Effect.gen(function*() {
    const a = yield* settlement(partyID, shopID)
    assert.deepStrictEqual({ own: a.own, minDiff: a.minDiff, maxDiff: a.maxDiff }, { own, minDiff, maxDiff }, `settlement of ${shopID}`)
    return a
  })

const platformAccount = (kind: "provider" | "system", currency = "RUB") =>
  Effect.map(LedgerChecks.account({ kind, currency }), (a) => {
    assert.isDefined(a, `${kind} account`)
    return a!.id
  })

const planOf = (id: string) => Effect.map(LedgerChecks.snapshot, (s) => s.plans.find((p) => p.id === id))
const refundPlan = (path: PaymentPath, refundID: string) => planOf(`refund/${path.invoiceID}/${path.paymentID}/${refundID}`)

/** The postings of a plan without descriptions' order mattering. */
const postingsOf = (plan: LedgerChecks.PlanRow | undefined) =>
  (plan?.batches ?? []).flatMap((b) => b.postings).map((p) => ({ from: p.from, to: p.to, amount: p.amount, description: p.description }))
    .sort((a, b) => a.from - b.from || a.to - b.to || a.amount - b.amount)

const sortPostings = <A extends { from: number; to: number; amount: number }>(ps: Array<A>) =>
  ps.sort((a, b) => a.from - b.from || a.to - b.to || a.amount - b.amount)

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Refunds [${dialect}]`, (it) => {
    it.effect("createRefund: 201 pending, then succeeded; getRefunds and getRefundByID read it; the ledger holds then commits", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { payment, path } = yield* pay(api, m.shopID)
        assert.strictEqual(payment.status, "captured")
        assert.strictEqual(payment.amount, 10_000)
        // the shop received the amount less the 3.5 % fee
        const account = yield* balanceIs(m.partyID, m.shopID, 9650)

        const wire = yield* call(
          "POST",
          `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`,
          m.apiKey,
          { amount: 3000, currency: "RUB", reason: "broken cup" }
        )
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["amount", "createdAt", "currency", "id", "reason", "status"])
        assert.strictEqual(wire.json.status, "pending")
        assert.strictEqual(wire.json.amount, 3000)
        assert.strictEqual(wire.json.currency, "RUB")
        assert.strictEqual(wire.json.reason, "broken cup")
        assert.match(wire.json.createdAt, /(Z|[+-]\d{2}:\d{2})$/)
        const first = yield* settled(api, path, wire.json.id)
        assert.deepStrictEqual(first, {
          id: wire.json.id,
          createdAt: new Date(wire.json.createdAt),
          amount: 3000,
          currency: "RUB",
          reason: "broken cup",
          status: "succeeded"
        })

        const created = yield* api.Refunds.createRefund({ path, payload: { amount: 2000 } })
        assert.strictEqual(created.status, "pending")
        assert.strictEqual(created.currency, "RUB")
        assert.notStrictEqual(created.id, first.id)
        const second = yield* settled(api, path, created.id)
        assert.deepStrictEqual(second, { ...created, status: "succeeded" })
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [first, second])
        assert.deepStrictEqual(yield* api.Refunds.getRefundByID({ path: { ...path, refundID: first.id } }), first)

        // each refund: the amount back to the provider and the fixed fee of 100 to the platform
        yield* balanceIs(m.partyID, m.shopID, 9650 - 3100 - 2100)
        const provider = yield* platformAccount("provider")
        const system = yield* platformAccount("system")
        for (const [r, amount] of [[first, 3000], [second, 2000]] as const) {
          const plan = yield* refundPlan(path, r.id)
          assert.strictEqual(plan?.state, "commit", `plan of refund ${r.id}`)
          assert.deepStrictEqual(
            postingsOf(plan),
            sortPostings([
              { from: account.id, to: provider, amount, description: "refund" },
              { from: account.id, to: system, amount: 100, description: "refund fee" }
            ])
          )
        }
        // the payment is still captured: 5000 remain
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        // the account endpoint (v1 and v2) agrees with the ledger
        const v1 = yield* call("GET", `/v1/processing/accounts/${account.id}`, m.apiKey)
        assert.strictEqual(v1.status, 200, v1.text)
        assert.deepStrictEqual(v1.json, { id: account.id, ownAmount: 4450, availableAmount: 4450, currency: "RUB" })
        assert.deepStrictEqual(
          yield* api.Accounts.getAccountByID({ path: { accountID: account.id } }),
          { id: account.id, ownAmount: 4450, availableAmount: 4450, currency: "RUB" }
        )
        yield* LedgerChecks.invariants
      }))

    it.effect("the shop's balance must cover the refund and its fee: 9550 of a fresh 10000 fits, 9551 and the full amount do not", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { path } = yield* pay(api, m.shopID)
        // 10000 − 350 (3.5 %) = 9650 on the shop; a refund takes its amount + 100
        yield* balanceIs(m.partyID, m.shopID, 9650)
        yield* businessError(api.Refunds.createRefund({ path, payload: {} }), "insufficentAccountBalance")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 10_000 } }), "insufficentAccountBalance")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 9551 } }), "insufficentAccountBalance")
        const wire = yield* call("POST", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`, m.apiKey, {
          amount: 9551
        })
        assert.strictEqual(wire.status, 400)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["code", "message"])
        assert.strictEqual(wire.json.code, "insufficentAccountBalance")
        // a refused refund leaves nothing behind
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [])
        yield* balanceIs(m.partyID, m.shopID, 9650)
        assert.isUndefined(yield* refundPlan(path, "1"))

        const fits = yield* refund(api, path, { amount: 9550 })
        assert.strictEqual(fits.status, "succeeded")
        assert.strictEqual(fits.amount, 9550)
        yield* balanceIs(m.partyID, m.shopID, 0)
        // 450 remain refundable, but the shop has nothing left for even the smallest refund
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1 } }), "insufficentAccountBalance")
        assert.strictEqual((yield* api.Refunds.getRefunds({ path })).length, 1)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")

        // the fee rounds half up: 3.5 % of 100 is 3.5 → 4, the shop gets 96; no refund of it fits
        const small = yield* pay(api, m.shopIDs[1]!, { amount: 100 })
        yield* balanceIs(m.partyID, m.shopIDs[1]!, 96)
        yield* businessError(api.Refunds.createRefund({ path: small.path, payload: { amount: 1 } }), "insufficentAccountBalance")
        yield* LedgerChecks.invariants
      }))

    it.effect("/metrics counts payments by the status they reach and refunds by outcome, once committed", () =>
      Effect.gen(function*() {
        const counted = Effect.map(TestServer.raw("GET", "/metrics"), ({ text }) => (series: string) =>
          Number(text.split("\n").find((l) => l.startsWith(series + " "))?.split(" ")[1] ?? 0))
        const before = yield* counted
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { path } = yield* pay(api, m.shopID)
        yield* pay(api, m.shopID) // funds the shop for the refund
        const declined = yield* pay(api, m.shopID, { card: DECLINED_CARD })
        assert.strictEqual(declined.payment.status, "failed")
        assert.strictEqual((yield* refund(api, path, {})).status, "succeeded")
        yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        const after = yield* counted
        for (const [series, added] of [
          [`kassa_payments_total{status="processed"}`, 2],
          [`kassa_payments_total{status="captured"}`, 2],
          [`kassa_payments_total{status="failed"}`, 1],
          [`kassa_payments_total{status="refunded"}`, 1],
          [`kassa_refunds_total{status="succeeded"}`, 1]
        ] as const) {
          assert.isAtLeast(after(series) - before(series), added, series)
        }
      }))

    it.effect("amount omitted refunds the remainder; nothing left → the payment is refunded, the invoice stays paid; events", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice, path } = yield* pay(api, m.shopID)
        const other = yield* pay(api, m.shopID) // funds the shop: 2 × 9650
        yield* balanceIs(m.partyID, m.shopID, 19_300)

        const started1 = yield* api.Refunds.createRefund({ path, payload: { amount: 3000 } })
        const r1 = yield* settled(api, path, started1.id)
        const started2 = yield* api.Refunds.createRefund({ path, payload: {} })
        assert.strictEqual(started2.amount, 7000, "the remainder")
        assert.strictEqual(started2.currency, "RUB")
        const r2 = yield* settled(api, path, started2.id)
        assert.strictEqual(r2.status, "succeeded")
        const refunded = yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        assert.strictEqual(refunded.status, "refunded")
        const paidInvoice = yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })
        assert.strictEqual(paidInvoice.status, "paid")
        yield* balanceIs(m.partyID, m.shopID, 19_300 - 3100 - 7100)
        // nothing more to refund, in any way
        for (const payload of [{}, { amount: 1 }]) {
          yield* businessError(api.Refunds.createRefund({ path, payload }), "invalidPaymentStatus")
        }
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: other.path })).status, "captured")

        // the invoice's events, in the specification's shapes
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: invoice.id }, urlParams: { limit: 100 } })
        const refundChanges = events.flatMap((e) => e.changes.filter((c) => c.changeType.startsWith("Refund")).map(() => e))
        const startedEvents = events.filter((e) => e.changes.some((c) => c.changeType === "RefundStarted"))
        assert.deepStrictEqual(startedEvents.map((e) => e.changes), [
          [{ changeType: "RefundStarted", paymentID: path.paymentID, refund: started1 }],
          [{ changeType: "RefundStarted", paymentID: path.paymentID, refund: started2 }]
        ])
        const statusEvents = events.filter((e) => e.changes.some((c) => c.changeType === "RefundStatusChanged"))
        assert.deepStrictEqual(statusEvents.map((e) => e.changes), [
          [{ changeType: "RefundStatusChanged", paymentID: path.paymentID, refundID: r1.id, status: "succeeded" }],
          [
            { changeType: "RefundStatusChanged", paymentID: path.paymentID, refundID: r2.id, status: "succeeded" },
            { changeType: "PaymentStatusChanged", paymentID: path.paymentID, status: "refunded" }
          ]
        ])
        assert.strictEqual(refundChanges.length, 4)
        // the refund events come last, in order, and the invoice's status never changes after paid
        const last = events.at(-1)!
        assert.deepStrictEqual(last, statusEvents[1])
        const firstRefundEvent = events.indexOf(startedEvents[0]!)
        for (const e of events.slice(firstRefundEvent)) {
          assert.isFalse(e.changes.some((c) => c.changeType === "InvoiceStatusChanged"))
        }
        assert.isTrue(
          events.slice(0, firstRefundEvent).some((e) =>
            e.changes.some((c) => c.changeType === "InvoiceStatusChanged" && c.status === "paid")
          )
        )
        // the wire
        const wire = yield* call("GET", `/v2/processing/invoices/${invoice.id}/events?limit=100`, m.apiKey)
        assert.strictEqual(wire.status, 200)
        const wireStarted = wire.json.flatMap((e: any) => e.changes).filter((c: any) => c.changeType === "RefundStarted")
        assert.deepStrictEqual(Object.keys(wireStarted[0]).sort(), ["changeType", "paymentID", "refund"])
        assert.deepStrictEqual(Object.keys(wireStarted[0].refund).sort(), ["amount", "createdAt", "currency", "id", "status"])
        const wireStatus = wire.json.flatMap((e: any) => e.changes).filter((c: any) => c.changeType === "RefundStatusChanged")
        assert.deepStrictEqual(Object.keys(wireStatus[0]).sort(), ["changeType", "paymentID", "refundID", "status"])
        yield* LedgerChecks.invariants
      }))

    it.effect("partial and repeated refunds; above the remainder → invoicePaymentAmountExceeded; another currency → inconsistentRefundCurrency", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 100_000 }) // funds: 96 500
        const { path } = yield* pay(api, m.shopID)
        yield* balanceIs(m.partyID, m.shopID, 96_500 + 9650)

        const exceeded = yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 10_001 } }), "invoicePaymentAmountExceeded")
        assert.include(exceeded, "10000")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 100, currency: "USD" } }), "inconsistentRefundCurrency")
        yield* businessError(api.Refunds.createRefund({ path, payload: { currency: "EUR" } }), "inconsistentRefundCurrency")
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [])

        assert.strictEqual((yield* refund(api, path, { amount: 4000, currency: "RUB" })).status, "succeeded")
        assert.strictEqual((yield* refund(api, path, { amount: 3000 })).status, "succeeded")
        const left = yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 3001 } }), "invoicePaymentAmountExceeded")
        assert.include(left, "3000")
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        assert.strictEqual((yield* refund(api, path, { amount: 1000 })).status, "succeeded")
        assert.strictEqual((yield* refund(api, path, { amount: 2000 })).status, "succeeded")
        yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        const all = yield* api.Refunds.getRefunds({ path })
        assert.deepStrictEqual(all.map((r) => [r.amount, r.status]), [[4000, "succeeded"], [3000, "succeeded"], [1000, "succeeded"], [2000, "succeeded"]])
        assert.strictEqual(new Set(all.map((r) => r.id)).size, 4)
        yield* balanceIs(m.partyID, m.shopID, 96_500 + 9650 - 10_000 - 4 * 100)
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1 } }), "invalidPaymentStatus")
        yield* LedgerChecks.invariants
      }))

    it.effect("a declined refund fails with {code, message}; its hold is rolled back and it does not count", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice, path } = yield* pay(api, m.shopID)
        const refusing = yield* pay(api, m.shopID, { card: NO_REFUND_CARD })
        assert.strictEqual(refusing.payment.status, "captured")
        yield* balanceIs(m.partyID, m.shopID, 19_300)

        const declined = yield* refund(api, path, { amount: 1099 })
        assert.strictEqual(declined.status, "failed")
        assert.deepStrictEqual(declined.error, { code: "refund_declined", message: AMOUNT_99_MESSAGE })
        const plan = yield* refundPlan(path, declined.id)
        assert.strictEqual(plan?.state, "rollback")
        assert.strictEqual(postingsOf(plan).reduce((a, p) => a + p.amount, 0), 1099 + 100)
        yield* balanceIs(m.partyID, m.shopID, 19_300)

        const byCard = yield* refund(api, refusing.path, { amount: 500 })
        assert.strictEqual(byCard.status, "failed")
        assert.deepStrictEqual(byCard.error, { code: "refund_declined", message: CARD_MESSAGE })
        yield* balanceIs(m.partyID, m.shopID, 19_300)
        const again = yield* refund(api, refusing.path, {})
        assert.strictEqual(again.amount, 10_000, "a failed refund is not counted")
        assert.strictEqual(again.status, "failed")
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: refusing.path })).status, "captured")

        // the failed 1099 does not count: the whole 10000 is still refundable
        const full = yield* refund(api, path, {})
        assert.strictEqual(full.amount, 10_000)
        assert.strictEqual(full.status, "succeeded")
        yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        yield* balanceIs(m.partyID, m.shopID, 19_300 - 10_100)
        const wire = yield* call("GET", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds/${declined.id}`, m.apiKey)
        assert.strictEqual(wire.status, 200)
        assert.deepStrictEqual(wire.json.error, { code: "refund_declined", message: AMOUNT_99_MESSAGE })
        assert.deepStrictEqual(Object.keys(wire.json.error).sort(), ["code", "message"])

        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: invoice.id }, urlParams: { limit: 100 } })
        const failed = events.flatMap((e) => e.changes).filter((c) => c.changeType === "RefundStatusChanged" && c.status === "failed")
        assert.deepStrictEqual(failed, [{
          changeType: "RefundStatusChanged",
          paymentID: path.paymentID,
          refundID: declined.id,
          status: "failed",
          error: { code: "refund_declined", message: AMOUNT_99_MESSAGE }
        }])
        yield* LedgerChecks.invariants
      }))

    it.effect("invalidPaymentStatus for a pending, processed, cancelled, failed or refunded payment", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds
        // pending: the slow card takes 5 s to authorise
        const slow = yield* pay(api, m.shopID, { card: SLOW_CARD, wait: false })
        assert.strictEqual(slow.payment.status, "pending")
        yield* businessError(api.Refunds.createRefund({ path: slow.path, payload: { amount: 100 } }), "invalidPaymentStatus")
        // processed: an authorised hold
        const held = yield* pay(api, m.shopID, { hold: true })
        assert.strictEqual(held.payment.status, "processed")
        yield* businessError(api.Refunds.createRefund({ path: held.path, payload: { amount: 100 } }), "invalidPaymentStatus")
        yield* businessError(api.Refunds.createRefund({ path: held.path, payload: {} }), "invalidPaymentStatus")
        // captured, it can be refunded
        yield* api.Payments.capturePayment({ path: held.path, payload: { reason: "shipped" } })
        yield* awaitPayment(api, held.path.invoiceID, held.path.paymentID, (s) => s === "captured")
        assert.strictEqual((yield* refund(api, held.path, { amount: 100 })).status, "succeeded")
        // cancelled
        const cancelled = yield* pay(api, m.shopID, { hold: true })
        yield* api.Payments.cancelPayment({ path: cancelled.path, payload: { reason: "out of stock" } })
        yield* awaitPayment(api, cancelled.path.invoiceID, cancelled.path.paymentID, (s) => s === "cancelled")
        yield* businessError(api.Refunds.createRefund({ path: cancelled.path, payload: { amount: 100 } }), "invalidPaymentStatus")
        // failed
        const failed = yield* pay(api, m.shopID, { card: DECLINED_CARD })
        assert.strictEqual(failed.payment.status, "failed")
        yield* businessError(api.Refunds.createRefund({ path: failed.path, payload: { amount: 100 } }), "invalidPaymentStatus")
        // refunded
        const done = yield* pay(api, m.shopID, { amount: 1000 })
        assert.strictEqual((yield* refund(api, done.path, {})).status, "succeeded")
        yield* awaitPayment(api, done.path.invoiceID, done.path.paymentID, (s) => s === "refunded")
        yield* businessError(api.Refunds.createRefund({ path: done.path, payload: { amount: 100 } }), "invalidPaymentStatus")
        for (const p of [slow.path, cancelled.path, failed.path]) assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path: p }), [])
        yield* LedgerChecks.invariants
      }))

    it.effect("cart: the final cart after the refund; an omitted amount follows from it; cart and allocation together → refundCartConflict", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds
        const cart = [{ product: "tea", quantity: 3, price: 1000 }, { product: "cup", price: 1000 }]
        const { path } = yield* pay(api, m.shopID, { amount: 4000, invoice: { cart } })

        // one tea comes back: the final cart holds two teas and the cup
        const finalCart = [{ product: "tea", quantity: 2, price: 1000 }, { product: "cup", price: 1000 }]
        const first = yield* api.Refunds.createRefund({ path, payload: { cart: finalCart } })
        assert.strictEqual(first.amount, 1000)
        assert.deepStrictEqual(first.cart, [
          { product: "tea", quantity: 2, price: 1000, cost: 2000 },
          { product: "cup", quantity: 1, price: 1000, cost: 1000 }
        ])
        assert.strictEqual((yield* settled(api, path, first.id)).status, "succeeded")
        // amount and cart must agree: 3000 remain, a final cart of 1000 means a refund of 2000
        const cupOnly = [{ product: "cup", price: 1000 }]
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 500, cart: cupOnly } }), "invalidInvoiceCart")
        yield* businessError(api.Refunds.createRefund({ path, payload: { cart: [] } }), "invalidInvoiceCart")
        // both cart and allocation
        const allocation = [{
          target: { allocationTargetType: "AllocationTargetShop" as const, shopID: m.shopID },
          allocationBodyType: "AllocationBodyAmount" as const,
          amount: 2000,
          currency: "RUB"
        }]
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 2000, cart: cupOnly, allocation } }), "refundCartConflict")
        const wire = yield* call("POST", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`, m.apiKey, {
          cart: cupOnly,
          allocation
        })
        assert.strictEqual(wire.status, 400)
        assert.strictEqual(wire.json.code, "refundCartConflict")
        assert.strictEqual((yield* api.Refunds.getRefunds({ path })).length, 1)

        const second = yield* api.Refunds.createRefund({ path, payload: { amount: 2000, cart: cupOnly } })
        assert.strictEqual(second.amount, 2000)
        assert.deepStrictEqual(second.cart, [{ product: "cup", quantity: 1, price: 1000, cost: 1000 }])
        assert.strictEqual((yield* settled(api, path, second.id)).status, "succeeded")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1001 } }), "invoicePaymentAmountExceeded")
        yield* balanceIs(m.partyID, m.shopID, 48_250 + 3860 - 1100 - 2100)
        yield* LedgerChecks.invariants
      }))

    it.effect("allocation: each target shop gives back its part; invalidAllocation; allocationNotPermitted on institution 2", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const [shop1, shop2] = [m.shopIDs[0]!, m.shopIDs[1]!]
        const target = (shopID: string) => ({ allocationTargetType: "AllocationTargetShop" as const, shopID })
        const part = (shopID: string, amount: number, currency = "RUB") => ({
          target: target(shopID),
          allocationBodyType: "AllocationBodyAmount" as const,
          amount,
          currency
        })
        const { payment, path } = yield* pay(api, shop1, { invoice: { allocation: [part(shop2, 4000)] } })
        assert.strictEqual(payment.status, "captured")
        // the invoice's shop keeps 10000 − 350 − 4000, the second shop gets its 4000
        const a1 = yield* balanceIs(m.partyID, shop1, 5650)
        const a2 = yield* balanceIs(m.partyID, shop2, 4000)

        // the allocation's total must equal the refund amount
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 3000, allocation: [part(shop2, 1000)] } }), "invalidAllocation")
        yield* businessError(
          api.Refunds.createRefund({ path, payload: { amount: 1000, allocation: [part(shop2, 500), part(shop1, 600)] } }),
          "invalidAllocation"
        )
        // a shop of another party, the same shop twice, another currency
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1000, allocation: [part(other.shopID, 1000)] } }), "invalidAllocation")
        yield* businessError(
          api.Refunds.createRefund({ path, payload: { amount: 1000, allocation: [part(shop2, 500), part(shop2, 500)] } }),
          "invalidAllocation"
        )
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1000, allocation: [part(shop2, 1000, "EUR")] } }), "invalidAllocation")
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [])

        const r = yield* api.Refunds.createRefund({ path, payload: { amount: 3000, allocation: [part(shop2, 1000), part(shop1, 2000)] } })
        assert.deepStrictEqual(r.allocation, [part(shop2, 1000), part(shop1, 2000)])
        assert.strictEqual((yield* settled(api, path, r.id)).status, "succeeded")
        yield* balanceIs(m.partyID, shop1, 5650 - 2000 - 100)
        yield* balanceIs(m.partyID, shop2, 4000 - 1000)
        const provider = yield* platformAccount("provider")
        const system = yield* platformAccount("system")
        assert.deepStrictEqual(
          postingsOf(yield* refundPlan(path, r.id)),
          sortPostings([
            { from: a2.id, to: provider, amount: 1000, description: "refund" },
            { from: a1.id, to: provider, amount: 2000, description: "refund" },
            { from: a1.id, to: system, amount: 100, description: "refund fee" }
          ])
        )
        // the second shop alone gives back 3000: it has exactly that; the fee is the invoice shop's
        const all = yield* refund(api, path, { amount: 3000, allocation: [part(shop2, 3000)] })
        assert.strictEqual(all.status, "succeeded")
        yield* balanceIs(m.partyID, shop2, 0)
        yield* balanceIs(m.partyID, shop1, 3550 - 100)
        // now it has nothing to give back
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1, allocation: [part(shop2, 1)] } }), "insufficentAccountBalance")
        yield* balanceIs(m.partyID, shop2, 0)

        // institution 2 does not allow allocations
        const intl = yield* Fixtures.merchant({
          paymentInstitutionID: 2,
          shops: [
            { name: "EU 1", url: "https://eu1.kassa.test", categoryID: 1, currency: "EUR" },
            { name: "EU 2", url: "https://eu2.kassa.test", categoryID: 1, currency: "EUR" }
          ]
        })
        const intlApi = yield* TestServer.client(intl.apiKey)
        const eur = yield* pay(intlApi, intl.shopID, { currency: "EUR" })
        assert.strictEqual(eur.payment.status, "captured")
        yield* businessError(
          intlApi.Refunds.createRefund({ path: eur.path, payload: { amount: 1000, allocation: [part(intl.shopIDs[1]!, 1000, "EUR")] } }),
          "allocationNotPermitted"
        )
        yield* businessError(intlApi.Refunds.createRefund({ path: eur.path, payload: { amount: 1000, currency: "RUB" } }), "inconsistentRefundCurrency")
        assert.strictEqual((yield* refund(intlApi, eur.path, { amount: 1000 })).status, "succeeded")
        const eurAccount = yield* settlement(intl.partyID, intl.shopID, "EUR")
        assert.deepStrictEqual([eurAccount.own, eurAccount.minDiff, eurAccount.maxDiff], [9650 - 1100, 0, 0])
        yield* LedgerChecks.invariants
      }))

    it.effect("idempotency by externalID: the same request answers the same refund (201), another one 409; lookups by externalID", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds
        const { path } = yield* pay(api, m.shopID)
        const second = yield* pay(api, m.shopID)
        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`

        const first = yield* api.Refunds.createRefund({ path, payload: { externalID: "refund-1", amount: 1000 } })
        assert.strictEqual(first.externalID, "refund-1")
        const done = yield* settled(api, path, first.id)
        const same = yield* call("POST", url, m.apiKey, { externalID: "refund-1", amount: 1000 })
        assert.strictEqual(same.status, 201, same.text)
        assert.strictEqual(same.json.id, first.id)
        assert.strictEqual(same.json.status, "succeeded")
        assert.deepStrictEqual(yield* api.Refunds.createRefund({ path, payload: { externalID: "refund-1", amount: 1000 } }), done)
        assert.strictEqual((yield* api.Refunds.getRefunds({ path })).length, 1)

        // another request with the same externalID
        for (const body of [{ externalID: "refund-1", amount: 2000 }, { externalID: "refund-1" }]) {
          const conflict = yield* call("POST", url, m.apiKey, body)
          assert.strictEqual(conflict.status, 409, conflict.text)
          assert.deepStrictEqual(Object.keys(conflict.json).sort(), ["externalID", "id", "message"])
          assert.strictEqual(conflict.json.externalID, "refund-1")
          assert.strictEqual(conflict.json.id, first.id)
        }
        const onOther = yield* call(
          "POST",
          `/v2/processing/invoices/${second.path.invoiceID}/payments/${second.path.paymentID}/refunds`,
          m.apiKey,
          { externalID: "refund-1", amount: 1000 }
        )
        assert.strictEqual(onOther.status, 409, onOther.text)
        const typed: any = yield* Effect.flip(api.Refunds.createRefund({ path, payload: { externalID: "refund-1", amount: 5 } }))
        assert.strictEqual(typed._tag, "ExternalIdConflict")
        assert.strictEqual(typed.id, first.id)
        assert.strictEqual((yield* api.Refunds.getRefunds({ path })).length, 1)
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path: second.path }), [])

        // lookups
        assert.deepStrictEqual(yield* api.Refunds.getRefundByExternalID({ urlParams: { externalID: "refund-1" } }), done)
        assert.deepStrictEqual(
          yield* api.Refunds.getRefundByExternalIDForParty({ path: { partyID: m.partyID }, urlParams: { externalID: "refund-1" } }),
          done
        )
        assert.strictEqual(yield* errorTag(api.Refunds.getRefundByExternalID({ urlParams: { externalID: "refund-2" } })), "NotFound")
        assert.strictEqual(
          yield* errorTag(api.Refunds.getRefundByExternalIDForParty({ path: { partyID: other.partyID }, urlParams: { externalID: "refund-1" } })),
          "NotFound"
        )
        assert.strictEqual(yield* errorTag(otherApi.Refunds.getRefundByExternalID({ urlParams: { externalID: "refund-1" } })), "NotFound")
        // the other party has its own externalID space
        const theirs = yield* pay(otherApi, other.shopID)
        const r = yield* otherApi.Refunds.createRefund({ path: theirs.path, payload: { externalID: "refund-1", amount: 100 } })
        assert.strictEqual(r.externalID, "refund-1")
        assert.strictEqual((yield* settled(otherApi, theirs.path, r.id)).status, "succeeded")
        assert.deepStrictEqual(yield* api.Refunds.getRefundByExternalID({ urlParams: { externalID: "refund-1" } }), done)
        yield* LedgerChecks.invariants
      }))

    it.effect("another party's payment and unknown ids are 404; the bounds of the request are 400 invalidRequest", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 })
        const { path } = yield* pay(api, m.shopID)
        const r = yield* refund(api, path, { amount: 1000 })
        assert.strictEqual(yield* errorTag(otherApi.Refunds.createRefund({ path, payload: { amount: 100 } })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Refunds.getRefunds({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Refunds.getRefundByID({ path: { ...path, refundID: r.id } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Refunds.getRefundByID({ path: { ...path, refundID: "999" } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Refunds.getRefunds({ path: { ...path, paymentID: "99" } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Refunds.createRefund({ path: { ...path, paymentID: "99" }, payload: {} })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Refunds.createRefund({ path: { ...path, invoiceID: "no-such-invoice" }, payload: {} })), "NotFound")
        const wire = yield* call("GET", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds/${r.id}`, other.apiKey)
        assert.strictEqual(wire.status, 404)
        assert.deepStrictEqual(Object.keys(wire.json), ["message"])
        // the message names what is missing: another party's invoice reads as missing
        const refundPath = (invoiceID: string, paymentID: string, refundID: string) =>
          `/v2/processing/invoices/${invoiceID}/payments/${paymentID}/refunds/${refundID}`
        assert.match(wire.json.message, /^Invoice not found/)
        assert.match((yield* call("GET", refundPath(path.invoiceID, path.paymentID, "999"), m.apiKey)).json.message, /^Refund not found/)
        assert.match((yield* call("GET", refundPath(path.invoiceID, "99", r.id), m.apiKey)).json.message, /^Payment not found/)
        assert.match((yield* call("GET", refundPath("no-such-invoice", path.paymentID, r.id), m.apiKey)).json.message, /^Invoice not found/)
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [r])

        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`
        for (
          const [body, field] of [
            [{ amount: 0 }, "amount"],
            [{ amount: -5 }, "amount"],
            [{ amount: 1.5 }, "amount"],
            [{ currency: "rub" }, "currency"],
            [{ reason: "r".repeat(1001) }, "reason"],
            [{ externalID: "" }, "externalID"],
            [{ externalID: "e".repeat(41) }, "externalID"]
          ] as const
        ) {
          const response = yield* call("POST", url, m.apiKey, body)
          assert.strictEqual(response.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${response.text}`)
          assert.strictEqual(response.json.code, "invalidRequest", response.text)
          assert.include(response.json.message, field)
        }
        const unauthorized = yield* TestServer.raw("GET", `${url}`, { headers: { "x-request-id": TestServer.requestId() } })
        assert.strictEqual(unauthorized.status, 401)
        assert.strictEqual((yield* api.Refunds.getRefunds({ path })).length, 1)
        yield* LedgerChecks.invariants
      }))

    it.effect("50 concurrent refunds of 100 on a remainder of 750: exactly 7 succeed, 43 are invoicePaymentAmountExceeded", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds: 48 250
        const { path } = yield* pay(api, m.shopID, { amount: 1000 }) // + 965
        // 750 remain: the burst can never empty the payment, so it stays captured throughout
        assert.strictEqual((yield* refund(api, path, { amount: 250 })).status, "succeeded")
        yield* balanceIs(m.partyID, m.shopID, 48_250 + 965 - 350)
        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          () => call("POST", url, m.apiKey, { amount: 100 }),
          { concurrency: "unbounded" }
        )
        const created = responses.filter((r) => r.status === 201)
        const refused = responses.filter((r) => r.status !== 201)
        assert.strictEqual(created.length, 7, responses.map((r) => `${r.status} ${r.json?.code ?? ""}`).join(", "))
        for (const r of refused) {
          assert.strictEqual(r.status, 400, r.text)
          assert.strictEqual(r.json.code, "invoicePaymentAmountExceeded", r.text)
        }
        assert.strictEqual(new Set(created.map((r) => r.json.id)).size, 7)
        const all = yield* allSettled(api, path)
        assert.strictEqual(all.length, 8)
        assert.isTrue(all.every((r) => r.status === "succeeded"))
        const taken = all.reduce((a, r) => a + r.amount, 0)
        assert.strictEqual(taken, 950)
        assert.isAtMost(taken, 1000)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        yield* balanceIs(m.partyID, m.shopID, 48_250 + 965 - 350 - 7 * 200)
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 51 } }), "invoicePaymentAmountExceeded")
        assert.strictEqual((yield* refund(api, path, {})).amount, 50)
        yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        yield* LedgerChecks.invariants
      }), 60_000)

    it.effect("50 concurrent partial refunds that all fit queue on the payment: every one is 201, the money adds up", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds for the fees
        const { path } = yield* pay(api, m.shopID, { amount: 10_000 })
        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          (i) => call("POST", url, m.apiKey, { amount: 100 + i }),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(responses.map((r) => r.status), responses.map(() => 201), responses.map((r) => r.text).join("\n"))
        const all = yield* allSettled(api, path)
        assert.strictEqual(all.length, 50)
        assert.strictEqual(new Set(all.map((r) => r.id)).size, 50)
        assert.isTrue(all.every((r) => r.status === "succeeded"))
        const answered = responses.reduce((a, r) => a + num(r.json.amount), 0)
        assert.strictEqual(answered, 50 * 100 + (49 * 50) / 2)
        assert.strictEqual(all.reduce((a, r) => a + r.amount, 0), answered)
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: path.invoiceID }, urlParams: { limit: 1000 } })
        const started = events.flatMap((e) => e.changes).filter((c) => c.changeType === "RefundStarted")
        assert.strictEqual(started.length, 50)
        yield* LedgerChecks.invariants
      }), 60_000)

    it.effect("50 concurrent refunds that together take the whole payment: all succeed, and the payment is refunded once", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds for the fees
        const { path } = yield* pay(api, m.shopID, { amount: 5_000 })
        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`
        // their settlements race too: whichever settles last must see all the others succeeded
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          () => call("POST", url, m.apiKey, { amount: 100 }),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(responses.map((r) => r.status), responses.map(() => 201), responses.map((r) => r.text).join("\n"))
        const all = yield* allSettled(api, path)
        assert.strictEqual(all.length, 50)
        assert.isTrue(all.every((r) => r.status === "succeeded"))
        yield* awaitPayment(api, path.invoiceID, path.paymentID, (s) => s === "refunded")
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: path.invoiceID }, urlParams: { limit: 1000 } })
        const refunded = events.flatMap((e) => e.changes).filter((c) => c.changeType === "PaymentStatusChanged" && c.status === "refunded")
        assert.strictEqual(refunded.length, 1)
        yield* LedgerChecks.invariants
      }), 60_000)

    it.effect("50 concurrent refunds of 100 on a shop holding 1930: exactly 9 fit with their fees, 41 are insufficentAccountBalance", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { path } = yield* pay(api, m.shopID, { amount: 2000 })
        yield* balanceIs(m.partyID, m.shopID, 1930)
        const url = `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          () => call("POST", url, m.apiKey, { amount: 100 }),
          { concurrency: "unbounded" }
        )
        const created = responses.filter((r) => r.status === 201)
        assert.strictEqual(created.length, 9, responses.map((r) => `${r.status} ${r.json?.code ?? ""}`).join(", "))
        for (const r of responses.filter((r) => r.status !== 201)) {
          assert.strictEqual(r.status, 400, r.text)
          assert.strictEqual(r.json.code, "insufficentAccountBalance", r.text)
        }
        const all = yield* allSettled(api, path)
        assert.strictEqual(all.length, 9)
        const taken = all.filter((r) => r.status !== "failed").reduce((a, r) => a + r.amount, 0)
        assert.strictEqual(taken, 900)
        assert.isAtMost(taken, 2000)
        yield* balanceIs(m.partyID, m.shopID, 1930 - 9 * 200)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        yield* LedgerChecks.invariants
      }), 60_000)
  })
}
