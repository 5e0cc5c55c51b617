import { assert, layer } from "@effect/vitest"
import type { Chargeback } from "@kassa/core"
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import { Dialects, Expect, Fixtures, LedgerChecks, TestServer, WebhookReceiver } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const { businessError, errorTag, poll } = Expect

// Payments run in the background on the real clock: the suites exclude the test services (the
// `it.live` of a shared layer) and poll with a bound.

const DAY = 24 * 3_600_000
const CARD = "4242424242424242"

type Api = Effect.Effect.Success<ReturnType<typeof TestServer.client>>
type PaymentPath = { readonly invoiceID: string; readonly paymentID: string }

const call = TestServer.call

const awaitPayment = (api: Api, path: PaymentPath, done: (status: string) => boolean) =>
  poll(api.Payments.getPaymentByID({ path }), (p) => done(p.status), `payment ${path.invoiceID}/${path.paymentID}`)

/** An invoice of `shopID` paid by card, awaited until captured (instant) or processed (hold). */
const pay = (api: Api, shopID: string, options: { readonly amount?: number; readonly hold?: boolean } = {}) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* api.Invoices.createInvoice({
      payload: { shopID, dueDate: new Date(now + DAY), amount: options.amount ?? 10_000, currency: "RUB", product: "Tea", metadata: {} }
    })
    const resource = yield* api.Tokens.createPaymentResource({
      payload: {
        paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "123" },
        clientInfo: { fingerprint: "chargeback-tests" }
      }
    })
    const started = yield* api.Payments.createPayment({
      path: { invoiceID: invoice.id },
      payload: {
        flow: options.hold === true ? { type: "PaymentFlowHold", onHoldExpiration: "cancel" } : { type: "PaymentFlowInstant" },
        payer: {
          payerType: "PaymentResourcePayer",
          paymentToolToken: resource.paymentToolToken,
          paymentSession: resource.paymentSession,
          contactInfo: {}
        },
        makeRecurrent: false
      }
    })
    const path: PaymentPath = { invoiceID: invoice.id, paymentID: started.id }
    const target = options.hold === true ? "processed" : "captured"
    const payment = yield* awaitPayment(api, path, (s) => s === target || s === "failed")
    assert.strictEqual(payment.status, target)
    return { invoice, payment, path }
  })

const refund = (api: Api, path: PaymentPath, payload: { readonly amount?: number }) =>
  Effect.flatMap(
    api.Refunds.createRefund({ path, payload }),
    (r) => poll(api.Refunds.getRefundByID({ path: { ...path, refundID: r.id } }), (x) => x.status !== "pending", "refund")
  )

const num = (v: unknown) => (typeof v === "number" ? v : Number(v))

const settlement = LedgerChecks.settlementAccount

const balanceIs = (m: Fixtures.Merchant, own: number, minDiff = 0, maxDiff = 0) =>
  Effect.gen(function*() {
    const a = yield* settlement(m.partyID, m.shopID)
    assert.deepStrictEqual({ own: a.own, minDiff: a.minDiff, maxDiff: a.maxDiff }, { own, minDiff, maxDiff }, "shop settlement")
    return a
  })

/** `own` and `own + min_diff` (what the account endpoint calls availableAmount). */
const ownAndAvailable = (m: Fixtures.Merchant) =>
  Effect.map(settlement(m.partyID, m.shopID), (a) => ({ own: a.own, available: a.own + a.minDiff }))

const chargebackPlan = (path: PaymentPath, id: string, stage: Chargeback.ChargebackStage) =>
  Effect.map(
    LedgerChecks.snapshot,
    (s) => s.plans.find((p) => p.id === `chargeback/${path.invoiceID}/${path.paymentID}/${id}/${stage}`)
  )

/** The operator's client and a decision helper. */
const operator = Effect.gen(function*() {
  const token = yield* Fixtures.operatorToken
  const api = yield* TestServer.client(token)
  const open = (path: PaymentPath, payload: Chargeback.ChargebackParams) => api.AdminChargebacks.openChargeback({ path, payload })
  const decide = (
    path: PaymentPath,
    chargebackID: string,
    decision: "accept" | "reject" | "cancel" | "reopen",
    payload: Chargeback.ChargebackDecision = {}
  ) => api.AdminChargebacks.decideChargeback({ path: { ...path, chargebackID, decision }, payload })
  return { token, api, open, decide }
})

