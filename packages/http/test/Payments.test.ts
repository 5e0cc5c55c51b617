import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { TestAcquirer } from "@kassa/adapters"
import type { Invoice, Payment } from "@kassa/core"
import { PaymentError, PaymentService } from "@kassa/core"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import { CardVault } from "@kassa/core/ports/CardVault"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { Timers } from "@kassa/core/ports/Timers"
import { Challenges, Dialects, Expect, Fixtures, LedgerChecks, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"

const { businessError, errorTag } = Expect

/**
 * Payments over HTTP. Payments are driven in the background after createPayment answers, so
 * the suite runs on the real clock (`excludeTestServices`): the tests poll with short real
 * sleeps, the slow test card really takes its time, and processing deadlines really pass.
 * Every test ends, once its payments are final, with the ledger's invariants.
 */

type Client = Effect.Effect.Success<ReturnType<typeof TestServer.client>>

const VISA = "4242424242424242"
const SLOW = "4000000000000101"
const THREE_DS = "4000000000003220"
const DECLINED = "4000000000000002"
const DAY = 86_400_000
const INSTANT = { type: "PaymentFlowInstant" } as const
const hold = (onHoldExpiration: "cancel" | "capture" = "cancel") => ({ type: "PaymentFlowHold", onHoldExpiration } as const)
const FINAL = ["captured", "cancelled", "failed", "refunded"]

/** The declining cards of TEST_CARDS.md, with the error path the table promises. */
const declinedCards: ReadonlyArray<{ readonly card: string; readonly path: ReadonlyArray<string> }> = [
  ...fs.readFileSync(new URL("../../adapters/TEST_CARDS.md", import.meta.url), "utf8")
    .matchAll(/^\| (\d{12,19}) \| \w+ \| Declined: `([^`]+)` \|$/gm)
].map((m) => ({ card: m[1]!, path: m[2]!.split(" > ") }))

// --- helpers -------------------------------------------------------------------------------

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const call = TestServer.call

const newInvoice = (api: Client, shopID: string, overrides: Partial<Invoice.InvoiceParams> = {}) =>
  Effect.map(
    api.Invoices.createInvoice({
      payload: {
        shopID,
        dueDate: new Date(Date.now() + DAY),
        amount: 1000,
        currency: "RUB",
        product: "Tea",
        metadata: {},
        ...overrides
      }
    }),
    (r) => ({ id: r.invoice.id, accessToken: r.invoiceAccessToken.payload })
  )

const tokenize = (api: Client, cardNumber = VISA) =>
  api.Tokens.createPaymentResource({
    payload: {
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "device-1" }
    }
  })

const resourcePayer = (r: { readonly paymentToolToken: string; readonly paymentSession: string }) => ({
  payerType: "PaymentResourcePayer" as const,
  paymentToolToken: r.paymentToolToken,
  paymentSession: r.paymentSession,
  contactInfo: { email: "payer@kassa.test" }
})

interface PayOptions {
  readonly card?: string
  readonly flow?: Payment.PaymentParams["flow"]
  readonly externalID?: string
  readonly processingDeadline?: string
  readonly makeRecurrent?: boolean
}

/** Tokenizes a card and starts a payment with it. */
const pay = (api: Client, invoiceID: string, options: PayOptions = {}) =>
  Effect.flatMap(tokenize(api, options.card ?? VISA), (resource) =>
    api.Payments.createPayment({
      path: { invoiceID },
      payload: {
        flow: options.flow ?? INSTANT,
        payer: resourcePayer(resource),
        makeRecurrent: options.makeRecurrent ?? false,
        ...(options.externalID === undefined ? {} : { externalID: options.externalID }),
        ...(options.processingDeadline === undefined ? {} : { processingDeadline: options.processingDeadline })
      }
    }))

/** Polls (real time, at most `ms`) until the payment reaches one of `statuses`. */
const waitFor = (api: Client, invoiceID: string, paymentID: string, statuses: ReadonlyArray<string>, ms = 10_000) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    let payment = yield* api.Payments.getPaymentByID({ path: { invoiceID, paymentID } })
    while (!statuses.includes(payment.status) && Date.now() < until) {
      yield* sleepReal(20)
      payment = yield* api.Payments.getPaymentByID({ path: { invoiceID, paymentID } })
    }
    assert.include(statuses, payment.status, `payment ${invoiceID}/${paymentID} is ${payment.status}`)
    return payment
  })

const events = (api: Client, invoiceID: string) =>
  api.Invoices.getInvoiceEvents({ path: { invoiceID }, urlParams: { limit: 1000 } })

/** Polls until an event change of `changeType` shows. */
/** A new merchant's invoice whose payment "1" is held (processed). */
const aHeldPayment = Effect.gen(function*() {
  const m = yield* Fixtures.merchant()
  const api = yield* TestServer.client(m.apiKey)
  const inv = yield* newInvoice(api, m.shopID)
  yield* pay(api, inv.id, { flow: hold() })
  yield* waitFor(api, inv.id, "1", ["processed"])
  return { m, api, inv }
})

const waitForChange = (api: Client, invoiceID: string, changeType: string) =>
  Effect.gen(function*() {
    const until = Date.now() + 10_000
    let list = yield* events(api, invoiceID)
    while (!list.some((e) => e.changes.some((c) => c.changeType === changeType)) && Date.now() < until) {
      yield* sleepReal(20)
      list = yield* events(api, invoiceID)
    }
    const change = list.flatMap((e) => e.changes).find((c) => c.changeType === changeType)
    assert.isDefined(change, `no ${changeType} on invoice ${invoiceID}`)
    return change!
  })

/** The payment changes of an invoice's events, compactly: `processed`, `captured+paid`, ... */
const statusTrail = (api: Client, invoiceID: string, paymentID: string) =>
  Effect.map(events(api, invoiceID), (list) =>
    list.flatMap((e) => {
      const mine = e.changes.filter((c) => c.changeType === "PaymentStatusChanged" && c.paymentID === paymentID)
      if (mine.length === 0) return []
      const invoice = e.changes.find((c) => c.changeType === "InvoiceStatusChanged")
      return mine.map((c) =>
        `${(c as any).status}${invoice !== undefined && invoice.changeType === "InvoiceStatusChanged" ? `+${invoice.status}` : ""}`
      )
    }))

const invoiceStatus = (api: Client, invoiceID: string) =>
  Effect.map(api.Invoices.getInvoiceByID({ path: { invoiceID } }), (i) => i.status)

/** 3.5 %, rounded half up: the fee of test institution 1. */
const fee = (amount: number) => Math.floor((amount * 35 + 500) / 1000)

const settlement = (m: Fixtures.Merchant, shopID = m.shopID) =>
  Effect.map(LedgerChecks.account({ kind: "settlement", partyID: m.partyID, shopID, currency: "RUB" }), (a) => a ?? { id: 0, own: 0, minDiff: 0, maxDiff: 0 })

const planOf = (invoiceID: string, paymentID: string) =>
  Effect.map(LedgerChecks.snapshot, (s) => s.plans.find((p) => p.id === `payment/${invoiceID}/${paymentID}`))

/** Whether the vault still holds the CVV session the payment was made with. */
const cvvKept = (invoiceID: string, paymentID: string) =>
  Effect.gen(function*() {
    const payment = Option.getOrThrow(yield* Effect.flatMap(PaymentRepository, (r) => r.findById(invoiceID, paymentID)))
    assert.isString(payment.vaultSession)
    return Option.isSome(yield* Effect.flatMap(CardVault, (vault) => vault.getSession(payment.vaultSession!)))
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Payments [${dialect}]`, (it) => {
    it.effect("instant flow: 201 pending, then captured; the invoice is paid; events and transaction info", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const resource = yield* tokenize(api)
        const before = Date.now()
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, {
          flow: INSTANT,
          payer: { ...resourcePayer(resource), sessionInfo: { redirectUrl: "https://shop.test/back" } },
          metadata: { order: 7 }
        })
        assert.strictEqual(wire.status, 201, wire.text)
        const created = wire.json
        assert.strictEqual(created.id, "1")
        assert.strictEqual(created.invoiceID, inv.id)
        assert.strictEqual(created.status, "pending")
        assert.strictEqual(created.amount, 1000)
        assert.strictEqual(created.currency, "RUB")
        assert.deepStrictEqual(created.flow, INSTANT)
        assert.strictEqual(created.makeRecurrent, false)
        assert.deepStrictEqual(created.metadata, { order: 7 })
        assert.isUndefined(created.transactionInfo)
        assert.isUndefined(created.error)
        assert.isAtLeast(new Date(created.createdAt).getTime(), before - 1000)
        assert.deepStrictEqual(created.payer, {
          payerType: "PaymentResourcePayer",
          paymentToolToken: resource.paymentToolToken,
          paymentSession: resource.paymentSession,
          paymentToolDetails: resource.paymentToolDetails,
          clientInfo: { fingerprint: "device-1" },
          contactInfo: { email: "payer@kassa.test" },
          sessionInfo: { redirectUrl: "https://shop.test/back" }
        })

        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        assert.strictEqual(captured.amount, 1000)
        const trx = TestAcquirer.transactionOf(`${inv.id}.1`)
        assert.deepStrictEqual(captured.transactionInfo, { rrn: trx.rrn, approvalCode: trx.approvalCode })
        assert.match(captured.transactionInfo!.rrn, /^\d{12}$/)
        assert.match(captured.transactionInfo!.approvalCode, /^\d{6}$/)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: inv.id } }), [captured])

        const list = yield* events(api, inv.id)
        // authorised and captured with the acquirer first, then recorded as one event
        assert.deepStrictEqual(list.map((e) => e.changes.map((c) => c.changeType)), [
          ["InvoiceCreated"],
          ["PaymentStarted"],
          ["PaymentStatusChanged", "PaymentStatusChanged", "InvoiceStatusChanged"]
        ])
        const started = list[1]!.changes[0]!
        assert.strictEqual(started.changeType, "PaymentStarted")
        if (started.changeType === "PaymentStarted") {
          assert.strictEqual(started.payment.id, "1")
          assert.strictEqual(started.payment.status, "pending")
          assert.deepStrictEqual(started.payment.payer, captured.payer)
        }
        assert.deepStrictEqual(list[2]!.changes, [
          { changeType: "PaymentStatusChanged", paymentID: "1", status: "processed" },
          { changeType: "PaymentStatusChanged", paymentID: "1", status: "captured" },
          { changeType: "InvoiceStatusChanged", status: "paid" }
        ])
        // the money: committed, 1000 − 35 on the shop
        assert.strictEqual((yield* planOf(inv.id, "1"))?.state, "commit")
        const account = yield* settlement(m)
        assert.strictEqual(account.own, 1000 - 35)
        assert.strictEqual(account.minDiff, 0)
        assert.strictEqual(account.maxDiff, 0)
        yield* LedgerChecks.invariants
        // nothing is left to fire: the payment's recovery and the paid invoice's due date are gone
        const sql = yield* SqlClient.SqlClient
        const timers = yield* sql<{ kind: string }>`SELECT kind FROM timers WHERE subject IN (${inv.id}, ${`${inv.id}/1`})`
        assert.deepStrictEqual(timers.map((t) => t.kind), [])
        // the CVV went with the authorisation: its session is erased
        assert.isFalse(yield* cvvKept(inv.id, "1"))
      }))

    it.effect("each declining test card fails with its TEST_CARDS.md error; the invoice stays unpaid and takes the next payment", () =>
      Effect.gen(function*() {
        const paths = declinedCards.map((c) => c.path.join(" > "))
        for (
          const required of [
            "authorization_failed > rejected_by_issuer",
            "authorization_failed > insufficient_funds",
            "authorization_failed > payment_tool_rejected > bank_card_rejected > cvv_invalid",
            "preauthorization_failed",
            "authorization_failed > account_limit_exceeded > amount"
          ]
        ) assert.include(paths, required)
        assert.isAtLeast(declinedCards.length, 20)

        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        let n = 0
        for (const { card, path } of declinedCards) {
          const id = String(++n)
          const created = yield* pay(api, inv.id, { card })
          assert.strictEqual(created.id, id)
          assert.strictEqual(created.status, "pending")
          const failed = yield* waitFor(api, inv.id, id, FINAL)
          assert.strictEqual(failed.status, "failed", card)
          assert.deepStrictEqual(failed.error, PaymentError.of(...path), card)
          assert.isUndefined(failed.transactionInfo)
          assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
          assert.isUndefined(yield* planOf(inv.id, id), "a declined payment holds nothing")
          assert.deepStrictEqual(yield* statusTrail(api, inv.id, id), ["failed"])
        }
        const lastEvent = (yield* events(api, inv.id)).at(-1)!
        assert.deepStrictEqual(lastEvent.changes, [
          { changeType: "PaymentStatusChanged", paymentID: String(n), status: "failed", error: PaymentError.of(...declinedCards.at(-1)!.path) }
        ])
        // the invoice still takes a payment
        const next = yield* pay(api, inv.id)
        assert.strictEqual(next.id, String(n + 1))
        assert.strictEqual((yield* waitFor(api, inv.id, next.id, FINAL)).status, "captured")
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        assert.strictEqual((yield* api.Payments.getPayments({ path: { invoiceID: inv.id } })).length, n + 1)
        yield* LedgerChecks.invariants
      }), 60_000)

    it.effect("the invoice numbers its payments by the count it keeps, which stays out of its answers", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const invoices = yield* InvoiceRepository
        const inv = yield* newInvoice(api, m.shopID)
        const first = yield* pay(api, inv.id, { card: declinedCards[0]!.card })
        assert.strictEqual((yield* waitFor(api, inv.id, first.id, FINAL)).status, "failed")
        const counted = yield* Effect.flatten(invoices.findByIdUnscoped(inv.id))
        assert.strictEqual(counted.paymentCount, 1)
        // the count stays out of the interface's answers
        const wire = yield* TestServer.raw("GET", `/v2/processing/invoices/${inv.id}`, {
          headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId() }
        })
        assert.notInclude(wire.text, "paymentCount")
        const second = yield* pay(api, inv.id)
        assert.strictEqual(second.id, "2")
        assert.strictEqual((yield* waitFor(api, inv.id, second.id, FINAL)).status, "captured")
        assert.strictEqual((yield* Effect.flatten(invoices.findByIdUnscoped(inv.id))).paymentCount, 2)
        assert.deepStrictEqual((yield* api.Payments.getPayments({ path: { invoiceID: inv.id } })).map((p) => p.id), ["1", "2"])
      }))

    it.effect("3-D Secure passed: the payment waits for the payer, refuses company meanwhile, then is captured", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const created = yield* pay(api, inv.id, { card: THREE_DS })
        const requested = yield* waitForChange(api, inv.id, "PaymentInteractionRequested")
        assert.strictEqual((requested as any).paymentID, "1")
        const path = Challenges.challengePath(requested)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: { invoiceID: inv.id, paymentID: "1" } })).status, "pending")

        // a payment in flight: no second payment, no rescind, no capture or cancel
        yield* businessError(pay(api, inv.id), "invoicePaymentPending")
        yield* businessError(api.Invoices.rescindInvoice({ path: { invoiceID: inv.id }, payload: { reason: "x" } }), "invoicePaymentPending")
        const paymentPath = { invoiceID: inv.id, paymentID: created.id }
        yield* businessError(api.Payments.capturePayment({ path: paymentPath, payload: { reason: "x" } }), "invalidPaymentStatus")
        yield* businessError(api.Payments.cancelPayment({ path: paymentPath, payload: { reason: "x" } }), "invalidPaymentStatus")
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")

        const page = yield* TestServer.raw("GET", path)
        assert.strictEqual(page.status, 200, page.text)
        assert.match(page.headers["content-type"] ?? "", /text\/html/)
        assert.include(page.text, "10.00 RUB")
        assert.include(page.text, "outcome")
        assert.notInclude(page.text, VISA)
        // a malformed answer changes nothing
        assert.strictEqual((yield* Challenges.answer(path, "maybe")).status, 400)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: paymentPath })).status, "pending")

        const passed = yield* Challenges.answer(path, "pass")
        assert.strictEqual(passed.status, 200, passed.text)
        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        assert.isDefined(captured.transactionInfo)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        const kinds = (yield* events(api, inv.id)).map((e) => e.changes.map((c) => c.changeType).join("+"))
        assert.deepStrictEqual(kinds, [
          "InvoiceCreated",
          "PaymentStarted",
          "PaymentInteractionRequested",
          "PaymentInteractionCompleted",
          "PaymentStatusChanged",
          "PaymentStatusChanged+InvoiceStatusChanged"
        ])
        // the challenge is over
        assert.strictEqual((yield* TestServer.raw("GET", path)).status, 404)
        assert.strictEqual((yield* Challenges.answer(path, "fail")).status, 404)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: paymentPath })).status, "captured")
        // an instant payment is never waiting: capture and cancel are invalidPaymentStatus, also when captured
        yield* businessError(api.Payments.capturePayment({ path: paymentPath, payload: { reason: "x" } }), "invalidPaymentStatus")
        yield* businessError(api.Payments.cancelPayment({ path: paymentPath, payload: { reason: "x" } }), "invalidPaymentStatus")
        yield* LedgerChecks.invariants
      }))

    it.effect("3-D Secure failed: failed with preauthorization_failed; the invoice takes payment 2", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        yield* pay(api, inv.id, { card: THREE_DS, flow: hold() })
        const path = Challenges.challengePath(yield* waitForChange(api, inv.id, "PaymentInteractionRequested"))
        const failedPage = yield* Challenges.answer(path, "fail")
        assert.strictEqual(failedPage.status, 200, failedPage.text)
        const failed = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(failed.status, "failed")
        assert.deepStrictEqual(failed.error, { code: "preauthorization_failed" })
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["failed"])
        const next = yield* pay(api, inv.id)
        assert.strictEqual(next.id, "2")
        assert.strictEqual((yield* waitFor(api, inv.id, "2", FINAL)).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("3-D Secure answered ten times at once: the first answer decides, the others change nothing and show the state", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        yield* pay(api, inv.id, { card: THREE_DS })
        const path = Challenges.challengePath(yield* waitForChange(api, inv.id, "PaymentInteractionRequested"))
        const { others, passed } = yield* Challenges.answerTenAtOnce(path)
        for (const p of others) assert.match(p.text, /Status: (pending|processed|captured|failed)\./)
        const final = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(final.status, passed ? "captured" : "failed")
        const changes = (yield* events(api, inv.id)).flatMap((e) => e.changes.map((c) => c.changeType))
        assert.strictEqual(changes.filter((c) => c === "PaymentInteractionCompleted").length, 1)
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), passed ? ["processed", "captured+paid"] : ["failed"])
        yield* LedgerChecks.invariants
      }))

    it.effect("a paid invoice and a cancelled invoice refuse payments with invalidInvoiceStatus", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const paid = yield* newInvoice(api, m.shopID)
        yield* pay(api, paid.id)
        yield* waitFor(api, paid.id, "1", ["captured"])
        yield* businessError(pay(api, paid.id), "invalidInvoiceStatus")
        const rescinded = yield* newInvoice(api, m.shopID)
        yield* api.Invoices.rescindInvoice({ path: { invoiceID: rescinded.id }, payload: { reason: "out of stock" } })
        yield* businessError(pay(api, rescinded.id), "invalidInvoiceStatus")
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: rescinded.id } }), [])
        assert.strictEqual((yield* api.Payments.getPayments({ path: { invoiceID: paid.id } })).length, 1)
        yield* LedgerChecks.invariants
      }))

    it.effect("hold flow: processed with heldUntil, the money held; capture 202 → captured, the invoice paid", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const resource = yield* tokenize(api)
        // onHoldExpiration defaults to cancel
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, {
          flow: { type: "PaymentFlowHold" },
          payer: resourcePayer(resource)
        })
        assert.strictEqual(wire.status, 201, wire.text)
        assert.strictEqual(wire.json.flow.type, "PaymentFlowHold")
        assert.strictEqual(wire.json.flow.onHoldExpiration, "cancel")
        assert.strictEqual(new Date(wire.json.flow.heldUntil).getTime() - new Date(wire.json.createdAt).getTime(), 7 * DAY)

        const processed = yield* waitFor(api, inv.id, "1", ["processed", ...FINAL])
        assert.strictEqual(processed.status, "processed")
        assert.isDefined(processed.transactionInfo)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed"])
        // held: nothing committed, the shop's share pending
        assert.strictEqual((yield* planOf(inv.id, "1"))?.state, "hold")
        const held = yield* settlement(m)
        assert.deepStrictEqual([held.own, held.minDiff, held.maxDiff], [0, 0, 965])
        const accountWire = yield* call("GET", `/v1/processing/accounts/${held.id}`, m.apiKey)
        assert.deepStrictEqual(accountWire.json, { id: held.id, ownAmount: 0, availableAmount: 0, currency: "RUB" })
        yield* LedgerChecks.invariants

        const captureWire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments/1/capture`, m.apiKey, { reason: "shipped" })
        assert.strictEqual(captureWire.status, 202, captureWire.text)
        assert.strictEqual(captureWire.text, "")
        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        assert.strictEqual(captured.amount, 1000)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", "captured+paid"])
        const path = { invoiceID: inv.id, paymentID: "1" }
        yield* businessError(api.Payments.capturePayment({ path, payload: { reason: "again" } }), "invalidPaymentStatus")
        yield* businessError(api.Payments.cancelPayment({ path, payload: { reason: "too late" } }), "invalidPaymentStatus")
        const after = yield* settlement(m)
        assert.deepStrictEqual([after.own, after.minDiff, after.maxDiff], [965, 0, 0])
        assert.deepStrictEqual((yield* call("GET", `/v1/processing/accounts/${held.id}`, m.apiKey)).json, {
          id: held.id,
          ownAmount: 965,
          availableAmount: 965,
          currency: "RUB"
        })
        yield* LedgerChecks.invariants
      }))

    it.effect("capture errors leave the hold as it was; a partial capture captures its amount with the fee on it", () =>
      Effect.gen(function*() {
        const { m, api, inv } = yield* aHeldPayment
        const path = { invoiceID: inv.id, paymentID: "1" }
        const capture = (payload: Payment.CaptureParams) => api.Payments.capturePayment({ path, payload })
        assert.include(yield* businessError(capture({ reason: "r", amount: 1001 }), "amountExceededCaptureBalance"), "1000")
        assert.include(yield* businessError(capture({ reason: "r", currency: "USD" }), "inconsistentCaptureCurrency"), "RUB")
        assert.include(yield* businessError(capture({ reason: "r", currency: "USD", amount: 1001 }), "inconsistentCaptureCurrency"), "RUB")
        yield* businessError(capture({ reason: "r", amount: 600, cart: [{ product: "tea", quantity: 2, price: 200 }] }), "invalidInvoiceCart")
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments/1/capture`, m.apiKey, { reason: "r", amount: 1001 })
        assert.strictEqual(wire.status, 400)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["code", "message"])
        const still = yield* api.Payments.getPaymentByID({ path })
        assert.strictEqual(still.status, "processed")
        assert.strictEqual(still.amount, 1000)
        assert.strictEqual((yield* planOf(inv.id, "1"))?.batches.length, 1)

        yield* capture({ reason: "partial", amount: 600, currency: "RUB" })
        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        assert.strictEqual(captured.amount, 600)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        const plan = yield* planOf(inv.id, "1")
        assert.strictEqual(plan?.state, "commit")
        assert.deepStrictEqual(plan?.batches.map((b) => b.id), [1, 2, 3])
        // the shop earns the captured amount less the fee on the captured amount: 600 − 21
        const account = yield* settlement(m)
        assert.strictEqual(account.own, 600 - fee(600), `own ${account.own}: the fee must be taken on 600 (21), not on 1000 (35)`)
        yield* LedgerChecks.invariants
      }))

    it.effect("a capture by cart: the cart's total is the amount", () =>
      Effect.gen(function*() {
        const { m, api, inv } = yield* aHeldPayment
        yield* api.Payments.capturePayment({
          path: { invoiceID: inv.id, paymentID: "1" },
          payload: { reason: "two cups", cart: [{ product: "tea", quantity: 2, price: 200 }] }
        })
        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        assert.strictEqual(captured.amount, 400)
        assert.strictEqual((yield* settlement(m)).own, 400 - fee(400))
        yield* LedgerChecks.invariants
      }))

    it.effect("cancel: 202 → cancelled, the hold released; the invoice stays unpaid and takes payment 2", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        yield* pay(api, inv.id, { flow: hold("capture") })
        yield* waitFor(api, inv.id, "1", ["processed"])
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments/1/cancel`, m.apiKey, { reason: "no stock" })
        assert.strictEqual(wire.status, 202, wire.text)
        assert.strictEqual(wire.text, "")
        const cancelled = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(cancelled.status, "cancelled")
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", "cancelled"])
        assert.strictEqual((yield* planOf(inv.id, "1"))?.state, "rollback")
        const released = yield* settlement(m)
        assert.deepStrictEqual([released.own, released.minDiff, released.maxDiff], [0, 0, 0])
        const path = { invoiceID: inv.id, paymentID: "1" }
        yield* businessError(api.Payments.capturePayment({ path, payload: { reason: "x" } }), "invalidPaymentStatus")
        yield* businessError(api.Payments.cancelPayment({ path, payload: { reason: "x" } }), "invalidPaymentStatus")
        // a cancel of an unknown payment is 404
        assert.strictEqual(
          yield* errorTag(api.Payments.cancelPayment({ path: { invoiceID: inv.id, paymentID: "9" }, payload: { reason: "x" } })),
          "NotFound"
        )
        const next = yield* pay(api, inv.id)
        assert.strictEqual(next.id, "2")
        assert.strictEqual((yield* waitFor(api, inv.id, "2", FINAL)).status, "captured")
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
        assert.strictEqual((yield* settlement(m)).own, 965)
        yield* LedgerChecks.invariants
      }))

    it.effect("concurrent captures and cancels of one hold: exactly one is accepted", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        for (let round = 0; round < 2; round++) {
          const inv = yield* newInvoice(api, m.shopID)
          yield* pay(api, inv.id, { flow: hold() })
          yield* waitFor(api, inv.id, "1", ["processed"])
          const path = { invoiceID: inv.id, paymentID: "1" }
          const calls = Array.from({ length: 10 }, (_, i) =>
            (i % 2 === round
              ? Effect.as(api.Payments.capturePayment({ path, payload: { reason: `capture ${i}` } }), "capture" as const)
              : Effect.as(api.Payments.cancelPayment({ path, payload: { reason: `cancel ${i}` } }), "cancel" as const)).pipe(Effect.either))
          const results = yield* Effect.all(calls, { concurrency: 10 })
          const winners = results.filter((r) => r._tag === "Right")
          assert.strictEqual(winners.length, 1, JSON.stringify(results.map((r) => r._tag === "Right" ? r.right : (r.left as any).code)))
          for (const r of results) if (r._tag === "Left") assert.strictEqual((r.left as any).code, "invalidPaymentStatus")
          const expected = winners[0]!._tag === "Right" && winners[0]!.right === "capture" ? "captured" : "cancelled"
          const final = yield* waitFor(api, inv.id, "1", FINAL)
          assert.strictEqual(final.status, expected)
          assert.strictEqual(yield* invoiceStatus(api, inv.id), expected === "captured" ? "paid" : "unpaid")
          assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", expected === "captured" ? "captured+paid" : "cancelled"])
        }
        yield* LedgerChecks.invariants
      }))

    it.effect("50 concurrent captures and cancels of one hold queue: one 202, the others invalidPaymentStatus, never a 500", () =>
      Effect.gen(function*() {
        const { m, api, inv } = yield* aHeldPayment
        const base = `/v2/processing/invoices/${inv.id}/payments/1`
        const responses = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          (i) =>
            i % 2 === 0
              ? call("POST", `${base}/capture`, m.apiKey, { reason: `capture ${i}`, amount: 500 + i })
              : call("POST", `${base}/cancel`, m.apiKey, { reason: `cancel ${i}` }),
          { concurrency: "unbounded" }
        )
        const summary = responses.map((r) => `${r.status} ${r.json?.code ?? ""}`).join(", ")
        assert.strictEqual(responses.filter((r) => r.status === 202).length, 1, summary)
        for (const r of responses.filter((r) => r.status !== 202)) {
          assert.strictEqual(r.status, 400, summary)
          assert.strictEqual(r.json.code, "invalidPaymentStatus", summary)
        }
        const final = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(yield* invoiceStatus(api, inv.id), final.status === "captured" ? "paid" : "unpaid")
        assert.strictEqual((yield* statusTrail(api, inv.id, "1")).length, 2)
        yield* LedgerChecks.invariants
      }))

    for (const onHoldExpiration of ["capture", "cancel"] as const) {
      it.effect(`hold expiry with onHoldExpiration ${onHoldExpiration}: ${onHoldExpiration === "capture" ? "captured in full, the invoice paid" : "cancelled, the invoice unpaid"}`, () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* TestServer.client(m.apiKey)
          const timers = yield* Timers
          const inv = yield* newInvoice(api, m.shopID)
          const created = yield* pay(api, inv.id, { flow: hold(onHoldExpiration) })
          assert.deepStrictEqual(
            created.flow,
            { type: "PaymentFlowHold", onHoldExpiration, heldUntil: new Date(created.createdAt.getTime() + 7 * DAY) }
          )
          yield* waitFor(api, inv.id, "1", ["processed"])
          // the hold's timer is due now instead of in 7 days
          yield* timers.schedule({ kind: PaymentService.HOLD_TIMER, subject: `${inv.id}/1`, dueAt: new Date(), payload: null })
          const final = yield* waitFor(api, inv.id, "1", FINAL, 6_000)
          if (onHoldExpiration === "capture") {
            assert.strictEqual(final.status, "captured")
            assert.strictEqual(final.amount, 1000)
            assert.strictEqual(yield* invoiceStatus(api, inv.id), "paid")
            assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", "captured+paid"])
            assert.strictEqual((yield* settlement(m)).own, 965)
          } else {
            assert.strictEqual(final.status, "cancelled")
            assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
            assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", "cancelled"])
            assert.strictEqual((yield* settlement(m)).own, 0)
          }
          yield* LedgerChecks.invariants
        }))
    }

    it.effect("a hold timer firing after a manual capture changes nothing", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const timers = yield* Timers
        const inv = yield* newInvoice(api, m.shopID)
        yield* pay(api, inv.id, { flow: hold("cancel") })
        yield* waitFor(api, inv.id, "1", ["processed"])
        yield* api.Payments.capturePayment({ path: { invoiceID: inv.id, paymentID: "1" }, payload: { reason: "r" } })
        yield* timers.schedule({ kind: PaymentService.HOLD_TIMER, subject: `${inv.id}/1`, dueAt: new Date(), payload: null })
        const final = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(final.status, "captured")
        assert.strictEqual(final.amount, 1000)
        yield* sleepReal(300)
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path: { invoiceID: inv.id, paymentID: "1" } })).status, "captured")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["processed", "captured+paid"])
        assert.strictEqual((yield* settlement(m)).own, 965)
        yield* LedgerChecks.invariants
      }))

    it.effect("processingDeadline: the slow card past 1s fails with processing_deadline_reached; bad deadlines are refused", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const started = Date.now()
        yield* pay(api, inv.id, { card: SLOW, processingDeadline: "1s" })
        const failed = yield* waitFor(api, inv.id, "1", FINAL, 4_500)
        const elapsed = Date.now() - started
        assert.strictEqual(failed.status, "failed")
        assert.deepStrictEqual(failed.error, { code: "authorization_failed", subError: { code: "processing_deadline_reached" } })
        assert.isAtLeast(elapsed, 900, "not before the deadline")
        assert.isBelow(elapsed, 4_500, "at the deadline, not when the slow card answers")
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        assert.deepStrictEqual(yield* statusTrail(api, inv.id, "1"), ["failed"])
        // a deadline already past fails at once; a roomy one does not get in the way
        yield* pay(api, inv.id, { processingDeadline: new Date(Date.now() - 60_000).toISOString() })
        const past = yield* waitFor(api, inv.id, "2", FINAL)
        assert.deepStrictEqual(past.error, { code: "authorization_failed", subError: { code: "processing_deadline_reached" } })
        yield* pay(api, inv.id, { processingDeadline: "1.5m" })
        assert.strictEqual((yield* waitFor(api, inv.id, "3", FINAL)).status, "captured")

        const other = yield* newInvoice(api, m.shopID)
        for (const deadline of ["tomorrow", "10x", "-1s", "1h", "2030-13-01T00:00:00Z", "2030-01-01T00:00:00"]) {
          yield* businessError(pay(api, other.id, { processingDeadline: deadline }), "invalidProcessingDeadline")
        }
        // out of its bounds (1..40) it is a malformed request; within them, a deadline that is no moment
        yield* businessError(pay(api, other.id, { processingDeadline: "9".repeat(39) + "m" }), "invalidProcessingDeadline")
        for (const deadline of ["", "1".repeat(40) + "s"]) {
          const resource = yield* tokenize(api)
          const wire = yield* call("POST", `/v2/processing/invoices/${other.id}/payments`, m.apiKey, {
            flow: INSTANT,
            payer: resourcePayer(resource),
            processingDeadline: deadline
          })
          assert.strictEqual(wire.status, 400, wire.text)
          assert.strictEqual(wire.json.code, "invalidRequest")
          assert.include(wire.json.message, "processingDeadline")
        }
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: other.id } }), [])
        yield* LedgerChecks.invariants
      }))

    it.effect("the CVV session is erased on every outcome: past the processing deadline, declined, 3-D Secure failed or passed", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        /** Pays by `card`, answers the 3-D Secure challenge if given; the outcome and whether the CVV is kept. */
        const outcome = (card: string, options: PayOptions, challenge?: "pass" | "fail") =>
          Effect.gen(function*() {
            const inv = yield* newInvoice(api, m.shopID)
            yield* pay(api, inv.id, { card, ...options })
            if (challenge !== undefined) {
              const path = Challenges.challengePath(yield* waitForChange(api, inv.id, "PaymentInteractionRequested"))
              assert.strictEqual((yield* Challenges.answer(path, challenge)).status, 200)
            }
            const p = yield* waitFor(api, inv.id, "1", [...FINAL, "processed"])
            return { status: p.status, cvvKept: yield* cvvKept(inv.id, "1") }
          })
        const past = { processingDeadline: new Date(Date.now() - 60_000).toISOString() }
        assert.deepStrictEqual(yield* outcome(VISA, past), { status: "failed", cvvKept: false })
        assert.deepStrictEqual(yield* outcome(DECLINED, {}), { status: "failed", cvvKept: false })
        assert.deepStrictEqual(yield* outcome(THREE_DS, { flow: hold() }, "fail"), { status: "failed", cvvKept: false })
        assert.deepStrictEqual(yield* outcome(THREE_DS, { flow: hold() }, "pass"), { status: "processed", cvvKept: false })
        assert.deepStrictEqual(yield* outcome(VISA, { flow: hold() }), { status: "processed", cvvKept: false })
      }))

    it.effect("the payer's token and session: unknown, expired, another party's, a wrong session, a tool off the contract", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const create = (payer: Payment.PaymentParams["payer"]) =>
          api.Payments.createPayment({ path: { invoiceID: inv.id }, payload: { flow: INSTANT, payer, makeRecurrent: false } })
        const a = yield* tokenize(api)
        const b = yield* tokenize(api)
        const contactInfo = { email: "payer@kassa.test" }
        yield* businessError(create({ ...resourcePayer(a), paymentToolToken: "pt.no-such-token" }), "invalidPaymentToolToken")
        yield* businessError(create({ payerType: "PaymentResourcePayer", paymentSession: a.paymentSession, contactInfo }), "invalidPaymentToolToken")
        yield* businessError(create({ ...resourcePayer(a), paymentSession: b.paymentSession }), "invalidPaymentSession")
        yield* businessError(create({ ...resourcePayer(a), paymentSession: "ps.nope" }), "invalidPaymentSession")
        yield* businessError(create({ payerType: "PaymentResourcePayer", paymentToolToken: a.paymentToolToken, contactInfo }), "invalidPaymentSession")
        yield* businessError(create(resourcePayer(yield* tokenize(otherApi))), "invalidPaymentToolToken")
        // expired: the token's lifetime has passed
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE payment_resources SET valid_until = ${Date.now() - 1000} WHERE token = ${b.paymentToolToken}`.pipe(Effect.orDie)
        yield* businessError(create(resourcePayer(b)), "invalidPaymentToolToken")
        // a tool the contract does not enable
        const crypto = yield* api.Tokens.createPaymentResource({
          payload: { paymentTool: { paymentToolType: "CryptoWalletData", cryptoCurrency: "bitcoin" }, clientInfo: { fingerprint: "f" } }
        })
        const refusal = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, {
          flow: INSTANT,
          payer: resourcePayer(crypto)
        })
        assert.strictEqual(refusal.status, 400, refusal.text)
        assert.strictEqual(refusal.json.code, "invalidRequest")
        assert.include(refusal.json.message, "Invalid payment method: CryptoWallet (bitcoin)")
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: inv.id } }), [])
        // the good pair still pays
        const ok = yield* create(resourcePayer(a))
        assert.strictEqual(ok.id, "1")
        assert.strictEqual((yield* waitFor(api, inv.id, "1", FINAL)).status, "captured")
        // terminal and wallet tools the contract enables pay too
        for (
          const tool of [
            { paymentToolType: "PaymentTerminalData", provider: "euroset" } as const,
            { paymentToolType: "DigitalWalletData", id: "w-1", provider: "qiwi" } as const
          ]
        ) {
          const next = yield* newInvoice(api, m.shopID)
          const resource = yield* api.Tokens.createPaymentResource({ payload: { paymentTool: tool, clientInfo: { fingerprint: "f" } } })
          yield* api.Payments.createPayment({
            path: { invoiceID: next.id },
            payload: { flow: INSTANT, payer: resourcePayer(resource), makeRecurrent: false }
          })
          const done = yield* waitFor(api, next.id, "1", FINAL)
          assert.strictEqual(done.status, "captured", tool.paymentToolType)
          assert.deepStrictEqual((done.payer as any).paymentToolDetails, resource.paymentToolDetails)
        }
        yield* LedgerChecks.invariants
      }))

    it.effect("idempotency by externalID: the same request answers the same payment, another one 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const resource = yield* tokenize(api)
        const body = { externalID: "order-1", flow: INSTANT, payer: resourcePayer(resource) }
        const first = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, body)
        assert.strictEqual(first.status, 201, first.text)
        assert.strictEqual(first.json.externalID, "order-1")
        const again = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, body)
        assert.strictEqual(again.status, 201, again.text)
        assert.strictEqual(again.json.id, first.json.id)
        assert.strictEqual(again.json.createdAt, first.json.createdAt)
        const captured = yield* waitFor(api, inv.id, "1", FINAL)
        assert.strictEqual(captured.status, "captured")
        // after it ended, the same request still answers it
        const late = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, body)
        assert.strictEqual(late.status, 201, late.text)
        assert.strictEqual(late.json.id, "1")
        assert.strictEqual(late.json.status, "captured")
        // another request under the same externalID
        for (
          const changed of [
            { ...body, flow: { type: "PaymentFlowHold", onHoldExpiration: "cancel" } },
            { ...body, makeRecurrent: true },
            { ...body, payer: resourcePayer(yield* tokenize(api, "5555555555554444")) }
          ]
        ) {
          const conflict = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, changed)
          assert.strictEqual(conflict.status, 409, conflict.text)
          assert.deepStrictEqual(Object.keys(conflict.json).sort(), ["externalID", "id", "message"])
          assert.strictEqual(conflict.json.externalID, "order-1")
          assert.strictEqual(conflict.json.id, "1")
          assert.include(conflict.json.message, "externalID")
        }
        const typedConflict = yield* Effect.flip(
          api.Payments.createPayment({
            path: { invoiceID: inv.id },
            payload: { externalID: "order-1", flow: hold(), payer: resourcePayer(resource), makeRecurrent: false }
          })
        )
        assert.strictEqual(typedConflict._tag, "ExternalIdConflict")
        // reads by externalID
        assert.deepStrictEqual(yield* api.Payments.getPaymentByExternalID({ urlParams: { externalID: "order-1" } }), captured)
        assert.deepStrictEqual(
          yield* api.Payments.getPaymentByExternalIDForParty({ path: { partyID: m.partyID }, urlParams: { externalID: "order-1" } }),
          captured
        )
        assert.strictEqual(yield* errorTag(api.Payments.getPaymentByExternalID({ urlParams: { externalID: "order-2" } })), "NotFound")
        const other = yield* Fixtures.merchant()
        assert.strictEqual(
          yield* errorTag(api.Payments.getPaymentByExternalIDForParty({ path: { partyID: other.partyID }, urlParams: { externalID: "order-1" } })),
          "NotFound"
        )
        // externalIDs are the party's own: another party starts its own payment with it
        const otherApi = yield* TestServer.client(other.apiKey)
        assert.strictEqual(yield* errorTag(otherApi.Payments.getPaymentByExternalID({ urlParams: { externalID: "order-1" } })), "NotFound")
        const otherInv = yield* newInvoice(otherApi, other.shopID)
        const theirs = yield* pay(otherApi, otherInv.id, { externalID: "order-1" })
        assert.strictEqual(theirs.invoiceID, otherInv.id)
        assert.strictEqual((yield* waitFor(otherApi, otherInv.id, "1", FINAL)).status, "captured")
        assert.strictEqual((yield* api.Payments.getPayments({ path: { invoiceID: inv.id } })).length, 1)
        yield* LedgerChecks.invariants
      }))

    it.effect("recurrent payments: a makeRecurrent parent pays a child on another invoice of the shop; bad parents are refused", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const recurrent = (invoiceID: string, parent: { invoiceID: string; paymentID: string }, makeRecurrent = false) =>
          api.Payments.createPayment({
            path: { invoiceID },
            payload: {
              flow: INSTANT,
              payer: { payerType: "RecurrentPayer", contactInfo: { email: "payer@kassa.test" }, recurrentParentPayment: parent },
              makeRecurrent
            }
          })
        const parentInv = yield* newInvoice(api, m.shopID)
        const parent = yield* pay(api, parentInv.id, { makeRecurrent: true })
        assert.isTrue(parent.makeRecurrent)
        assert.strictEqual((yield* waitFor(api, parentInv.id, "1", FINAL)).status, "captured")
        const parentRef = { invoiceID: parentInv.id, paymentID: "1" }

        const childInv = yield* newInvoice(api, m.shopID, { amount: 2500 })
        const child = yield* recurrent(childInv.id, parentRef, true)
        assert.strictEqual(child.status, "pending")
        assert.strictEqual(child.amount, 2500)
        assert.deepStrictEqual(child.payer, {
          payerType: "RecurrentPayer",
          contactInfo: { email: "payer@kassa.test" },
          recurrentParentPayment: parentRef,
          paymentToolDetails: (parent.payer as any).paymentToolDetails
        })
        const childDone = yield* waitFor(api, childInv.id, "1", FINAL)
        assert.strictEqual(childDone.status, "captured")
        assert.isDefined(childDone.transactionInfo)
        assert.strictEqual(yield* invoiceStatus(api, childInv.id), "paid")
        // a recurrent child made recurrent is a parent in turn
        const grandInv = yield* newInvoice(api, m.shopID)
        yield* recurrent(grandInv.id, { invoiceID: childInv.id, paymentID: "1" })
        assert.strictEqual((yield* waitFor(api, grandInv.id, "1", FINAL)).status, "captured")

        // bad parents
        const plainInv = yield* newInvoice(api, m.shopID)
        yield* pay(api, plainInv.id)
        yield* waitFor(api, plainInv.id, "1", FINAL)
        const failedInv = yield* newInvoice(api, m.shopID)
        yield* pay(api, failedInv.id, { card: DECLINED, makeRecurrent: true })
        assert.strictEqual((yield* waitFor(api, failedInv.id, "1", FINAL)).status, "failed")
        const otherShopInv = yield* newInvoice(api, m.shopIDs[1]!)
        const stranger = yield* Fixtures.merchant()
        const strangerApi = yield* TestServer.client(stranger.apiKey)
        const strangerInv = yield* newInvoice(strangerApi, stranger.shopID)
        const target = yield* newInvoice(api, m.shopID)
        const refused: ReadonlyArray<readonly [string, { invoiceID: string; paymentID: string }, string]> = [
          [target.id, { invoiceID: plainInv.id, paymentID: "1" }, "no makeRecurrent"],
          [otherShopInv.id, parentRef, "another shop"],
          [target.id, { invoiceID: failedInv.id, paymentID: "1" }, "failed parent"],
          [target.id, { invoiceID: parentInv.id, paymentID: "7" }, "unknown payment"],
          [target.id, { invoiceID: "no-such-invoice", paymentID: "1" }, "unknown invoice"]
        ]
        for (const [invoiceID, ref, why] of refused) {
          const message = yield* businessError(recurrent(invoiceID, ref), "invalidRecurrentParent")
          assert.isString(message, why)
        }
        // another party's parent is unknown to this one
        yield* businessError(
          strangerApi.Payments.createPayment({
            path: { invoiceID: strangerInv.id },
            payload: {
              flow: INSTANT,
              payer: { payerType: "RecurrentPayer", contactInfo: {}, recurrentParentPayment: parentRef },
              makeRecurrent: false
            }
          }),
          "invalidRecurrentParent"
        )
        for (const inv of [target, otherShopInv]) {
          assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: inv.id } }), [])
          assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        }
        yield* LedgerChecks.invariants
      }))

    it.effect("CustomerPayer with a customer that does not exist is an honest 400 naming payer.customerID", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments`, m.apiKey, {
          flow: INSTANT,
          payer: { payerType: "CustomerPayer", customerID: "no-such-customer" }
        })
        assert.strictEqual(wire.status, 400, wire.text)
        assert.strictEqual(wire.json.code, "invalidRequest")
        assert.include(wire.json.message, "customerID")
        assert.match(wire.json.message, /not found|no such|unknown|not offer/i)
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: inv.id } }), [])
        assert.strictEqual(yield* invoiceStatus(api, inv.id), "unpaid")
        yield* LedgerChecks.invariants
      }))

    it.effect("reads: getPayments in order, unknown payments and other parties' invoices are 404", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        yield* pay(api, inv.id, { card: DECLINED })
        yield* waitFor(api, inv.id, "1", FINAL)
        yield* pay(api, inv.id, { flow: hold() })
        yield* waitFor(api, inv.id, "2", ["processed"])
        const list = yield* api.Payments.getPayments({ path: { invoiceID: inv.id } })
        assert.deepStrictEqual(list.map((p) => [p.id, p.status]), [["1", "failed"], ["2", "processed"]])
        assert.deepStrictEqual(yield* api.Payments.getPaymentByID({ path: { invoiceID: inv.id, paymentID: "2" } }), list[1])
        assert.strictEqual(yield* errorTag(api.Payments.getPaymentByID({ path: { invoiceID: inv.id, paymentID: "3" } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Payments.getPayments({ path: { invoiceID: "no-such-invoice" } })), "NotFound")
        const noInvoice = yield* call("GET", `/v2/processing/invoices/no-such-invoice/payments/1`, m.apiKey)
        assert.deepStrictEqual([noInvoice.status, noInvoice.json.message], [404, "Invoice not found: no-such-invoice"])
        const path = { invoiceID: inv.id, paymentID: "2" }
        assert.strictEqual(yield* errorTag(otherApi.Payments.getPayments({ path: { invoiceID: inv.id } })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Payments.getPaymentByID({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Payments.capturePayment({ path, payload: { reason: "x" } })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Payments.cancelPayment({ path, payload: { reason: "x" } })), "NotFound")
        assert.strictEqual(yield* errorTag(pay(otherApi, inv.id)), "NotFound")
        const wire = yield* call("GET", `/v2/processing/invoices/${inv.id}/payments/3`, m.apiKey)
        assert.strictEqual(wire.status, 404)
        assert.deepStrictEqual(Object.keys(wire.json), ["message"])
        // the hold is still there; end it
        yield* api.Payments.cancelPayment({ path, payload: { reason: "done" } })
        assert.strictEqual((yield* waitFor(api, inv.id, "2", FINAL)).status, "cancelled")
        yield* LedgerChecks.invariants
      }))

    it.effect("an invoice access token creates and reads its invoice's payments but cannot capture or cancel them", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const sibling = yield* newInvoice(api, m.shopID)
        const payer = yield* TestServer.client(inv.accessToken)
        const created = yield* pay(payer, inv.id, { flow: hold(), externalID: "by-payer" })
        assert.strictEqual(created.id, "1")
        const processed = yield* waitFor(payer, inv.id, "1", ["processed"])
        assert.deepStrictEqual(yield* payer.Payments.getPayments({ path: { invoiceID: inv.id } }), [processed])
        const path = { invoiceID: inv.id, paymentID: "1" }
        assert.strictEqual(yield* errorTag(payer.Payments.capturePayment({ path, payload: { reason: "x" } })), "Unauthorized")
        assert.strictEqual(yield* errorTag(payer.Payments.cancelPayment({ path, payload: { reason: "x" } })), "Unauthorized")
        assert.strictEqual(yield* errorTag(payer.Payments.getPaymentByExternalID({ urlParams: { externalID: "by-payer" } })), "Unauthorized")
        const wire = yield* call("POST", `/v2/processing/invoices/${inv.id}/payments/1/capture`, inv.accessToken, { reason: "x" })
        assert.strictEqual(wire.status, 401)
        assert.strictEqual(wire.text, "")
        // another invoice is out of its reach
        assert.strictEqual(yield* errorTag(payer.Payments.getPayments({ path: { invoiceID: sibling.id } })), "NotFound")
        assert.strictEqual(yield* errorTag(pay(payer, sibling.id)), "NotFound")
        assert.strictEqual((yield* api.Payments.getPaymentByID({ path })).status, "processed")
        // the merchant captures
        yield* api.Payments.capturePayment({ path, payload: { reason: "shipped" } })
        assert.strictEqual((yield* waitFor(payer, inv.id, "1", FINAL)).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("access tokens cannot charge a saved card: CustomerPayer and RecurrentPayer are refused, nothing is written", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        // the merchant's saved cards: a recurrent parent payment and a customer's binding
        const parentInv = yield* newInvoice(api, m.shopID)
        yield* pay(api, parentInv.id, { makeRecurrent: true })
        assert.strictEqual((yield* waitFor(api, parentInv.id, "1", FINAL)).status, "captured")
        const { customer } = yield* api.Customers.createCustomer({ payload: { shopID: m.shopID, contactInfo: {}, metadata: {} } })
        const card = yield* tokenize(api)
        const binding = yield* api.Customers.createBinding({
          path: { customerID: customer.id },
          payload: { paymentResource: { paymentToolToken: card.paymentToolToken, paymentSession: card.paymentSession } }
        })
        const until = Date.now() + 10_000
        let status = binding.status
        while (status === "pending" && Date.now() < until) {
          yield* sleepReal(20)
          status = (yield* api.Customers.getBinding({ path: { customerID: customer.id, customerBindingID: binding.id } })).status
        }
        assert.strictEqual(status, "succeeded")

        // an invoice's own token, and the token of an invoice a (public) template token minted
        const inv = yield* newInvoice(api, m.shopID)
        const { invoiceTemplate, invoiceTemplateAccessToken } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: {
            shopID: m.shopID,
            lifetime: { days: 3, months: 0, years: 0 },
            details: {
              templateType: "InvoiceTemplateSingleLine",
              product: "Tea",
              price: { costType: "InvoiceTemplateLineCostFixed", currency: "RUB", amount: 1000 }
            }
          }
        })
        const templateClient = yield* TestServer.client(invoiceTemplateAccessToken.payload)
        const minted = yield* templateClient.InvoiceTemplates.createInvoiceWithTemplate({
          path: { invoiceTemplateID: invoiceTemplate.id },
          payload: {}
        })
        const payers = [
          { payerType: "CustomerPayer", customerID: customer.id },
          {
            payerType: "RecurrentPayer",
            contactInfo: { email: "payer@kassa.test" },
            recurrentParentPayment: { invoiceID: parentInv.id, paymentID: "1" }
          }
        ]
        const attempts = [
          [inv.id, inv.accessToken],
          [minted.invoice.id, minted.invoiceAccessToken.payload]
        ] as const
        for (const [invoiceID, token] of attempts) {
          for (const payer of payers) {
            const body = { flow: INSTANT, payer, externalID: `stolen-${payer.payerType}` }
            const wire = yield* call("POST", `/v2/processing/invoices/${invoiceID}/payments`, token, body)
            assert.strictEqual(wire.status, 401, `${payer.payerType}: ${wire.text}`)
            assert.strictEqual(wire.text, "")
            // the template token does not open the minted invoice's payments at all
            const byTemplate = yield* call("POST", `/v2/processing/invoices/${invoiceID}/payments`, invoiceTemplateAccessToken.payload, body)
            assert.strictEqual(byTemplate.status, 404, byTemplate.text)
          }
          // nothing was written: no payment, the invoice as it was created
          assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID } }), [])
          assert.strictEqual(yield* invoiceStatus(api, invoiceID), "unpaid")
          assert.deepStrictEqual((yield* events(api, invoiceID)).map((e) => e.changes.map((c) => c.changeType)), [["InvoiceCreated"]])
          // the payer still pays with a card of its own
          const own = yield* pay(yield* TestServer.client(token), invoiceID)
          assert.strictEqual(own.id, "1")
          assert.strictEqual((yield* waitFor(api, invoiceID, "1", FINAL)).status, "captured")
        }
        yield* LedgerChecks.invariants
      }))

    it.effect("an invoice token's externalID is the invoice's own: it neither blocks nor answers the merchant's", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const inv = yield* newInvoice(api, m.shopID)
        const payer = yield* TestServer.client(inv.accessToken)
        const resource = yield* tokenize(payer)
        const body = { externalID: "pay-1", flow: hold(), payer: resourcePayer(resource) }
        const url = `/v2/processing/invoices/${inv.id}/payments`
        const first = yield* call("POST", url, inv.accessToken, body)
        assert.strictEqual(first.status, 201, first.text)
        // the payer's retry answers its own payment; another request under its externalID is 409
        const again = yield* call("POST", url, inv.accessToken, body)
        assert.strictEqual(again.status, 201, again.text)
        assert.strictEqual(again.json.id, first.json.id)
        const conflict = yield* call("POST", url, inv.accessToken, { ...body, flow: INSTANT })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.strictEqual(conflict.json.id, first.json.id)
        // the merchant's look-up does not find it, and the merchant's own "pay-1" is a new payment
        assert.strictEqual(yield* errorTag(api.Payments.getPaymentByExternalID({ urlParams: { externalID: "pay-1" } })), "NotFound")
        assert.strictEqual(
          yield* errorTag(api.Payments.getPaymentByExternalIDForParty({ path: { partyID: m.partyID }, urlParams: { externalID: "pay-1" } })),
          "NotFound"
        )
        const other = yield* newInvoice(api, m.shopID)
        const merchants = yield* pay(api, other.id, { externalID: "pay-1" })
        assert.strictEqual(merchants.invoiceID, other.id)
        assert.strictEqual((yield* api.Payments.getPaymentByExternalID({ urlParams: { externalID: "pay-1" } })).invoiceID, other.id)
        assert.strictEqual((yield* waitFor(api, other.id, "1", FINAL)).status, "captured")
        // the payer's payment is untouched; end its hold
        const path = { invoiceID: inv.id, paymentID: first.json.id }
        assert.strictEqual((yield* waitFor(api, inv.id, first.json.id, ["processed"])).externalID, "pay-1")
        yield* api.Payments.cancelPayment({ path, payload: { reason: "done" } })
        assert.strictEqual((yield* waitFor(api, inv.id, first.json.id, FINAL)).status, "cancelled")
        yield* LedgerChecks.invariants
      }))

    it.effect("the fee: the shop's settlement account earns amount − 3.5 % (half up); getAccountByID shows it to its party only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        let expected = 0
        for (const amount of [1000, 100, 1010, 1030, 1, 29, 1_000_000]) {
          const inv = yield* newInvoice(api, m.shopID, { amount })
          yield* pay(api, inv.id)
          assert.strictEqual((yield* waitFor(api, inv.id, "1", FINAL)).status, "captured")
          expected += amount - fee(amount)
          const account = yield* settlement(m)
          assert.strictEqual(account.own, expected, `after a payment of ${amount} (fee ${fee(amount)})`)
        }
        assert.deepStrictEqual([fee(100), fee(1010), fee(1030), fee(1), fee(29)], [4, 35, 36, 0, 1])
        const account = yield* settlement(m)
        const wire = yield* call("GET", `/v1/processing/accounts/${account.id}`, m.apiKey)
        assert.strictEqual(wire.status, 200, wire.text)
        assert.deepStrictEqual(wire.json, { id: account.id, ownAmount: expected, availableAmount: expected, currency: "RUB" })
        assert.deepStrictEqual((yield* call("GET", `/v2/processing/accounts/${account.id}`, m.apiKey)).json, wire.json)
        // the platform's accounts, another party's and unknown ones are not found
        const snapshot = yield* LedgerChecks.snapshot
        const platform = snapshot.accounts.filter((a) => a.partyID === "").map((a) => a.id)
        assert.isAtLeast(platform.length, 2)
        const other = yield* Fixtures.merchant()
        for (const [id, token] of [...platform.map((id) => [id, m.apiKey] as const), [account.id, other.apiKey], [99_999_999, m.apiKey]] as const) {
          const r = yield* call("GET", `/v1/processing/accounts/${id}`, token)
          assert.strictEqual(r.status, 404, `account ${id}: ${r.text}`)
          assert.deepStrictEqual(Object.keys(r.json), ["message"])
        }
        assert.strictEqual((yield* call("GET", "/v1/processing/accounts/abc", m.apiKey)).status, 400)
        const inv = yield* newInvoice(api, m.shopID)
        assert.strictEqual((yield* call("GET", `/v1/processing/accounts/${account.id}`, inv.accessToken)).status, 401)
        // the other shop of the party has its own account, untouched
        assert.strictEqual((yield* settlement(m, m.shopIDs[1]!)).own, 0)
        yield* LedgerChecks.invariants
      }))
  })

  // The payer's time to answer a challenge, short enough to run out within a test.
  layer(TestServer.layer(dialect, { settings: { interactionTimeoutMs: 300 } }), { timeout: "60 seconds", excludeTestServices: true })(
    `Payments, challenges left unanswered [${dialect}]`,
    (it) => {
      it.effect("3-D Secure abandoned: failed with preauthorization_failed, the CVV session erased", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* TestServer.client(m.apiKey)
          const inv = yield* newInvoice(api, m.shopID)
          yield* pay(api, inv.id, { card: THREE_DS, flow: hold() })
          yield* waitForChange(api, inv.id, "PaymentInteractionRequested")
          const failed = yield* waitFor(api, inv.id, "1", FINAL)
          assert.deepStrictEqual(failed.error, { code: "preauthorization_failed" })
          assert.isFalse(yield* cvvKept(inv.id, "1"))
          yield* LedgerChecks.invariants
        }))
    }
  )

  // An embedder's acquirer, plugged into Kassa's layer in place of the test acquirer: it declines
  // every authorisation the test acquirer would approve.
  const issuerSaysNo = Layer.effect(
    Acquirer,
    Effect.map(Acquirer, (test) =>
      Acquirer.of({
        ...test,
        authorize: () => Effect.succeed({ _tag: "Declined", error: PaymentError.of("authorization_failed", "rejected_by_issuer"), message: "no" })
      }))
  ).pipe(Layer.provide(TestAcquirer.layer))
  layer(TestServer.layer(dialect, { acquirer: issuerSaysNo }), { timeout: "60 seconds", excludeTestServices: true })(
    `Payments through an acquirer of the embedder's [${dialect}]`,
    (it) => {
      it.effect("the acquirer given to Kassa.layer decides: a card the test acquirer approves is declined", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* TestServer.client(m.apiKey)
          const inv = yield* newInvoice(api, m.shopID)
          yield* pay(api, inv.id, { card: VISA })
          const failed = yield* waitFor(api, inv.id, "1", FINAL)
          assert.strictEqual(failed.status, "failed")
          assert.deepStrictEqual(failed.error, PaymentError.of("authorization_failed", "rejected_by_issuer"))
          yield* LedgerChecks.invariants
        }))
    }
  )
}
