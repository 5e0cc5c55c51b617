import type * as HttpClient from "@effect/platform/HttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Runtime from "effect/Runtime"

/**
 * searchInvoices, searchPayments, searchRefunds (and the older revision's searchPayouts) over
 * HTTP, on `/v2` and `/v1`. Each test seeds its own merchant's shop straight into storage (rows
 * in the shapes the repositories write) from a model, and compares every answer with the model.
 * One test makes a real payment through the API. Real clock (`excludeTestServices`).
 */

const T0 = Date.UTC(2025, 0, 1)
const MIN = 60_000
const DAY = 86_400_000
const FROM = new Date(T0 - 1000).toISOString()
const TO = new Date(T0 + DAY).toISOString()

// --- the model -----------------------------------------------------------------------------

interface MPay {
  readonly invoiceID: string
  readonly id: string
  readonly createdAt: number
  readonly amount: number
  readonly currency: string
  readonly status: string
  readonly fee: number
  readonly flow: "instant" | "hold"
  readonly method: "bankCard" | "paymentTerminal"
  readonly customerID?: string
  readonly email?: string
  readonly ip?: string
  readonly fingerprint?: string
  readonly country?: string
  readonly tokenProvider?: string
  readonly system?: string
  readonly bin?: string
  readonly last4?: string
  readonly rrn?: string
  readonly approvalCode?: string
}

interface MInv {
  readonly id: string
  readonly createdAt: number
  readonly amount: number
  readonly status: string
  readonly payments: ReadonlyArray<MPay>
}

interface MRef {
  readonly invoiceID: string
  readonly paymentID: string
  readonly id: string
  readonly createdAt: number
  readonly amount: number
  readonly status: string
}

interface Model {
  readonly invoices: ReadonlyArray<MInv>
  readonly payments: ReadonlyArray<MPay>
  readonly refunds: ReadonlyArray<MRef>
}

const STATUSES = ["pending", "processed", "captured", "cancelled", "refunded", "failed"] as const

/** A deterministic shop of `n` invoices, their payments and refunds; ids carry `tag`. */
const generate = (tag: string, n: number, seed = 7): Model => {
  let s = seed
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(rnd() * xs.length)]!
  const invoices: Array<MInv> = []
  const refunds: Array<MRef> = []
  for (let i = 0; i < n; i++) {
    const id = `${tag}x${String((i * 7) % n).padStart(3, "0")}`
    const createdAt = T0 + Math.floor(i / 2) * MIN
    const payments: Array<MPay> = []
    const count = i % 4 === 3 ? 0 : i % 5 === 0 ? 2 : 1
    for (let k = 1; k <= count; k++) {
      const method = rnd() < 0.2 ? "paymentTerminal" : "bankCard"
      const customer = method === "bankCard" && rnd() < 0.15
      const status = k < count ? "failed" : pick(STATUSES)
      const amount = pick([500, 1000, 2500, 7000])
      const ok = status === "captured" || status === "refunded"
      const system = pick(["visa", "mastercard", "nspkmir"])
      const bin = { visa: "424242", mastercard: "555555", nspkmir: "220220" }[system]!
      payments.push({
        invoiceID: id,
        id: String(k),
        createdAt: createdAt + k * 1000,
        amount,
        currency: "RUB",
        status,
        fee: ok ? amount / 50 : 0,
        flow: rnd() < 0.3 ? "hold" : "instant",
        method,
        ...(customer ? { customerID: pick(["cust-a", "cust-b"]) } : {
          ...(rnd() < 0.8 ? { email: pick(["Anna@Example.com", "boris@example.com", "vera@example.org"]) } : {}),
          ip: pick(["10.1.1.1", "10.1.1.2", "2001:db8::1"]),
          fingerprint: pick(["fp-one", "fp-two", "fp-three"]),
          ...(rnd() < 0.7 ? { country: pick(["RUS", "KAZ"]) } : {})
        }),
        ...(method === "bankCard"
          ? {
            system,
            bin,
            last4: pick(["4242", "1234", "0034"]),
            ...(rnd() < 0.2 ? { tokenProvider: pick(["applepay", "googlepay"]) } : {})
          }
          : {}),
        ...(status === "pending" || status === "failed"
          ? {}
          : { rrn: `RRN${String(i * 10 + k).padStart(9, "0")}`, approvalCode: String(100000 + i * 10 + k) })
      })
    }
    const last = payments[payments.length - 1]
    invoices.push({
      id,
      createdAt,
      amount: last?.amount ?? 1000,
      status: last === undefined ? "unpaid" : last.status === "captured" || last.status === "refunded" ? pick(["paid", "fulfilled"]) : pick(["unpaid", "cancelled"]),
      payments
    })
    if (last !== undefined && (last.status === "captured" || last.status === "refunded") && i % 2 === 0) {
      for (let r = 1; r <= (i % 3 === 0 ? 2 : 1); r++) {
        refunds.push({
          invoiceID: id,
          paymentID: last.id,
          id: String(r),
          createdAt: last.createdAt + (i % 4) * MIN,
          amount: 100 * r,
          status: pick(["pending", "succeeded", "failed"])
        })
      }
    }
  }
  return { invoices, payments: invoices.flatMap((i) => i.payments), refunds }
}