for (const dialect of Dialects.dialects()) {
  layer(
    TestServer.layer(dialect, { webhooks: { allowPrivateNetworks: true, pollInterval: "50 millis" } }),
    { timeout: "60 seconds", excludeTestServices: true }
  )(`Chargebacks [${dialect}]`, (it) => {
    it.scoped("PaymentChargedBack once nothing of the payment remains: an event of its own, only to its subscribers, shown on the REST payment", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const chargebacks = yield* WebhookReceiver.make
        const others = yield* WebhookReceiver.make
        // PaymentChargedBack is the webhook-events specification's name; the answer lists it
        // apart from `eventTypes`, which holds only values Payments API v2 lists
        const hook = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: ["PaymentChargedBack"] }, url: chargebacks.url }
        })
        assert.deepStrictEqual(hook.scope, { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: [], additionalEventTypes: ["PaymentChargedBack"] })
        const other = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: ["PaymentCaptured", "PaymentRefunded", "PaymentCancelled"] }, url: others.url }
        })
        const { invoice, path } = yield* pay(api, m.shopID)
        const [captured] = yield* others.waitFor(1, { timeoutMs: 20_000 })

        // a partial chargeback, then a rejected one: the payment is not charged back yet
        const partial = yield* op.open(path, { body: 4000, levy: 100, currency: "RUB" })
        yield* op.decide(path, partial.id, "accept")
        assert.isUndefined((yield* api.Payments.getPaymentByID({ path })).chargedBack)
        const rejected = yield* op.open(path, { levy: 100, currency: "RUB" })
        yield* op.decide(path, rejected.id, "reject")
        const last = yield* op.open(path, { levy: 100, currency: "RUB" })
        assert.strictEqual(last.body, 6000)
        yield* op.decide(path, last.id, "accept")

        const [got, ...more] = yield* chargebacks.waitFor(1, { timeoutMs: 20_000 })
        assert.deepStrictEqual(more, [])
        assert.isTrue(verifyNotification(got!.body, got!.headers["content-signature"], hook.publicKey))
        assert.strictEqual(got!.json.eventType, "PaymentChargedBack")
        assert.strictEqual(got!.json.topic, "InvoicesTopic")
        assert.strictEqual(got!.json.invoice.id, invoice.id)
        assert.strictEqual(got!.json.invoice.status, "paid")
        assert.strictEqual(got!.json.payment.id, path.paymentID)
        assert.strictEqual(got!.json.payment.status, "charged_back")
        assert.strictEqual(got!.json.payment.amount, 10_000)
        // its own eventID: after every event the invoice had, and not one getInvoiceEvents
        // answers (the specification's InvoiceChange has no such change type)
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: invoice.id }, urlParams: { limit: 100 } })
        assert.isAbove(got!.json.eventID, captured!.json.eventID)
        assert.isAbove(got!.json.eventID, events.at(-1)!.id)
        assert.notInclude(events.map((e) => e.id), got!.json.eventID)
        // the REST payment: status stays a listed value, `chargedBack` says it
        const rest = yield* api.Payments.getPaymentByID({ path })
        assert.strictEqual(rest.status, "captured")
        assert.strictEqual(rest.chargedBack, true)
        const raw = yield* call("GET", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}`, m.apiKey)
        assert.strictEqual(raw.json.chargedBack, true)
        // queued in the same fan-out as the delivered one: the other hook got nothing for it
        const operatorApi = op.api
        const queued = yield* operatorApi.AdminWebhooks.listWebhookDeliveries({ path: { webhookID: other.id }, urlParams: {} })
        assert.deepStrictEqual(queued.map((d) => d.eventType), ["PaymentCaptured"])
        const mine = yield* operatorApi.AdminWebhooks.listWebhookDeliveries({ path: { webhookID: hook.id }, urlParams: {} })
        assert.deepStrictEqual(mine.map((d) => [d.eventType, d.eventID]), [["PaymentChargedBack", got!.json.eventID]])
      }))

    it.effect("open: 201 pending at the first stage, body defaults to the remainder, body + levy held; merchants read it; cancel releases", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)
        const account = yield* balanceIs(m, 9650)

        const wire = yield* call("POST", `/admin/v1/invoices/${path.invoiceID}/payments/${path.paymentID}/chargebacks`, op.token, {
          levy: 500,
          currency: "RUB",
          reasonCode: "4837"
        })
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(
          Object.keys(wire.json).sort(),
          ["body", "createdAt", "currency", "id", "levy", "reasonCode", "stage", "status"]
        )
        const cb: Chargeback.Chargeback = {
          id: wire.json.id,
          createdAt: new Date(wire.json.createdAt),
          body: 10_000,
          levy: 500,
          currency: "RUB",
          reasonCode: "4837",
          stage: "chargeback",
          status: "pending"
        }
        assert.deepStrictEqual({ ...wire.json, createdAt: new Date(wire.json.createdAt) }, cb)
        assert.match(wire.json.createdAt, /(Z|[+-]\d{2}:\d{2})$/)

        // the merchant reads it; another party does not see it
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebacks({ path }), [cb])
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: cb.id } }), cb)
        const read = yield* call("GET", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/chargebacks/${cb.id}`, m.apiKey)
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.json.stage, "chargeback")
        assert.strictEqual(yield* errorTag(otherApi.Chargebacks.getChargebacks({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: cb.id } })), "NotFound")
        const hidden = yield* call("GET", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/chargebacks/${cb.id}`, other.apiKey)
        assert.strictEqual(hidden.status, 404)
        assert.deepStrictEqual(Object.keys(hidden.json), ["message"])
        assert.strictEqual(yield* errorTag(api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: "no-such-chargeback" } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Chargebacks.getChargebacks({ path: { ...path, paymentID: "99" } })), "NotFound")

        // body + levy held on the shop's settlement: own unchanged, min available down by 10500
        yield* balanceIs(m, 9650, -10_500, 0)
        assert.deepStrictEqual(
          yield* api.Accounts.getAccountByID({ path: { accountID: account.id } }),
          { id: account.id, ownAmount: 9650, availableAmount: 9650 - 10_500, currency: "RUB" }
        )
        const v1 = yield* call("GET", `/v1/processing/accounts/${account.id}`, m.apiKey)
        assert.deepStrictEqual(v1.json, { id: account.id, ownAmount: 9650, availableAmount: -850, currency: "RUB" })

        // a pending chargeback blocks refunds and other chargebacks
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 100 } }), "chargebackInProgress")
        yield* businessError(api.Refunds.createRefund({ path, payload: {} }), "chargebackInProgress")
        const blocked = yield* call("POST", `/v2/processing/invoices/${path.invoiceID}/payments/${path.paymentID}/refunds`, m.apiKey, {
          amount: 100
        })
        assert.strictEqual(blocked.status, 400)
        assert.deepStrictEqual(blocked.json.code, "chargebackInProgress")
        yield* businessError(op.open(path, { levy: 1, currency: "RUB", body: 100 }), "chargebackInProgress")
        assert.deepStrictEqual(yield* api.Refunds.getRefunds({ path }), [])

        // cancel releases everything
        const cancelled = yield* op.decide(path, cb.id, "cancel")
        assert.deepStrictEqual(cancelled, { ...cb, status: "cancelled" })
        yield* balanceIs(m, 9650)
        assert.strictEqual((yield* chargebackPlan(path, cb.id, "chargeback"))?.state, "rollback")
        for (const decision of ["accept", "reject", "cancel", "reopen"] as const) {
          yield* businessError(op.decide(path, cb.id, decision), "invalidRequest")
        }
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: cb.id } }), cancelled)

        // refunds are open again; a new chargeback's body defaults to what remains
        assert.strictEqual((yield* refund(api, path, { amount: 1000 })).status, "succeeded")
        yield* balanceIs(m, 9650 - 1100)
        const second = yield* op.open(path, { levy: 10, currency: "RUB" })
        assert.strictEqual(second.body, 9000)
        assert.isUndefined(second.reasonCode)
        yield* balanceIs(m, 8550, -9010, 0)
        yield* op.decide(path, second.id, "cancel")
        yield* balanceIs(m, 8550)
        const list = yield* api.Chargebacks.getChargebacks({ path })
        assert.deepStrictEqual(
          [...list].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((c) => [c.id, c.body, c.status]),
          [[cb.id, 10_000, "cancelled"], [second.id, 9000, "cancelled"]]
        )
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("reject charges only the levy, accept body + levy; the payment stays captured; refunds see what remains", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { invoice, path } = yield* pay(api, m.shopID)
        yield* balanceIs(m, 9650)

        const first = yield* op.open(path, { body: 3000, levy: 500, currency: "RUB" })
        yield* balanceIs(m, 9650, -3500, 0)
        const rejected = yield* op.decide(path, first.id, "reject")
        assert.deepStrictEqual(rejected, { ...first, status: "rejected" })
        yield* balanceIs(m, 9650 - 500)
        assert.strictEqual((yield* chargebackPlan(path, first.id, "chargeback"))?.state, "commit")

        const second = yield* op.open(path, { body: 2000, levy: 300, currency: "RUB" })
        assert.strictEqual(second.body, 2000, "a rejected chargeback's body does not count")
        yield* balanceIs(m, 9150, -2300, 0)
        const accepted = yield* op.decide(path, second.id, "accept")
        assert.deepStrictEqual(accepted, { ...second, status: "accepted" })
        yield* balanceIs(m, 9150 - 2300)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: second.id } }), accepted)

        // 10000 − 2000 remain refundable; the shop holds 6850
        assert.include(yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 8001 } }), "invoicePaymentAmountExceeded"), "8000")
        yield* businessError(api.Refunds.createRefund({ path, payload: {} }), "insufficentAccountBalance")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 6751 } }), "insufficentAccountBalance")
        assert.strictEqual((yield* refund(api, path, { amount: 6750 })).status, "succeeded")
        yield* balanceIs(m, 0)

        // the last 1250 charged back: the payment still reads captured, nothing remains
        const last = yield* op.open(path, { levy: 1, currency: "RUB" })
        assert.strictEqual(last.body, 1250)
        yield* op.decide(path, last.id, "accept")
        yield* balanceIs(m, -1251)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 1 } }), "invoicePaymentAmountExceeded")
        yield* businessError(api.Refunds.createRefund({ path, payload: {} }), "invoicePaymentAmountExceeded")
        yield* businessError(op.open(path, { levy: 1, currency: "RUB" }), "invoicePaymentAmountExceeded")
        // chargebacks are not invoice events; the invoice stays paid
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: invoice.id }, urlParams: { limit: 100 } })
        for (const e of events) for (const c of e.changes) assert.notInclude(c.changeType.toLowerCase(), "chargeback")
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).status, "paid")
        yield* LedgerChecks.invariants
      }))

    it.effect("accept and reject may change the body and the levy; open checks the body, the currency and the payment's status", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)

        yield* businessError(op.open(path, { body: 10_001, levy: 1, currency: "RUB" }), "invoicePaymentAmountExceeded")
        yield* businessError(op.open(path, { body: 100, levy: 1, currency: "EUR" }), "invalidRequest")
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebacks({ path }), [])
        yield* balanceIs(m, 9650)

        const cb = yield* op.open(path, { body: 1000, levy: 100, currency: "RUB" })
        const accepted = yield* op.decide(path, cb.id, "accept", { body: 1500, levy: 50 })
        assert.deepStrictEqual(accepted, { ...cb, body: 1500, levy: 50, status: "accepted" })
        yield* balanceIs(m, 9650 - 1550)
        const next = yield* op.open(path, { levy: 100, currency: "RUB" })
        assert.strictEqual(next.body, 8500)
        const rejected = yield* op.decide(path, next.id, "reject", { levy: 70 })
        assert.deepStrictEqual(rejected, { ...next, levy: 70, status: "rejected" })
        yield* balanceIs(m, 8100 - 70)

        // a hold that is only processed cannot be charged back; unknown payments are 404
        const held = yield* pay(api, m.shopID, { hold: true })
        yield* businessError(op.open(held.path, { levy: 1, currency: "RUB" }), "invalidPaymentStatus")
        assert.strictEqual(yield* errorTag(op.open({ ...path, paymentID: "99" }, { levy: 1, currency: "RUB" })), "NotFound")
        assert.strictEqual(yield* errorTag(op.decide(path, "no-such-chargeback", "accept")), "NotFound")
        yield* api.Payments.cancelPayment({ path: held.path, payload: { reason: "test over" } })
        yield* awaitPayment(api, held.path, (s) => s === "cancelled")
        yield* businessError(op.open(held.path, { levy: 1, currency: "RUB" }), "invalidPaymentStatus")
        yield* LedgerChecks.invariants
      }))

    it.effect("a reopened chargeback's body may not exceed what remains (invoicePaymentAmountExceeded)", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)
        const cb = yield* op.open(path, { body: 1000, levy: 100, currency: "RUB" })
        yield* op.decide(path, cb.id, "reject")
        yield* businessError(op.decide(path, cb.id, "reopen", { body: 10_001 }), "invoicePaymentAmountExceeded")
        assert.strictEqual((yield* api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: cb.id } })).status, "rejected")
        const reopened = yield* op.decide(path, cb.id, "reopen", { body: 10_000 })
        assert.strictEqual(reopened.body, 10_000)
        yield* op.decide(path, cb.id, "cancel")
        yield* LedgerChecks.invariants
      }))

    it.effect("an accepted body may not exceed what remains (invoicePaymentAmountExceeded); the chargeback stays pending", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds the shop
        const { path } = yield* pay(api, m.shopID)
        assert.strictEqual((yield* refund(api, path, { amount: 4000 })).status, "succeeded")
        // 6000 remain
        const cb = yield* op.open(path, { body: 1000, levy: 100, currency: "RUB" })
        const before = yield* settlement(m.partyID, m.shopID)
        yield* businessError(op.decide(path, cb.id, "accept", { body: 6001 }), "invoicePaymentAmountExceeded")
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: cb.id } }), cb)
        assert.deepStrictEqual(yield* settlement(m.partyID, m.shopID), before)
        const accepted = yield* op.decide(path, cb.id, "accept", { body: 6000 })
        assert.strictEqual(accepted.body, 6000)
        yield* businessError(api.Refunds.createRefund({ path, payload: {} }), "invoicePaymentAmountExceeded")
        yield* LedgerChecks.invariants
      }))

    it.effect("stages: reopen only from rejected, one stage further (or a jump from the first), never after arbitration", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)
        const read = (id: string) => api.Chargebacks.getChargebackByID({ path: { ...path, chargebackID: id } })

        const cb = yield* op.open(path, { body: 1000, levy: 100, currency: "RUB" })
        yield* businessError(op.decide(path, cb.id, "reopen"), "invalidRequest")
        yield* op.decide(path, cb.id, "reject")
        const pre = yield* op.decide(path, cb.id, "reopen")
        assert.deepStrictEqual(pre, { ...cb, stage: "pre-arbitration", status: "pending" })
        assert.deepStrictEqual(yield* read(cb.id), pre)
        // pending again: it blocks refunds and cannot be reopened
        yield* businessError(api.Refunds.createRefund({ path, payload: { amount: 100 } }), "chargebackInProgress")
        yield* businessError(op.decide(path, cb.id, "reopen"), "invalidRequest")
        yield* op.decide(path, cb.id, "reject")
        yield* businessError(op.decide(path, cb.id, "reopen", { stage: "chargeback" }), "invalidRequest")
        yield* businessError(op.decide(path, cb.id, "reopen", { stage: "pre-arbitration" }), "invalidRequest")
        const arb = yield* op.decide(path, cb.id, "reopen", { levy: 150 })
        assert.deepStrictEqual(arb, { ...cb, levy: 150, stage: "arbitration", status: "pending" })
        const final = yield* op.decide(path, cb.id, "reject")
        assert.deepStrictEqual(final, { ...cb, levy: 150, stage: "arbitration", status: "rejected" })
        yield* businessError(op.decide(path, cb.id, "reopen"), "invalidRequest")
        for (const decision of ["accept", "reject", "cancel"] as const) yield* businessError(op.decide(path, cb.id, decision), "invalidRequest")
        assert.deepStrictEqual(yield* read(cb.id), final)
        // rejected at arbitration it no longer blocks refunds
        assert.strictEqual((yield* refund(api, path, { amount: 100 })).status, "succeeded")

        // from the first stage a reopening may jump to arbitration; an accepted one is final
        const jump = yield* op.open(path, { body: 500, levy: 10, currency: "RUB" })
        yield* op.decide(path, jump.id, "reject")
        const skipped = yield* op.decide(path, jump.id, "reopen", { stage: "arbitration" })
        assert.strictEqual(skipped.stage, "arbitration")
        assert.strictEqual(skipped.status, "pending")
        const accepted = yield* op.decide(path, jump.id, "accept")
        assert.strictEqual(accepted.status, "accepted")
        for (const decision of ["accept", "reject", "cancel", "reopen"] as const) {
          yield* businessError(op.decide(path, jump.id, decision), "invalidRequest")
        }
        // a rejected chargeback cannot be reopened while another one is pending
        const third = yield* op.open(path, { body: 100, levy: 1, currency: "RUB" })
        yield* op.decide(path, third.id, "reject")
        const fourth = yield* op.open(path, { body: 100, levy: 1, currency: "RUB" })
        yield* businessError(op.decide(path, third.id, "reopen"), "chargebackInProgress")
        yield* op.decide(path, fourth.id, "cancel")
        assert.strictEqual((yield* op.decide(path, third.id, "reopen")).stage, "pre-arbitration")
        yield* op.decide(path, third.id, "cancel")
        assert.strictEqual((yield* api.Chargebacks.getChargebacks({ path })).length, 4)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("a reopening reverses the previous stage's flow: the merchant pays the final body and levy only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)
        const cb = yield* op.open(path, { body: 2000, levy: 300, currency: "RUB" })
        yield* op.decide(path, cb.id, "reject")
        yield* balanceIs(m, 9650 - 300)
        yield* op.decide(path, cb.id, "reopen", { levy: 400 })
        // while pending at the new stage nothing is committed yet
        assert.strictEqual((yield* ownAndAvailable(m)).own, 9350)
        assert.strictEqual((yield* chargebackPlan(path, cb.id, "pre-arbitration"))?.state, "hold")
        yield* op.decide(path, cb.id, "accept")
        assert.deepStrictEqual(yield* ownAndAvailable(m), { own: 9650 - 2000 - 400, available: 9650 - 2000 - 400 })

        // rejected again after a reopening: only the last levy is charged
        const m2 = yield* Fixtures.merchant()
        const api2 = yield* TestServer.client(m2.apiKey)
        const p2 = yield* pay(api2, m2.shopID)
        const cb2 = yield* op.open(p2.path, { body: 2000, levy: 300, currency: "RUB" })
        yield* op.decide(p2.path, cb2.id, "reject")
        yield* op.decide(p2.path, cb2.id, "reopen")
        yield* op.decide(p2.path, cb2.id, "reject", { levy: 250 })
        assert.deepStrictEqual(yield* ownAndAvailable(m2), { own: 9650 - 250, available: 9650 - 250 })
        yield* LedgerChecks.invariants
      }))

    it.effect("50 concurrent refunds and chargeback openings of one payment queue: 2xx or a business 400, the money adds up", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        yield* pay(api, m.shopID, { amount: 50_000 }) // funds for the fees
        const { path } = yield* pay(api, m.shopID)
        const base = `/invoices/${path.invoiceID}/payments/${path.paymentID}`
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          (i) =>
            i % 2 === 0
              ? Effect.map(call("POST", `/v2/processing${base}/refunds`, m.apiKey, { amount: 100 + i }), (r) => ({ kind: "refund", r }))
              : Effect.map(
                call("POST", `/admin/v1${base}/chargebacks`, op.token, { body: 100 + i, levy: 10, currency: "RUB" }),
                (r) => ({ kind: "chargeback", r })
              ),
          { concurrency: "unbounded" }
        )
        const summary = responses.map(({ kind, r }) => `${kind} ${r.status} ${r.json?.code ?? ""}`).join(", ")
        for (const { r } of responses) {
          assert.isTrue(r.status === 201 || (r.status === 400 && r.json.code === "chargebackInProgress"), summary)
        }
        const opened = responses.filter(({ kind, r }) => kind === "chargeback" && r.status === 201)
        assert.isAtMost(opened.length, 1, summary)
        const refunded = responses.filter(({ kind, r }) => kind === "refund" && r.status === 201)
        const all = yield* poll(api.Refunds.getRefunds({ path }), (rs) => rs.every((x) => x.status !== "pending"), "refunds")
        assert.strictEqual(all.length, refunded.length)
        assert.strictEqual(
          all.reduce((a, x) => a + x.amount, 0),
          refunded.reduce((a, { r }) => a + num(r.json.amount), 0)
        )
        assert.strictEqual((yield* api.Chargebacks.getChargebacks({ path })).length, opened.length)

        // 50 concurrent decisions on one pending chargeback: the first decides, the others are refused
        const cb = opened[0]?.r.json.id ?? (yield* op.open(path, { body: 100, levy: 10, currency: "RUB" })).id
        const decisions = ["accept", "reject", "cancel"] as const
        const decided = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => decisions[i % 3]!),
          (decision) => call("POST", `/admin/v1${base}/chargebacks/${cb}/${decision}`, op.token, {}),
          { concurrency: "unbounded" }
        )
        const statuses = decided.map((r) => `${r.status} ${r.json?.code ?? ""}`).join(", ")
        assert.strictEqual(decided.filter((r) => r.status === 200).length, 1, statuses)
        for (const r of decided) assert.isTrue(r.status === 200 || r.status === 400, statuses)
        yield* LedgerChecks.invariants
      }), 60_000)

    it.effect("the operator API needs an operator token; merchants cannot open or decide", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const op = yield* operator
        const { path } = yield* pay(api, m.shopID)
        const url = `/admin/v1/invoices/${path.invoiceID}/payments/${path.paymentID}/chargebacks`
        for (const token of [m.apiKey, undefined, "not-a-token"]) {
          const response = yield* call("POST", url, token, { levy: 1, currency: "RUB" })
          assert.strictEqual(response.status, 401, response.text)
        }
        assert.strictEqual(yield* errorTag(api.AdminChargebacks.openChargeback({ path, payload: { levy: 1, currency: "RUB" } })), "Unauthorized")
        assert.deepStrictEqual(yield* api.Chargebacks.getChargebacks({ path }), [])
        const cb = yield* op.open(path, { levy: 1, currency: "RUB", body: 100 })
        const decided = yield* call("POST", `${url}/${cb.id}/accept`, m.apiKey, {})
        assert.strictEqual(decided.status, 401)
        assert.strictEqual(yield* errorTag(api.AdminChargebacks.decideChargeback({ path: { ...path, chargebackID: cb.id, decision: "accept" }, payload: {} })), "Unauthorized")
        // an operator token does not open the merchant API
        assert.strictEqual(yield* errorTag(op.api.Chargebacks.getChargebacks({ path })), "Unauthorized")
        // the wire of a decision
        const cancelled = yield* call("POST", `${url}/${cb.id}/cancel`, op.token, {})
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        assert.strictEqual(cancelled.json.status, "cancelled")
        const bad = yield* call("POST", url, op.token, { levy: 0, currency: "RUB" })
        assert.strictEqual(bad.status, 400, bad.text)
        yield* balanceIs(m, 9650)
        yield* LedgerChecks.invariants
      }))
  })
}