const details = (p: MPay) =>
  p.method === "paymentTerminal"
    ? { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" }
    : {
      detailsType: "PaymentToolDetailsBankCard",
      cardNumberMask: `${p.bin}******${p.last4}`,
      first6: p.bin,
      last4: p.last4,
      bin: p.bin,
      lastDigits: p.last4,
      paymentSystem: p.system,
      ...(p.tokenProvider === undefined ? {} : { tokenProvider: p.tokenProvider })
    }

const payerOf = (p: MPay) =>
  p.customerID !== undefined
    ? { payerType: "CustomerPayer", customerID: p.customerID, paymentToolDetails: details(p) }
    : {
      payerType: "PaymentResourcePayer",
      paymentToolToken: `pt.${p.invoiceID}`,
      paymentSession: `ps.${p.invoiceID}`,
      paymentToolDetails: details(p),
      clientInfo: { fingerprint: p.fingerprint, ip: p.ip },
      contactInfo: { ...(p.email === undefined ? {} : { email: p.email }), ...(p.country === undefined ? {} : { country: p.country }) }
    }

const flowOf = (p: MPay) =>
  p.flow === "hold"
    ? { type: "PaymentFlowHold", onHoldExpiration: "cancel", heldUntil: new Date(p.createdAt + 3 * DAY).toISOString() }
    : { type: "PaymentFlowInstant" }

/** The payment as a search answers it. */
const wirePayment = (p: MPay, shopID: string) => ({
  id: p.id,
  invoiceID: p.invoiceID,
  createdAt: new Date(p.createdAt).toISOString(),
  amount: p.amount,
  currency: p.currency,
  flow: flowOf(p),
  payer: payerOf(p),
  ...(p.rrn === undefined ? {} : { transactionInfo: { rrn: p.rrn, approvalCode: p.approvalCode } }),
  makeRecurrent: false,
  metadata: { order: p.invoiceID },
  status: p.status,
  ...(p.status === "failed" ? { error: { code: "authorization_failed", subError: { code: "insufficient_funds" } } } : {}),
  shortID: `${p.invoiceID}.${p.id}`,
  shopID,
  fee: p.fee,
  statusChangedAt: new Date(p.createdAt + 500).toISOString(),
  cart: [{ product: "Tea", quantity: 1, price: p.amount, cost: p.amount }]
})

/** Writes the model's rows into the merchant's shop. */
const seed = (m: { partyID: string; shopID: string }, model: Model) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const i of model.invoices) {
      yield* sql`INSERT INTO invoices ${
        sql.insert({
          id: i.id,
          partyId: m.partyID,
          shopId: m.shopID,
          externalId: null,
          createdAt: i.createdAt,
          dueDate: i.createdAt + DAY,
          amount: i.amount,
          currency: "RUB",
          product: "Tea",
          status: i.status,
          invoiceTemplateId: null,
          activePaymentId: null,
          data: JSON.stringify({ description: `Invoice ${i.id}`, metadata: { n: i.id } }),
          version: 1
        })
      }`
    }
    for (const p of model.payments) {
      yield* sql`INSERT INTO payments ${
        sql.insert({
          invoiceId: p.invoiceID,
          id: p.id,
          partyId: m.partyID,
          shopId: m.shopID,
          externalId: null,
          createdAt: p.createdAt,
          amount: p.amount,
          currency: p.currency,
          status: p.status,
          activity: "done",
          flow: JSON.stringify(flowOf(p)),
          interactionId: null,
          fee: p.fee,
          statusChangedAt: p.createdAt + 500,
          data: JSON.stringify({
            payer: payerOf(p),
            ...(p.rrn === undefined ? {} : { transactionInfo: { rrn: p.rrn, approvalCode: p.approvalCode } }),
            makeRecurrent: false,
            metadata: { order: p.invoiceID },
            ...(p.status === "failed" ? { error: { code: "authorization_failed", subError: { code: "insufficient_funds" } } } : {}),
            authorizedAmount: p.amount,
            tool: { type: "BankCard", vaultToken: "vt", paymentSystem: p.system ?? "visa", expMonth: 12, expYear: 2040 },
            cart: [{ product: "Tea", quantity: 1, price: p.amount, cost: p.amount }]
          }),
          version: 1
        })
      }`
    }
    for (const r of model.refunds) {
      yield* sql`INSERT INTO refunds ${
        sql.insert({
          invoiceId: r.invoiceID,
          paymentId: r.paymentID,
          id: r.id,
          partyId: m.partyID,
          shopId: m.shopID,
          externalId: null,
          createdAt: r.createdAt,
          amount: r.amount,
          currency: "RUB",
          status: r.status,
          fee: 0,
          data: JSON.stringify({ reason: `refund ${r.id}` }),
          version: 1
        })
      }`
    }
  }).pipe(Effect.orDie)

/** A merchant with a seeded shop. */
const seeded = (n = 40, seedValue = 7) =>
  Effect.gen(function*() {
    const m = yield* Fixtures.merchant()
    const model = generate(m.shopID, n, seedValue)
    yield* seed(m, model)
    return { m, model }
  })

// --- filters: wire name, which searches take it, and the rows it keeps ---------------------

type Params = Record<string, string>

const paymentFilter: Record<string, (p: MPay, v: string) => boolean> = {
  paymentStatus: (p, v) => p.status === v,
  paymentFlow: (p, v) => p.flow === v,
  paymentMethod: (p, v) => p.method === v,
  paymentTerminalProvider: (p, v) => p.method === "paymentTerminal" && v === "euroset",
  paymentID: (p, v) => p.id === v,
  payerEmail: (p, v) => p.email?.toLowerCase() === v.toLowerCase(),
  payerIP: (p, v) => p.ip === v,
  payerFingerprint: (p, v) => p.fingerprint === v,
  customerID: (p, v) => p.customerID === v,
  bankCardTokenProvider: (p, v) => p.tokenProvider === v,
  bankCardPaymentSystem: (p, v) => p.system === v,
  first6: (p, v) => p.bin === v,
  bin: (p, v) => p.bin === v,
  last4: (p, v) => p.last4 !== undefined && p.last4.endsWith(v),
  cardNumberMask: (p, v) => p.last4 !== undefined && p.last4.endsWith(v),
  rrn: (p, v) => p.rrn === v,
  approvalCode: (p, v) => p.approvalCode === v,
  paymentAmount: (p, v) => p.amount === Number(v)
}

const matchPayment = (p: MPay, params: Params) =>
  Object.entries(params).every(([k, v]) =>
    k === "invoiceID" ? p.invoiceID === v : paymentFilter[k] === undefined ? true : paymentFilter[k]!(p, v)
  )

const matchInvoice = (i: MInv, params: Params) => {
  const own = Object.entries(params).every(([k, v]) =>
    k === "invoiceStatus" ? i.status === v : k === "invoiceAmount" ? i.amount === Number(v) : k === "invoiceID" ? i.id === v : true
  )
  const payment = Object.fromEntries(Object.entries(params).filter(([k]) => k in paymentFilter))
  return own && (Object.keys(payment).length === 0 || i.payments.some((p) => matchPayment(p, payment)))
}

const refundFilter: Record<string, (r: MRef, v: string, model: Model) => boolean> = {
  invoiceID: (r, v) => r.invoiceID === v,
  paymentID: (r, v) => r.paymentID === v,
  refundID: (r, v) => r.id === v,
  refundStatus: (r, v) => r.status === v,
  rrn: (r, v, model) => model.payments.some((p) => p.invoiceID === r.invoiceID && p.id === r.paymentID && p.rrn === v),
  approvalCode: (r, v, model) =>
    model.payments.some((p) => p.invoiceID === r.invoiceID && p.id === r.paymentID && p.approvalCode === v)
}

const desc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0)
const expectedInvoices = (model: Model, params: Params) =>
  model.invoices.filter((i) => matchInvoice(i, params)).sort((a, b) => b.createdAt - a.createdAt || desc(a.id, b.id)).map((i) => i.id)
const expectedPayments = (model: Model, params: Params) =>
  model.payments.filter((p) => matchPayment(p, params))
    .sort((a, b) => b.createdAt - a.createdAt || desc(a.invoiceID, b.invoiceID) || desc(a.id, b.id))
    .map((p) => `${p.invoiceID}.${p.id}`)
const refundKey = (r: { invoiceID: string; paymentID: string; id: string }) => `${r.invoiceID}/${r.paymentID}/${r.id}`
const expectedRefunds = (model: Model, params: Params) =>
  model.refunds.filter((r) => Object.entries(params).every(([k, v]) => refundFilter[k] === undefined || refundFilter[k]!(r, v, model)))
    .sort((a, b) => b.createdAt - a.createdAt || desc(a.invoiceID, b.invoiceID) || desc(a.paymentID, b.paymentID) || desc(a.id, b.id))
    .map(refundKey)

// --- HTTP ----------------------------------------------------------------------------------

const headers = (token: string | undefined) => ({
  "x-request-id": TestServer.requestId(),
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
})

const get = (path: string, token: string | undefined, params: Params = {}) => {
  const query = new URLSearchParams(params).toString()
  return TestServer.raw("GET", query === "" ? path : `${path}?${query}`, { headers: headers(token) })
}

type Kind = "invoices" | "payments" | "refunds"

const search = (version: "v1" | "v2", kind: Kind | "payouts", m: { shopID: string; apiKey: string }, params: Params) =>
  get(`/${version}/analytics/shops/${m.shopID}/${kind}`, m.apiKey, { fromTime: FROM, toTime: TO, limit: "1000", ...params })

const ok = (r: TestServer.RawResponse) => {
  assert.strictEqual(r.status, 200, r.text)
  assert.strictEqual(r.headers["content-type"], "application/json; charset=utf-8")
  return r.json
}

const keysOf = (kind: Kind, result: ReadonlyArray<any>): Array<string> =>
  result.map((x) => (kind === "invoices" ? x.id : kind === "payments" ? x.shortID : refundKey(x)))

/** An empty `last4` asks for nothing. */
const expected = (kind: Kind, model: Model, all: Params) => {
  const params = Object.fromEntries(Object.entries(all).filter(([k, v]) => !(k === "last4" && v === "")))
  return kind === "invoices" ? expectedInvoices(model, params) : kind === "payments" ? expectedPayments(model, params) : expectedRefunds(model, params)
}

const invalidRequest = (r: TestServer.RawResponse, field: string) => {
  assert.strictEqual(r.status, 400, r.text)
  assert.strictEqual(r.json.code, "invalidRequest", r.text)
  assert.include(r.json.message, field, r.text)
}

const limitExceeded = (r: TestServer.RawResponse, field: string) => {
  assert.strictEqual(r.status, 400, r.text)
  assert.strictEqual(r.json.code, "limitExceeded", r.text)
  assert.include(r.json.message, field, r.text)
}

/** Walks every page: by continuation token, or by offset. */
const walk = (kind: Kind, m: { shopID: string; apiKey: string }, params: Params, limit: number, form: "token" | "offset") =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    let token: string | undefined
    let total: number | undefined
    for (let page = 0; page < 200; page++) {
      const paging: Params = form === "token"
        ? (token === undefined ? {} : { continuationToken: token })
        : { offset: String(page * limit) }
      const body = ok(yield* search("v2", kind, m, { ...params, ...paging, limit: String(limit) }))
      assert.isAtMost(body.result.length, limit)
      seen.push(...keysOf(kind, body.result))
      if (form === "offset" || kind === "refunds") {
        assert.isNumber(body.totalCount)
        if (total !== undefined) assert.strictEqual(body.totalCount, total)
        total = body.totalCount
      } else {
        assert.notProperty(body, "totalCount")
      }
      token = body.continuationToken
      if (form === "token" ? token === undefined : page * limit + limit >= total!) {
        if (form === "offset") assert.strictEqual(token === undefined, page * limit + body.result.length >= total!)
        break
      }
      assert.strictEqual(body.result.length, limit, "a page short of the limit carries no token")
    }
    return { seen, total }
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Search [${dialect}]`, (it) => {
    it.effect("every filter of both revisions keeps exactly the matching invoices and payments, newest first", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded()
        const p = model.payments
        const some = <A>(xs: ReadonlyArray<A | undefined>) => xs.find((x) => x !== undefined)!
        const cases: ReadonlyArray<readonly [Params, ReadonlyArray<Kind>]> = [
          [{}, ["invoices", "payments"]],
          ...STATUSES.map((s) => [{ paymentStatus: s }, ["invoices", "payments"]] as const),
          [{ paymentFlow: "hold" }, ["invoices", "payments"]],
          [{ paymentFlow: "instant" }, ["invoices", "payments"]],
          [{ paymentMethod: "bankCard" }, ["invoices", "payments"]],
          [{ paymentMethod: "paymentTerminal" }, ["invoices", "payments"]],
          [{ paymentTerminalProvider: "euroset" }, ["invoices", "payments"]],
          [{ invoiceID: model.invoices[5]!.id }, ["invoices", "payments"]],
          [{ paymentID: "2" }, ["invoices", "payments"]],
          [{ payerEmail: "anna@EXAMPLE.com" }, ["invoices", "payments"]],
          [{ payerIP: "2001:db8::1" }, ["invoices", "payments"]],
          [{ payerFingerprint: "fp-two" }, ["invoices", "payments"]],
          [{ customerID: "cust-a" }, ["invoices", "payments"]],
          [{ bankCardTokenProvider: "googlepay" }, ["invoices", "payments"]],
          [{ bankCardTokenProvider: "samsungpay" }, ["invoices", "payments"]],
          [{ bankCardPaymentSystem: "mastercard" }, ["invoices", "payments"]],
          [{ first6: "220220" }, ["invoices", "payments"]],
          [{ bin: "424242" }, ["invoices", "payments"]],
          [{ bin: "42424242" }, ["invoices", "payments"]],
          [{ last4: "34" }, ["invoices", "payments"]],
          [{ last4: "1234" }, ["invoices", "payments"]],
          [{ last4: "" }, ["invoices", "payments"]],
          [{ cardNumberMask: "42" }, ["invoices", "payments"]],
          [{ rrn: some(p.map((x) => x.rrn)) }, ["invoices", "payments"]],
          [{ approvalCode: some(p.map((x) => x.approvalCode)) }, ["payments"]],
          [{ paymentAmount: "2500" }, ["invoices", "payments"]],
          [{ invoiceStatus: "paid" }, ["invoices"]],
          [{ invoiceStatus: "unpaid" }, ["invoices"]],
          [{ invoiceAmount: "7000" }, ["invoices"]],
          [{ invoiceStatus: "paid", paymentAmount: "1000", bankCardPaymentSystem: "visa" }, ["invoices"]],
          [{ paymentStatus: "captured", payerFingerprint: "fp-one", paymentFlow: "instant" }, ["invoices", "payments"]]
        ]
        let nonEmpty = 0
        for (const [params, kinds] of cases) {
          for (const kind of kinds) {
            const want = expected(kind, model, params)
            if (want.length > 0) nonEmpty++
            const body = ok(yield* search("v2", kind, m, params))
            assert.deepStrictEqual(keysOf(kind, body.result), want, `${kind} ${JSON.stringify(params)}`)
            assert.notProperty(body, "totalCount")
            assert.notProperty(body, "continuationToken")
          }
        }
        assert.isAbove(nonEmpty, 50, "the cases should mostly find something")
        // every field of a payment result
        const body = ok(yield* search("v2", "payments", m, {}))
        const byKey = new Map(model.payments.map((x) => [`${x.invoiceID}.${x.id}`, x]))
        for (const found of body.result) assert.deepStrictEqual(found, wirePayment(byKey.get(found.shortID)!, m.shopID))
        // and of an invoice
        const invoices = ok(yield* search("v2", "invoices", m, { invoiceID: model.invoices[0]!.id }))
        const i = model.invoices[0]!
        assert.deepStrictEqual(invoices.result, [{
          id: i.id,
          shopID: m.shopID,
          createdAt: new Date(i.createdAt).toISOString(),
          dueDate: new Date(i.createdAt + DAY).toISOString(),
          amount: i.amount,
          currency: "RUB",
          product: "Tea",
          description: `Invoice ${i.id}`,
          metadata: { n: i.id },
          status: i.status
        }])
      }))

    it.effect("refunds: every filter, with totalCount; results carry invoiceID and paymentID", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded()
        const r = model.refunds
        assert.isAbove(r.length, 4)
        const withRrn = model.payments.find((p) => p.rrn !== undefined && r.some((x) => x.invoiceID === p.invoiceID))!
        const cases: ReadonlyArray<Params> = [
          {},
          { invoiceID: r[0]!.invoiceID },
          { invoiceID: r[0]!.invoiceID, paymentID: r[0]!.paymentID, refundID: "2" },
          { paymentID: "2" },
          { refundID: "1" },
          { refundStatus: "pending" },
          { refundStatus: "succeeded" },
          { refundStatus: "failed" },
          { rrn: withRrn.rrn! },
          { approvalCode: withRrn.approvalCode! },
          { rrn: "NOSUCHRRN000" }
        ]
        for (const params of cases) {
          const want = expectedRefunds(model, params)
          const body = ok(yield* search("v2", "refunds", m, params))
          assert.deepStrictEqual(keysOf("refunds", body.result), want, JSON.stringify(params))
          assert.strictEqual(body.totalCount, want.length)
        }
        const body = ok(yield* search("v2", "refunds", m, { invoiceID: r[0]!.invoiceID, refundID: "1" }))
        assert.deepStrictEqual(body.result, [{
          id: "1",
          createdAt: new Date(r[0]!.createdAt).toISOString(),
          amount: 100,
          currency: "RUB",
          reason: "refund 1",
          status: r[0]!.status,
          invoiceID: r[0]!.invoiceID,
          paymentID: r[0]!.paymentID
        }])
      }))

    it.effect("property: walking every page, by token or by offset, gives the matching rows once, in order", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded(30, 11)
        const runtime = yield* Effect.runtime<HttpClient.HttpClient>()
        const filters = FastCheck.record({
          paymentStatus: FastCheck.constantFrom(...STATUSES),
          paymentMethod: FastCheck.constantFrom("bankCard", "paymentTerminal"),
          payerFingerprint: FastCheck.constantFrom("fp-one", "fp-two"),
          bankCardPaymentSystem: FastCheck.constantFrom("visa", "mastercard"),
          paymentFlow: FastCheck.constantFrom("instant", "hold")
        }, { requiredKeys: [] })
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(
              FastCheck.constantFrom<Kind>("invoices", "payments", "refunds"),
              filters,
              FastCheck.integer({ min: 1, max: 7 }),
              FastCheck.constantFrom<"token" | "offset">("token", "offset"),
              async (kind, f, limit, form) => {
                const params: Params = kind === "refunds"
                  ? (f.paymentStatus === undefined ? {} : { refundStatus: f.paymentStatus === "failed" ? "failed" : "succeeded" })
                  : { ...f }
                const want = expected(kind, model, params)
                const { seen, total } = await Runtime.runPromise(runtime)(walk(kind, m, params, limit, form))
                assert.deepStrictEqual(seen, want, `${kind} ${form} limit ${limit} ${JSON.stringify(params)}`)
                if (total !== undefined) assert.strictEqual(total, want.length)
              }
            ),
            { numRuns: 25, seed: 20251122 }
          )
        )
      }))

    it.effect("continuation tokens are bound to their search: other conditions, another kind, tampering → 400", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded(20)
        const first = ok(yield* search("v2", "payments", m, { limit: "3", paymentMethod: "bankCard" }))
        const token: string = first.continuationToken
        assert.isString(token)
        // the same conditions (spelled in another order) go on
        const next = ok(yield* get(`/v2/analytics/shops/${m.shopID}/payments`, m.apiKey, {
          paymentMethod: "bankCard",
          continuationToken: token,
          limit: "2",
          toTime: TO,
          fromTime: FROM
        }))
        assert.deepStrictEqual(keysOf("payments", next.result), expectedPayments(model, { paymentMethod: "bankCard" }).slice(3, 5))
        const replays: ReadonlyArray<readonly [Kind | "v1payments", Params]> = [
          ["payments", { limit: "3" }],
          ["payments", { limit: "3", paymentMethod: "paymentTerminal" }],
          ["payments", { limit: "3", paymentMethod: "bankCard", paymentStatus: "captured" }],
          ["payments", { limit: "3", paymentMethod: "bankCard", fromTime: new Date(T0 - 2000).toISOString() }],
          ["payments", { limit: "3", paymentMethod: "bankCard", toTime: new Date(T0 + DAY - 1).toISOString() }],
          ["invoices", { limit: "3", paymentMethod: "bankCard" }],
          ["refunds", { limit: "3" }]
        ]
        for (const [kind, params] of replays) {
          invalidRequest(yield* search("v2", kind as Kind, m, { ...params, continuationToken: token }), "continuationToken")
        }
        // another shop of the same party
        invalidRequest(
          yield* search("v2", "payments", { ...m, shopID: m.shopIDs[1]! }, { limit: "3", paymentMethod: "bankCard", continuationToken: token }),
          "continuationToken"
        )
        const [position, code] = token.split(".") as [string, string]
        const forged = Buffer.from(JSON.stringify([T0 + DAY, "zzz", "9"])).toString("base64url")
        // (a code with its first character changed: one ending in the characters put in its place
        // would not be tampered with)
        const tampered = `${code.startsWith("A") ? "B" : "A"}${code.slice(1)}`
        for (const bad of [`${forged}.${code}`, `${position}.${tampered}`, "garbage", `${position}`]) {
          invalidRequest(yield* search("v2", "payments", m, { limit: "3", paymentMethod: "bankCard", continuationToken: bad }), "continuationToken")
        }
        invalidRequest(
          yield* search("v2", "payments", m, { limit: "3", paymentMethod: "bankCard", continuationToken: token, offset: "3" }),
          "offset"
        )
        // a token from an offset page continues after that page
        const byOffset = ok(yield* search("v2", "invoices", m, { limit: "4", offset: "4" }))
        const after = ok(yield* search("v2", "invoices", m, { limit: "4", continuationToken: byOffset.continuationToken }))
        assert.deepStrictEqual(keysOf("invoices", after.result), expectedInvoices(model, {}).slice(8, 12))
      }))

    it.effect("keyset pages are stable under concurrent inserts: no row twice, none skipped", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded(24)
        const sql = yield* SqlClient.SqlClient
        const original = expectedPayments(model, {})
        const seen: Array<string> = []
        let token: string | undefined
        let extra = 0
        do {
          const body = ok(yield* search("v2", "payments", m, { limit: "4", ...(token === undefined ? {} : { continuationToken: token }) }))
          seen.push(...keysOf("payments", body.result))
          token = body.continuationToken
          // between pages: a newer payment, and one at the very time of the last row returned
          const last = model.payments.find((p) => `${p.invoiceID}.${p.id}` === seen[seen.length - 1])!
          for (const createdAt of [T0 + DAY - 5000, last.createdAt]) {
            extra++
            const invoiceID = `${m.shopID}new${extra}`
            yield* sql`INSERT INTO invoices ${
              sql.insert({
                id: invoiceID, partyId: m.partyID, shopId: m.shopID, externalId: null, createdAt, dueDate: createdAt + DAY,
                amount: 100, currency: "RUB", product: "Tea", status: "unpaid", invoiceTemplateId: null,
                activePaymentId: null, data: JSON.stringify({ metadata: {} }), version: 1
              })
            }`
            yield* sql`INSERT INTO payments ${
              sql.insert({
                invoiceId: invoiceID, id: "1", partyId: m.partyID, shopId: m.shopID, externalId: null, createdAt,
                amount: 100, currency: "RUB", status: "pending", activity: "processing",
                flow: JSON.stringify({ type: "PaymentFlowInstant" }), interactionId: null, fee: 0, statusChangedAt: createdAt,
                data: JSON.stringify({
                  payer: payerOf({ ...model.payments[0]!, invoiceID, customerID: "cust-new" }),
                  makeRecurrent: false,
                  authorizedAmount: 100
                }),
                version: 1
              })
            }`
          }
        } while (token !== undefined)
        assert.strictEqual(new Set(seen).size, seen.length, "a row came twice")
        for (const key of original) assert.include(seen, key)
        // the rows inserted behind the position may or may not be seen; those ahead of it never are
        const ahead = seen.filter((k) =>
          k.startsWith(`${m.shopID}new`) && Number(k.slice(`${m.shopID}new`.length).split(".")[0]) % 2 === 1
        )
        assert.deepStrictEqual(ahead, [])
      }))

    it.effect("bad values are 400 invalidRequest naming the field; windows and depths beyond the limits are limitExceeded", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const bad: ReadonlyArray<readonly [Kind | "payouts", string, string]> = [
          ["payments", "limit", "0"],
          ["payments", "limit", "1001"],
          ["invoices", "limit", "ten"],
          ["refunds", "offset", "-1"],
          ["payments", "fromTime", "2025-01-01"],
          ["invoices", "toTime", "2025-13-01T00:00:00Z"],
          ["payments", "paymentStatus", "paid"],
          ["invoices", "invoiceStatus", "refunded"],
          ["payments", "paymentFlow", "PaymentFlowHold"],
          ["payments", "paymentMethod", "digitalWallet"],
          ["payments", "paymentTerminalProvider", "qiwi"],
          ["payments", "invoiceID", "x".repeat(41)],
          ["invoices", "paymentID", "x".repeat(41)],
          ["payments", "payerEmail", "not-an-email"],
          ["payments", "payerIP", "300.1.1.1"],
          ["payments", "payerFingerprint", "f".repeat(1001)],
          ["payments", "customerID", "c".repeat(41)],
          ["payments", "bankCardTokenProvider", "yandexpay"],
          ["payments", "bankCardPaymentSystem", "Visa"],
          ["payments", "first6", "4242"],
          ["payments", "last4", "42424"],
          ["invoices", "bin", "42424"],
          ["invoices", "cardNumberMask", "4"],
          ["payments", "rrn", "123"],
          ["payments", "approvalCode", "a".repeat(41)],
          ["payments", "paymentAmount", "0"],
          ["invoices", "invoiceAmount", "1.5"],
          ["refunds", "refundStatus", "done"],
          ["refunds", "refundID", "r".repeat(41)],
          ["payouts", "payoutStatus", "sent"],
          ["payouts", "payoutToolType", "PayoutWallet"],
          ["payouts", "payoutID", "p".repeat(41)]
        ]
        for (const [kind, field, value] of bad) invalidRequest(yield* search("v2", kind, m, { [field]: value }), field)
        // missing required parameters
        invalidRequest(yield* get(`/v2/analytics/shops/${m.shopID}/payments`, m.apiKey, { fromTime: FROM, toTime: TO }), "limit")
        invalidRequest(yield* get(`/v2/analytics/shops/${m.shopID}/invoices`, m.apiKey, { toTime: TO, limit: "1" }), "fromTime")
        invalidRequest(yield* search("v2", "payments", m, { fromTime: TO, toTime: FROM }), "fromTime")
        invalidRequest(yield* search("v2", "payments", m, { fromTime: TO }), "fromTime")
        invalidRequest(yield* search("v2", "invoices", m, { offset: "1", continuationToken: "x.y" }), "offset")
        for (const kind of ["invoices", "payments", "refunds", "payouts"] as const) {
          limitExceeded(yield* search("v2", kind, m, { fromTime: new Date(T0 - 367 * DAY).toISOString() }), "fromTime")
          limitExceeded(yield* search("v2", kind, m, { offset: "99001" }), "offset")
          ok(yield* search("v2", kind, m, { offset: "99000", fromTime: new Date(T0 - 366 * DAY + DAY).toISOString() }))
        }
      }))

    it.effect("only the caller's party's shops: another party's or an unknown shop is 404; no key is 401", () =>
      Effect.gen(function*() {
        const { m } = yield* seeded(8)
        const other = yield* Fixtures.merchant()
        for (const kind of ["invoices", "payments", "refunds", "payouts"] as const) {
          const r = yield* search("v2", kind, { shopID: m.shopID, apiKey: other.apiKey }, {})
          assert.strictEqual(r.status, 404, r.text)
          assert.deepStrictEqual(Object.keys(r.json), ["message"])
          assert.strictEqual((yield* search("v1", kind, { shopID: "no-such-shop", apiKey: m.apiKey }, {})).status, 404)
          assert.strictEqual((yield* search("v2", kind, { shopID: m.shopID, apiKey: "garbage" }, {})).status, 401)
        }
        // the other party's own shop is empty, not the first one's
        assert.deepStrictEqual(ok(yield* search("v2", "payments", other, {})).result, [])
      }))

    it.effect("/v1: the same searches always count, with the older card filters; payouts are none", () =>
      Effect.gen(function*() {
        const { m, model } = yield* seeded(20)
        for (const kind of ["invoices", "payments", "refunds"] as const) {
          const body = ok(yield* search("v1", kind, m, { limit: "5", offset: "2" }))
          const want = expected(kind, model, {})
          assert.strictEqual(body.totalCount, want.length)
          assert.deepStrictEqual(keysOf(kind, body.result), want.slice(2, 7))
          const noOffset = ok(yield* search("v1", kind, m, { limit: "5" }))
          assert.strictEqual(noOffset.totalCount, want.length)
        }
        const params = { bin: "555555", cardNumberMask: "234" }
        const body = ok(yield* search("v1", "payments", m, params))
        assert.deepStrictEqual(keysOf("payments", body.result), expectedPayments(model, params))
        assert.strictEqual(body.totalCount, expectedPayments(model, params).length)
        // v2 answers no totalCount without offset
        assert.notProperty(ok(yield* search("v2", "payments", m, params)), "totalCount")
        for (const version of ["v1", "v2"] as const) {
          assert.deepStrictEqual(
            ok(yield* search(version, "payouts", m, { payoutStatus: "paid", payoutToolType: "PayoutCard", payoutID: "p1", offset: "0" })),
            { totalCount: 0, result: [] }
          )
        }
      }))

    it.effect("a payment made through the API is found with its search fields", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const post = (path: string, token: string, body: unknown) =>
          TestServer.raw("POST", path, { headers: headers(token), body: JSON.stringify(body) })
        const started = Date.now()
        const invoice = yield* post("/v2/processing/invoices", m.apiKey, {
          shopID: m.shopID,
          dueDate: new Date(Date.now() + DAY).toISOString(),
          amount: 4200,
          currency: "RUB",
          product: "Tea",
          metadata: {}
        })
        assert.strictEqual(invoice.status, 201, invoice.text)
        const invoiceID: string = invoice.json.invoice.id
        const resource = yield* post("/v2/processing/payment-resources", invoice.json.invoiceAccessToken.payload, {
          paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/40", cvv: "123" },
          clientInfo: { fingerprint: "fp-real", ip: "192.0.2.7" }
        })
        assert.strictEqual(resource.status, 201, resource.text)
        const created = yield* post(`/v2/processing/invoices/${invoiceID}/payments`, m.apiKey, {
          flow: { type: "PaymentFlowInstant" },
          payer: {
            payerType: "PaymentResourcePayer",
            paymentToolToken: resource.json.paymentToolToken,
            paymentSession: resource.json.paymentSession,
            contactInfo: { email: "Real@Payer.test", country: "KAZ" }
          }
        })
        assert.strictEqual(created.status, 201, created.text)
        let payment = created.json
        for (let i = 0; i < 400 && payment.status !== "captured" && payment.status !== "failed"; i++) {
          yield* Effect.sleep("25 millis")
          payment = (yield* get(`/v2/processing/invoices/${invoiceID}/payments/1`, m.apiKey)).json
        }
        assert.strictEqual(payment.status, "captured")
        const window = { fromTime: new Date(started - 60_000).toISOString(), toTime: new Date(Date.now() + 60_000).toISOString() }
        const filters: ReadonlyArray<Params> = [
          {},
          { payerEmail: "real@payer.test" },
          { payerIP: "192.0.2.7" },
          { payerFingerprint: "fp-real" },
          { first6: "424242", last4: "4242", bankCardPaymentSystem: "visa", paymentMethod: "bankCard" },
          { bin: "424242", cardNumberMask: "42" },
          { rrn: payment.transactionInfo.rrn },
          { approvalCode: payment.transactionInfo.approvalCode },
          { paymentStatus: "captured", paymentFlow: "instant", paymentAmount: "4200" }
        ]
        for (const params of filters) {
          const found = ok(yield* search("v2", "payments", m, { ...window, ...params }))
          assert.strictEqual(found.result.length, 1, JSON.stringify(params))
          const r = found.result[0]
          const { shortID, shopID, fee, statusChangedAt, cart: _cart, ...rest } = r
          assert.deepStrictEqual(rest, payment)
          assert.strictEqual(shortID, `${invoiceID}.1`)
          assert.strictEqual(shopID, m.shopID)
          assert.isAbove(fee, 0)
          assert.isAtLeast(Date.parse(statusChangedAt), Date.parse(payment.createdAt))
          const invoices = ok(yield* search("v2", "invoices", m, { ...window, ...params }))
          assert.deepStrictEqual(invoices.result.map((i: any) => i.id), [invoiceID])
          assert.strictEqual(invoices.result[0].status, "paid")
        }
        assert.deepStrictEqual(ok(yield* search("v2", "payments", m, { ...window, payerEmail: "other@payer.test" })).result, [])
      }))
  })
}
