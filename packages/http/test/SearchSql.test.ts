import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { Database, Migrations } from "@kassa/adapters"
import * as SqlSearch from "@kassa/adapters/SqlSearch"
import type { PaymentConditions, Query, StatsRow } from "@kassa/core/ports/SearchRepository"
import { SearchRepository } from "@kassa/core/ports/SearchRepository"
import { SearchTokens } from "@kassa/core/ports/SearchTokens"
import { Dialects, TestDatabase } from "@kassa/testing"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as TestServices from "effect/TestServices"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The search store on both dialects, below the service: the search columns of migration
 * 0010, each condition, the keyset order, counts and the statistics' groups.
 */

const migrated = Layer.effectDiscard(
  Effect.gen(function*() {
    yield* Migrations.run
    const sql = yield* SqlClient.SqlClient
    // once registered, the global migrator runs 0010 itself
    const done = yield* sql`SELECT migration_id FROM kassa_migrations WHERE migration_id = 10`
    if (done.length === 0) yield* SqlSearch.migration
  }).pipe(Effect.orDie)
)

const storeLayer = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), ({ database }) =>
      SqlSearch.layer({ secret: "a search secret of the tests" }).pipe(
        Layer.provideMerge(migrated),
        Layer.provideMerge(Database.layer(database))
      ))
  )

const T0 = Date.UTC(2025, 0, 1)
const MIN = 60_000

interface Pay {
  readonly invoiceID: string
  readonly id: string
  readonly createdAt: number
  readonly amount: number
  readonly currency: string
  readonly status: string
  readonly fee: number
  readonly flow: "PaymentFlowInstant" | "PaymentFlowHold"
  readonly payer: any
  readonly transactionInfo?: { readonly rrn: string; readonly approvalCode: string }
}

const card = (o: { system: string; bin: string; last4: string; tokenProvider?: string }) => ({
  detailsType: "PaymentToolDetailsBankCard",
  cardNumberMask: `${o.bin}******${o.last4}`,
  first6: o.bin,
  last4: o.last4,
  bin: o.bin,
  lastDigits: o.last4,
  paymentSystem: o.system,
  ...(o.tokenProvider === undefined ? {} : { tokenProvider: o.tokenProvider })
})

const resourcePayer = (details: unknown, o: { email?: string; ip?: string; fingerprint: string; country?: string }) => ({
  payerType: "PaymentResourcePayer",
  paymentToolToken: "pt.test",
  paymentSession: "ps.test",
  paymentToolDetails: details,
  clientInfo: { fingerprint: o.fingerprint, ...(o.ip === undefined ? {} : { ip: o.ip }) },
  contactInfo: { ...(o.email === undefined ? {} : { email: o.email }), ...(o.country === undefined ? {} : { country: o.country }) }
})

/** A payment's `data` column as the adapters write it. */
const paymentData = (p: Pay) =>
  JSON.stringify({
    payer: p.payer,
    makeRecurrent: false,
    authorizedAmount: p.amount,
    ...(p.transactionInfo === undefined ? {} : { transactionInfo: p.transactionInfo })
  })

const insert = (shop: { partyID: string; shopID: string }) => {
  const invoice = (id: string, createdAt: number, o: { amount?: number; status?: string } = {}) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO invoices ${
        sql.insert({
          id,
          partyId: shop.partyID,
          shopId: shop.shopID,
          externalId: null,
          createdAt,
          dueDate: createdAt + 86_400_000,
          amount: o.amount ?? 1000,
          currency: "RUB",
          product: "Tea",
          status: o.status ?? "unpaid",
          invoiceTemplateId: null,
          activePaymentId: null,
          data: JSON.stringify({ metadata: { n: id } }),
          version: 1
        })
      }`).pipe(Effect.orDie)
  const payment = (p: Pay) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO payments ${
        sql.insert({
          invoiceId: p.invoiceID,
          id: p.id,
          partyId: shop.partyID,
          shopId: shop.shopID,
          externalId: null,
          createdAt: p.createdAt,
          amount: p.amount,
          currency: p.currency,
          status: p.status,
          activity: "done",
          flow: JSON.stringify({ type: p.flow, ...(p.flow === "PaymentFlowHold" ? { onHoldExpiration: "cancel" } : {}) }),
          interactionId: null,
          fee: p.fee,
          statusChangedAt: p.createdAt + 1000,
          data: paymentData(p),
          version: 1
        })
      }`).pipe(Effect.orDie)
  const refund = (r: { invoiceID: string; paymentID: string; id: string; createdAt: number; amount: number; status: string }) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`INSERT INTO refunds ${
        sql.insert({
          invoiceId: r.invoiceID,
          paymentId: r.paymentID,
          id: r.id,
          partyId: shop.partyID,
          shopId: shop.shopID,
          externalId: null,
          createdAt: r.createdAt,
          amount: r.amount,
          currency: "RUB",
          status: r.status,
          fee: 0,
          data: JSON.stringify({ reason: "r" }),
          version: 1
        })
      }`).pipe(Effect.orDie)
  return { invoice, payment, refund }
}

let shops = 0
const freshShop = () => {
  const n = ++shops
  return { partyID: `party${n}`, shopID: `shop${n}` }
}

const H = 3_600_000

/** Payment 1 of invoice `<shop>-<invoice>`, by the payer of `fingerprint`, `hour` hours after T0. */
const payerPayment = (shop: { shopID: string }, invoice: string, hour: number, fingerprint: string, status: string): Pay => ({
  invoiceID: `${shop.shopID}-${invoice}`,
  id: "1",
  createdAt: T0 + hour * H,
  amount: 100,
  currency: "RUB",
  status,
  fee: 0,
  flow: "PaymentFlowInstant",
  payer: resourcePayer(card({ system: "visa", bin: "424242", last4: "4242" }), { fingerprint })
})

const window = { from: T0, to: T0 + 86_400_000 }
const first = { limit: 1000, offset: 0, after: Option.none() }

/** A dozen payments with every searchable field varied. */
const payments = (shop: { partyID: string; shopID: string }) => {
  const rows: Array<Pay> = []
  for (let i = 0; i < 12; i++) {
    const bin = ["424242", "555555", "220220"][i % 3]!
    const last4 = ["4242", "1234", "0034"][i % 3]!
    const details = i % 4 === 3 ? { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" } : card({
      system: ["visa", "mastercard", "nspkmir"][i % 3]!,
      bin,
      last4,
      ...(i === 5 ? { tokenProvider: "googlepay" } : {})
    })
    const payer = i === 7
      ? { payerType: "CustomerPayer", customerID: "cust-7", paymentToolDetails: details }
      : resourcePayer(details, {
        ...(i % 5 === 0 ? {} : { email: i % 2 === 0 ? `Payer${i % 3}@Example.com` : `payer${i % 3}@example.com` }),
        ip: `10.0.0.${i % 4}`,
        fingerprint: `fp-${i % 6}`,
        ...(i % 3 === 0 ? {} : { country: i % 3 === 1 ? "RUS" : "KAZ" })
      })
    rows.push({
      invoiceID: `${shop.shopID}inv${String(i % 9).padStart(2, "0")}`,
      id: i < 9 ? "1" : "2",
      createdAt: T0 + Math.floor(i / 2) * MIN + (i >= 9 ? 30 * MIN : 0),
      amount: 1000 * (i + 1),
      currency: i === 11 ? "USD" : "RUB",
      status: ["captured", "failed", "refunded", "pending", "captured", "cancelled"][i % 6]!,
      fee: 10 * (i + 1),
      flow: i % 2 === 0 ? "PaymentFlowInstant" : "PaymentFlowHold",
      payer,
      ...(i % 6 === 1 || i % 6 === 3
        ? {}
        : { transactionInfo: { rrn: `RRN${String(i).padStart(9, "0")}`, approvalCode: `A${i}` } })
    })
  }
  return rows
}

const seed = (shop: { partyID: string; shopID: string }) =>
  Effect.gen(function*() {
    const put = insert(shop)
    const rows = payments(shop)
    const invoiceIDs = [...new Set(rows.map((p) => p.invoiceID))]
    for (const id of invoiceIDs) {
      const n = Number(id.slice(-2))
      yield* put.invoice(id, T0 + Math.floor(n / 2) * MIN, { amount: 1000 * (n + 1), status: n % 2 === 0 ? "paid" : "unpaid" })
    }
    for (const p of rows) yield* put.payment(p)
    return rows
  })

const key = (p: { invoiceID: string; id: string }) => `${p.invoiceID}/${p.id}`
const byOrder = (a: Pay, b: Pay) =>
  b.createdAt - a.createdAt || (a.invoiceID < b.invoiceID ? 1 : a.invoiceID > b.invoiceID ? -1 : a.id < b.id ? 1 : -1)

const details = (p: Pay) => p.payer.paymentToolDetails ?? {}

/** A text of an object independent of its key order. */
const canon = (o: object) => JSON.stringify(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)))
const sorted = <A extends object>(xs: ReadonlyArray<A>) => [...xs].sort((a, b) => (canon(a) < canon(b) ? -1 : 1))

for (const dialect of Dialects.dialects()) {
  layer(storeLayer(dialect), { timeout: "60 seconds" })(`Search store [${dialect}]`, (it) => {
    it.effect("the search columns follow the JSON a payment is written and rewritten with", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const shop = freshShop()
        const [p] = yield* seed(shop)
        const read = sql`SELECT search_flow, search_method, search_provider, search_token_provider, search_payment_system,
            search_email, search_country, search_ip, search_fingerprint, search_customer, search_rrn, search_approval_code,
            search_bin, search_last4 FROM payments WHERE invoice_id = ${p!.invoiceID} AND id = ${p!.id}`.pipe(Effect.orDie)
        const before = (yield* read)[0] as any
        assert.deepStrictEqual({ ...before }, {
          searchFlow: "PaymentFlowInstant",
          searchMethod: "PaymentToolDetailsBankCard",
          searchProvider: null,
          searchTokenProvider: null,
          searchPaymentSystem: "visa",
          searchEmail: null,
          searchCountry: null,
          searchIp: "10.0.0.0",
          searchFingerprint: "fp-0",
          searchCustomer: null,
          searchRrn: "RRN000000000",
          searchApprovalCode: "A0",
          searchBin: "424242",
          searchLast4: "4242"
        })
        // the way SqlPayments.update rewrites a payment
        const data = JSON.stringify({
          payer: resourcePayer(card({ system: "MasterCard", bin: "555555", last4: "9999", tokenProvider: "ApplePay" }), {
            email: "New@Example.com",
            fingerprint: "fp-new",
            country: "ARM"
          }),
          transactionInfo: { rrn: "NEWRRN000001", approvalCode: "OK1" }
        })
        yield* sql`UPDATE payments SET status = 'captured', data = ${data} WHERE invoice_id = ${p!.invoiceID} AND id = ${p!.id}`
          .pipe(Effect.orDie)
        const after = (yield* read)[0] as any
        assert.strictEqual(after.searchEmail, "new@example.com")
        assert.strictEqual(after.searchPaymentSystem, "mastercard")
        assert.strictEqual(after.searchTokenProvider, "applepay")
        assert.strictEqual(after.searchCountry, "ARM")
        assert.strictEqual(after.searchFingerprint, "fp-new")
        assert.strictEqual(after.searchIp, null)
        assert.strictEqual(after.searchRrn, "NEWRRN000001")
        assert.strictEqual(after.searchBin, "555555")
        assert.strictEqual(after.searchLast4, "9999")
      }))

    it.effect("payments: every condition, in (created_at, invoice, id) descending order", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const shop = freshShop()
        const rows = yield* seed(shop)
        const check = (conditions: PaymentConditions, expected: (p: Pay) => boolean, label: string) =>
          Effect.gen(function*() {
            const query: Query<PaymentConditions> = { scope: shop, window, conditions }
            const found = yield* repo.payments(query, first)
            const want = rows.filter(expected).sort(byOrder).map(key)
            assert.deepStrictEqual(found.map(key), want, label)
            assert.strictEqual(yield* repo.countPayments(query), want.length, `${label}: count`)
          })
        yield* check({}, () => true, "none")
        yield* check({ status: "captured" }, (p) => p.status === "captured", "status")
        yield* check({ flow: "PaymentFlowHold" }, (p) => p.flow === "PaymentFlowHold", "flow")
        yield* check({ method: "PaymentToolDetailsBankCard" }, (p) => details(p).detailsType === "PaymentToolDetailsBankCard", "method")
        yield* check({ terminalProvider: "euroset" }, (p) => details(p).provider === "euroset", "terminal provider")
        yield* check({ invoiceID: rows[4]!.invoiceID }, (p) => p.invoiceID === rows[4]!.invoiceID, "invoice")
        yield* check({ paymentID: "2" }, (p) => p.id === "2", "payment id")
        yield* check({ email: "payer1@example.com" }, (p) => p.payer.contactInfo?.email?.toLowerCase() === "payer1@example.com", "e-mail")
        yield* check({ ip: "10.0.0.2" }, (p) => p.payer.clientInfo?.ip === "10.0.0.2", "ip")
        yield* check({ fingerprint: "fp-1" }, (p) => p.payer.clientInfo?.fingerprint === "fp-1", "fingerprint")
        yield* check({ customerID: "cust-7" }, (p) => p.payer.customerID === "cust-7", "customer")
        yield* check({ tokenProvider: "googlepay" }, (p) => details(p).tokenProvider === "googlepay", "token provider")
        yield* check({ paymentSystem: "nspkmir" }, (p) => details(p).paymentSystem === "nspkmir", "payment system")
        yield* check({ bin: ["555555"] }, (p) => details(p).bin === "555555", "bin")
        yield* check({ bin: ["555555", "424242"] }, () => false, "two bins")
        yield* check({ lastDigits: ["34"] }, (p) => (details(p).last4 ?? "").endsWith("34"), "last digits")
        yield* check({ lastDigits: ["0034"] }, (p) => details(p).last4 === "0034", "last 4")
        yield* check({ rrn: "RRN000000004" }, (p) => p.transactionInfo?.rrn === "RRN000000004", "rrn")
        yield* check({ approvalCode: "A8" }, (p) => p.transactionInfo?.approvalCode === "A8", "approval code")
        yield* check({ amount: 3000 }, (p) => p.amount === 3000, "amount")
        yield* check(
          { status: "captured", method: "PaymentToolDetailsBankCard", ip: "10.0.0.0" },
          (p) => p.status === "captured" && details(p).detailsType === "PaymentToolDetailsBankCard" && p.payer.clientInfo?.ip === "10.0.0.0",
          "several"
        )
        // the window: [from, to)
        const inWindow = yield* repo.payments({ scope: shop, window: { from: T0 + MIN, to: T0 + 3 * MIN }, conditions: {} }, first)
        assert.deepStrictEqual(
          inWindow.map(key),
          rows.filter((p) => p.createdAt >= T0 + MIN && p.createdAt < T0 + 3 * MIN).sort(byOrder).map(key)
        )
        // another shop sees nothing
        assert.strictEqual((yield* repo.payments({ scope: { ...shop, shopID: "other" }, window, conditions: {} }, first)).length, 0)
        assert.strictEqual((yield* repo.payments({ scope: { ...shop, partyID: "other" }, window, conditions: {} }, first)).length, 0)
      }))

    it.effect("keyset and offset pages cover the rows once, ties broken by ids", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const shop = freshShop()
        const rows = (yield* seed(shop)).sort(byOrder)
        const query: Query<PaymentConditions> = { scope: shop, window, conditions: {} }
        for (const limit of [1, 2, 5]) {
          const walked: Array<string> = []
          let after = Option.none<{ createdAt: number; ids: ReadonlyArray<string> }>()
          for (let i = 0; i < 20; i++) {
            const page = yield* repo.payments(query, { limit, offset: 0, after })
            walked.push(...page.map(key))
            if (page.length < limit) break
            const last = page[page.length - 1]!
            after = Option.some({ createdAt: last.createdAt.getTime(), ids: [last.invoiceID, last.id] })
          }
          assert.deepStrictEqual(walked, rows.map(key), `keyset, limit ${limit}`)
          const byOffset: Array<string> = []
          for (let offset = 0; offset < rows.length; offset += limit) {
            byOffset.push(...(yield* repo.payments(query, { limit, offset, after: Option.none() })).map(key))
          }
          assert.deepStrictEqual(byOffset, rows.map(key), `offset, limit ${limit}`)
        }
      }))

    it.effect("invoices by their own fields and by their payments'; refunds by theirs and their payment's", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const shop = freshShop()
        const rows = yield* seed(shop)
        const put = insert(shop)
        yield* put.invoice(`${shop.shopID}inv99`, T0 + 100 * MIN, { amount: 5, status: "cancelled" })
        const all = yield* repo.invoices({ scope: shop, window, conditions: {} }, first)
        assert.strictEqual(all.length, 10)
        assert.strictEqual(all[0]!.id, `${shop.shopID}inv99`)
        assert.deepStrictEqual(all[0]!.metadata, { n: `${shop.shopID}inv99` })
        assert.isTrue(all.every((i, n) => n === 0 || all[n - 1]!.createdAt.getTime() >= i.createdAt.getTime()))
        const ids = (conditions: any) =>
          Effect.map(repo.invoices({ scope: shop, window, conditions }, first), (found) => found.map((i) => i.id).sort())
        const invoicesWith = (f: (p: Pay) => boolean) => [...new Set(rows.filter(f).map((p) => p.invoiceID))].sort()
        assert.deepStrictEqual(yield* ids({ status: "cancelled" }), [`${shop.shopID}inv99`])
        assert.deepStrictEqual(yield* ids({ amount: 3000 }), [`${shop.shopID}inv02`])
        assert.deepStrictEqual(yield* ids({ id: `${shop.shopID}inv03` }), [`${shop.shopID}inv03`])
        assert.deepStrictEqual(yield* ids({ payment: { status: "failed" } }), invoicesWith((p) => p.status === "failed"))
        assert.deepStrictEqual(
          yield* ids({ payment: { status: "captured", paymentSystem: "visa" } }),
          invoicesWith((p) => p.status === "captured" && details(p).paymentSystem === "visa")
        )
        assert.deepStrictEqual(yield* ids({ status: "paid", payment: { amount: 1000 } }), [`${shop.shopID}inv00`])
        assert.strictEqual(yield* repo.countInvoices({ scope: shop, window, conditions: { payment: { paymentID: "2" } } }), 3)

        const p4 = rows[4]!
        yield* put.refund({ invoiceID: p4.invoiceID, paymentID: p4.id, id: "1", createdAt: T0 + 50 * MIN, amount: 100, status: "succeeded" })
        yield* put.refund({ invoiceID: p4.invoiceID, paymentID: p4.id, id: "2", createdAt: T0 + 50 * MIN, amount: 200, status: "failed" })
        const p0 = rows[0]!
        yield* put.refund({ invoiceID: p0.invoiceID, paymentID: p0.id, id: "1", createdAt: T0 + 60 * MIN, amount: 300, status: "pending" })
        const refunds = (conditions: any) =>
          Effect.map(repo.refunds({ scope: shop, window, conditions }, first), (found) =>
            found.map((r) => `${r.invoiceID}/${r.paymentID}/${r.id}:${r.amount}`))
        assert.deepStrictEqual(yield* refunds({}), [
          `${p0.invoiceID}/1/1:300`,
          `${p4.invoiceID}/1/2:200`,
          `${p4.invoiceID}/1/1:100`
        ])
        assert.deepStrictEqual(yield* refunds({ status: "failed" }), [`${p4.invoiceID}/1/2:200`])
        assert.deepStrictEqual(yield* refunds({ invoiceID: p4.invoiceID, id: "1" }), [`${p4.invoiceID}/1/1:100`])
        assert.deepStrictEqual(yield* refunds({ paymentID: "2" }), [])
        assert.deepStrictEqual(yield* refunds({ payment: { rrn: "RRN000000000" } }), [`${p0.invoiceID}/1/1:300`])
        assert.deepStrictEqual(yield* refunds({ payment: { approvalCode: "A4" } }), [`${p4.invoiceID}/1/2:200`, `${p4.invoiceID}/1/1:100`])
        assert.strictEqual(yield* repo.countRefunds({ scope: shop, window, conditions: {} }), 3)
        const page = yield* repo.refunds({ scope: shop, window, conditions: {} }, {
          limit: 5,
          offset: 0,
          after: Option.some({ createdAt: T0 + 50 * MIN, ids: [p4.invoiceID, "1", "2"] })
        })
        assert.deepStrictEqual(page.map((r) => r.id), ["1"])
      }))

    it.effect("statistics: groups of segments and keys, successful payments, distinct payers", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const shop = freshShop()
        const rows = yield* seed(shop)
        const ok = (p: Pay) => p.status === "captured" || p.status === "refunded"
        const stats = (by: any, successfulOnly: boolean, bankCardOnly: boolean, bucketMs = 2 * MIN) =>
          Effect.map(
            repo.paymentStats({ scope: shop, window, bucketMs, by, successfulOnly, bankCardOnly }),
            sorted
          )
        const expected = (
          f: (p: Pay) => boolean,
          keyOf: (p: Pay) => Partial<StatsRow>,
          bucketMs = 2 * MIN
        ) => {
          const groups = new Map<string, StatsRow>()
          for (const p of rows.filter(f)) {
            const k = { segment: Math.floor((p.createdAt - T0) / bucketMs), ...keyOf(p) }
            const id = JSON.stringify(k)
            const g = groups.get(id) ?? { ...k, total: 0, successful: 0, revenue: 0, fee: 0 }
            groups.set(id, {
              ...g,
              total: g.total + 1,
              successful: g.successful + (ok(p) ? 1 : 0),
              revenue: g.revenue + (ok(p) ? p.amount : 0),
              fee: g.fee + (ok(p) ? p.fee : 0)
            })
          }
          return sorted([...groups.values()])
        }
        const conversion = yield* stats([], false, false)
        assert.deepStrictEqual(conversion, expected(() => true, () => ({})))
        assert.deepStrictEqual(yield* stats([], false, false, 86_400_000), expected(() => true, () => ({}), 86_400_000))
        assert.deepStrictEqual(yield* stats(["currency"], true, false), expected(ok, (p) => ({ currency: p.currency })))
        assert.deepStrictEqual(
          yield* stats(["country", "currency"], true, false),
          expected(ok, (p) => ({ country: p.payer.contactInfo?.country ?? null, currency: p.currency }))
        )
        assert.deepStrictEqual(
          yield* stats(["paymentSystem", "currency"], true, true),
          expected(
            (p) => ok(p) && details(p).detailsType === "PaymentToolDetailsBankCard",
            (p) => ({ paymentSystem: details(p).paymentSystem, currency: p.currency })
          )
        )
        const payers = new Set(
          rows.filter(ok).map((p) => p.payer.clientInfo?.fingerprint ?? p.payer.customerID ?? p.payer.contactInfo?.email?.toLowerCase())
            .filter((x) => x !== undefined)
        )
        assert.strictEqual(yield* repo.uniquePayers(shop, window), payers.size)
        assert.strictEqual(yield* repo.uniquePayers(shop, { from: T0 + 500 * MIN, to: T0 + 600 * MIN }), 0)
      }))

    it.effect("unique payers: by their first and last successes, their longest gaps, and a look inside the windows they surround", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const shop = freshShop()
        const put = insert(shop)
        const pay = (n: number, hour: number, fingerprint: string, status = "captured") =>
          payerPayment(shop, `u${n}`, hour, fingerprint, status)
        // "a" surrounds 4h–6h and pays inside it; "b" surrounds 6h–9h without paying inside; "c" failed
        for (
          const p of [pay(1, 0, "a"), pay(2, 5, "a"), pay(3, 10, "a"), pay(4, 1, "b"), pay(5, 10, "b"), pay(6, 7, "c", "failed")]
        ) yield* put.payment(p)
        // the default counts these few payments directly; the others read the payers' rows
        const repos = [
          yield* SearchRepository,
          yield* SqlSearch.make({ payers: { scanUpTo: -1, probes: 0 } }),
          yield* SqlSearch.make({ payers: { scanUpTo: -1, probes: 1 } })
        ]
        const check = (fromHour: number, toHour: number, n: number) =>
          Effect.forEach(repos, (repo, i) =>
            Effect.map(
              repo.uniquePayers(shop, { from: T0 + fromHour * H, to: T0 + toHour * H }),
              (found) => assert.strictEqual(found, n, `repository ${i}, ${fromHour}h–${toHour}h`)
            ))
        yield* check(4, 6, 1) // a by a look inside; b surrounds it without a success there
        yield* check(6, 9, 0) // both surround it, neither paid inside
        yield* check(0, 1, 1) // a's first success
        yield* check(0.5, 6, 2) // b's first success, and a surrounding it with a success inside
        yield* check(2, 8, 1) // a's successes are never 6 h apart; b's are, and none falls inside
        yield* check(2, 10, 1) // b's gap (9 h) is just longer than the window (8 h)
        yield* check(9, 11, 2) // both last successes
        yield* check(7, 8, 0) // c never succeeded
        // a chargeback: a's payment inside 4h–6h stops being successful, then a's first one too
        yield* sql`UPDATE payments SET status = 'charged_back' WHERE invoice_id = ${`${shop.shopID}-u2`}`.pipe(Effect.orDie)
        yield* check(4, 6, 0)
        yield* sql`UPDATE payments SET status = 'cancelled' WHERE invoice_id = ${`${shop.shopID}-u1`}`.pipe(Effect.orDie)
        yield* check(0, 2, 1) // only b now
        const ranges = yield* sql<{ payer: string; f: unknown; l: unknown; g: unknown }>`SELECT payer, first_at AS f, last_at AS l, gap AS g
          FROM search_payers WHERE party_id = ${shop.partyID} AND shop_id = ${shop.shopID} ORDER BY payer`.pipe(Effect.orDie)
        assert.deepStrictEqual(
          ranges.map((r) => [r.payer, Number(r.f) - T0, Number(r.l) - T0, Number(r.g)]),
          [["a", 10 * H, 10 * H, 0], ["b", 1 * H, 10 * H, 9 * H]]
        )
        yield* sql`DELETE FROM payments WHERE invoice_id = ${`${shop.shopID}-u3`}`.pipe(Effect.orDie)
        yield* check(0, 24, 1)
      }))

    it.effect("one payer's payments succeed in transactions open at once: its row is taken as each commits (PostgreSQL; SQLite runs one writer at a time)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const shop = freshShop()
        const put = insert(shop)
        const pay = (n: number, hour: number) => payerPayment(shop, `d${n}`, hour, "d", "processed")
        for (const p of [pay(1, 1), pay(2, 3), pay(3, 5)]) yield* put.payment(p)
        const capture = (n: number) => sql`UPDATE payments SET status = 'captured' WHERE invoice_id = ${`${shop.shopID}-d${n}`}`
        const inside = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const open = yield* Effect.fork(sql.withTransaction(Effect.gen(function*() {
          yield* capture(1)
          yield* Deferred.succeed(inside, undefined)
          yield* Deferred.await(release)
        })).pipe(Effect.orDie))
        if (dialect === "pg") {
          yield* Deferred.await(inside)
          // (when it waits for the open transaction, this waits for ever)
          yield* sql.withTransaction(capture(3)).pipe(Effect.orDie)
          // one that rolls back leaves the payer's row as it was
          yield* sql.withTransaction(Effect.zipRight(capture(2), Effect.fail("abort" as const))).pipe(Effect.flip, Effect.orDie)
        }
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(open)
        if (dialect !== "pg") yield* sql.withTransaction(capture(3)).pipe(Effect.orDie)
        const ranges = yield* sql<{ f: unknown; l: unknown; g: unknown }>`SELECT first_at AS f, last_at AS l, gap AS g
          FROM search_payers WHERE party_id = ${shop.partyID} AND shop_id = ${shop.shopID} AND payer = 'd'`.pipe(Effect.orDie)
        assert.deepStrictEqual(ranges.map((r) => [Number(r.f) - T0, Number(r.l) - T0, Number(r.g)]), [[1 * H, 5 * H, 4 * H]])
        assert.strictEqual(yield* (yield* SearchRepository).uniquePayers(shop, { from: T0 + 2 * H, to: T0 + 4 * H }), 0)
        assert.strictEqual(yield* (yield* SearchRepository).uniquePayers(shop, { from: T0, to: T0 + 2 * H }), 1)
      }))

    it.effect("deltas left waiting (by a process that stopped before it folded them) are folded when a compactor starts", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const shop = freshShop()
        // written behind the driver's back: no append wakes the suite's compactor
        yield* insert(shop).invoice(`${shop.shopID}inv1`, T0, { amount: 700, status: "paid" }).pipe(Effect.orDie)
        const deltas = Effect.map(sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM search_deltas`.pipe(Effect.orDie), (rows) => Number(rows[0]!.n))
        assert.isAbove(yield* deltas, 0)
        const left = yield* Effect.scoped(Effect.gen(function*() {
          yield* Layer.build(SqlSearch.layer({ secret: "a search secret of the tests" }))
          let left = -1
          for (let waited = 0; waited < 10_000 && left !== 0; waited += 100) {
            yield* TestServices.provideLive(Effect.sleep("100 millis"))
            left = yield* deltas
          }
          return left
        }))
        assert.strictEqual(left, 0)
      }))

    it.effect("continuation codes: HMAC-SHA256 under the layer's secret, one secret kept per data dir", () =>
      Effect.gen(function*() {
        const tokens = yield* SearchTokens
        const code = tokens.sign("position")
        assert.match(code, /^[A-Za-z0-9_-]{43}$/)
        assert.isTrue(tokens.verify("position", code))
        assert.isFalse(tokens.verify("position2", code))
        assert.isFalse(tokens.verify("position", code.slice(1)))
        assert.isFalse(SqlSearch.tokens("another secret of 16+ bytes").verify("position", code))
        assert.throws(() => SqlSearch.tokens("short"))

        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-search-"))
        try {
          const a = SqlSearch.loadSecret(dir)
          const b = SqlSearch.loadSecret(dir)
          assert.strictEqual(a.length, 32)
          assert.deepStrictEqual(a, b)
          assert.strictEqual(fs.statSync(path.join(dir, "search.key")).mode & 0o777, 0o600)
          assert.deepStrictEqual(fs.readdirSync(dir), ["search.key"])
        } finally {
          fs.rmSync(dir, { recursive: true, force: true })
        }
      }))
    it.effect("property: rollups, their deltas and the payers' ranges stay exact through inserts, updates, deletes and compactions", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const sql = yield* SqlClient.SqlClient
        const runtime = yield* Effect.runtime<SqlClient.SqlClient | SearchRepository>()
        const lookingUp = yield* SqlSearch.make({ payers: { scanUpTo: -1, probes: 1_000_000 } })
        const counting = yield* SqlSearch.make({ payers: { scanUpTo: -1, probes: 0 } })
        const row = FastCheck.record({
          hour: FastCheck.integer({ min: 0, max: 71 }),
          minute: FastCheck.integer({ min: 0, max: 59 }),
          status: FastCheck.constantFrom("pending", "captured", "refunded", "failed"),
          amount: FastCheck.integer({ min: 1, max: 10_000 }),
          currency: FastCheck.constantFrom("RUB", "USD"),
          country: FastCheck.constantFrom("RUS", "KAZ", undefined),
          system: FastCheck.constantFrom("visa", "mastercard", undefined),
          payer: FastCheck.constantFrom("f1", "f2", "f3")
        })
        const change = FastCheck.record({
          index: FastCheck.nat(),
          status: FastCheck.constantFrom("pending", "captured", "refunded", "failed", "cancelled"),
          amount: FastCheck.integer({ min: 1, max: 10_000 }),
          payer: FastCheck.constantFrom(undefined, "f1", "f4"),
          remove: FastCheck.boolean(),
          compactBefore: FastCheck.boolean()
        })
        const probe = FastCheck.record({
          from: FastCheck.oneof(
            FastCheck.integer({ min: -5 * H, max: 40 * H }),
            FastCheck.constantFrom(0, 15 * 60_000, H, 2 * H + 30 * 60_000, -86_400_000)
          ),
          length: FastCheck.oneof(FastCheck.integer({ min: 1, max: 60 * H }), FastCheck.constantFrom(48 * H, 72 * H)),
          bucket: FastCheck.constantFrom(H, 2 * H, 3 * H, 86_400_000, 45 * 60_000, 5 * H + 7),
          status: FastCheck.constantFrom(undefined, "captured", "pending")
        })
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(
              FastCheck.array(row, { minLength: 1, maxLength: 25 }),
              FastCheck.array(change, { maxLength: 10 }),
              FastCheck.array(probe, { minLength: 1, maxLength: 4 }),
              (rows, changes, probes) =>
                Runtime.runPromise(runtime)(Effect.gen(function*() {
                  const shop = freshShop()
                  const model = new Map<string, Pay>()
                  const put = insert(shop)
                  for (const [n, r] of rows.entries()) {
                    const p: Pay = {
                      invoiceID: `${shop.shopID}i${n}`,
                      id: "1",
                      createdAt: T0 + r.hour * H + r.minute * 60_000,
                      amount: r.amount,
                      currency: r.currency,
                      status: r.status,
                      fee: Math.floor(r.amount / 10),
                      flow: "PaymentFlowInstant",
                      payer: resourcePayer(
                        r.system === undefined
                          ? { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" }
                          : card({ system: r.system, bin: "424242", last4: "4242" }),
                        { fingerprint: r.payer, ...(r.country === undefined ? {} : { country: r.country }) }
                      )
                    }
                    model.set(p.invoiceID, p)
                    yield* put.payment(p)
                  }
                  for (const c of changes) {
                    if (c.compactBefore) yield* SqlSearch.compact.pipe(Effect.orDie)
                    const keys = [...model.keys()]
                    if (keys.length === 0) break
                    const key = keys[c.index % keys.length]!
                    if (c.remove) {
                      yield* sql`DELETE FROM payments WHERE invoice_id = ${key}`.pipe(Effect.orDie)
                      model.delete(key)
                    } else {
                      const before = model.get(key)!
                      const after: Pay = {
                        ...before,
                        status: c.status,
                        amount: c.amount,
                        fee: c.amount % 97,
                        payer: c.payer === undefined ? before.payer : { ...before.payer, clientInfo: { fingerprint: c.payer } }
                      }
                      yield* sql`UPDATE payments SET status = ${after.status}, amount = ${after.amount}, fee = ${after.fee},
                        data = ${paymentData(after)} WHERE invoice_id = ${key}`.pipe(Effect.orDie)
                      model.set(key, after)
                    }
                  }
                  const all = [...model.values()]
                  const ok = (p: Pay) => p.status === "captured" || p.status === "refunded"
                  for (const pr of probes) {
                    const w = { from: T0 + pr.from, to: T0 + pr.from + pr.length }
                    const inWindow = all.filter((p) => p.createdAt >= w.from && p.createdAt < w.to)
                    const expect = (f: (p: Pay) => boolean, keyOf: (p: Pay) => Partial<StatsRow>) => {
                      const groups = new Map<string, StatsRow>()
                      for (const p of inWindow.filter(f)) {
                        const k = { segment: Math.floor((p.createdAt - w.from) / pr.bucket), ...keyOf(p) }
                        const g = groups.get(canon(k)) ?? { ...k, total: 0, successful: 0, revenue: 0, fee: 0 }
                        groups.set(canon(k), {
                          ...g,
                          total: g.total + 1,
                          successful: g.successful + (ok(p) ? 1 : 0),
                          revenue: g.revenue + (ok(p) ? p.amount : 0),
                          fee: g.fee + (ok(p) ? p.fee : 0)
                        })
                      }
                      return sorted([...groups.values()])
                    }
                    const stats = (by: any, successfulOnly: boolean, bankCardOnly: boolean) =>
                      Effect.map(
                        repo.paymentStats({ scope: shop, window: w, bucketMs: pr.bucket, by, successfulOnly, bankCardOnly }),
                        sorted
                      )
                    const label = JSON.stringify(pr)
                    assert.deepStrictEqual(yield* stats([], false, false), expect(() => true, () => ({})), `conversion ${label}`)
                    assert.deepStrictEqual(yield* stats(["currency"], true, false), expect(ok, (p) => ({ currency: p.currency })), `revenue ${label}`)
                    assert.deepStrictEqual(
                      yield* stats(["country", "currency"], true, false),
                      expect(ok, (p) => ({ country: p.payer.contactInfo?.country ?? null, currency: p.currency })),
                      `geo ${label}`
                    )
                    assert.deepStrictEqual(
                      yield* stats(["paymentSystem", "currency"], true, true),
                      expect(
                        (p) => ok(p) && details(p).detailsType === "PaymentToolDetailsBankCard",
                        (p) => ({ paymentSystem: details(p).paymentSystem, currency: p.currency })
                      ),
                      `method ${label}`
                    )
                    // every way of counting payers: by their ranges and lookups, and by the window's payments
                    const payers = new Set(inWindow.filter(ok).map((p) => p.payer.clientInfo.fingerprint)).size
                    for (const [name, r] of [["default", repo], ["looked up", lookingUp], ["counted", counting]] as const) {
                      assert.strictEqual(yield* r.uniquePayers(shop, w), payers, `payers (${name}) ${label}`)
                    }
                    assert.strictEqual(
                      yield* repo.countPayments({ scope: shop, window: w, conditions: pr.status === undefined ? {} : { status: pr.status } }),
                      inWindow.filter((p) => pr.status === undefined || p.status === pr.status).length,
                      `count ${label}`
                    )
                  }
                }))
            ),
            { numRuns: 20, seed: 20251123 }
          )
        )
      }), { timeout: 120_000 })

    it.effect("statistics over a year of scattered blocks (a window from any millisecond) equal the rows' own", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const shop = freshShop()
        const put = insert(shop)
        const rows: Array<Pay> = []
        for (let n = 0; n < 90; n++) {
          const p: Pay = {
            invoiceID: `${shop.shopID}y${n}`,
            id: "1",
            createdAt: T0 + ((n * 7919) % 360) * 86_400_000 + ((n * 104_729) % 86_400_000),
            amount: 100 + n,
            currency: n % 5 === 0 ? "USD" : "RUB",
            status: ["captured", "failed", "refunded", "pending"][n % 4]!,
            fee: n % 7,
            flow: "PaymentFlowInstant",
            payer: resourcePayer(card({ system: ["visa", "mastercard"][n % 2]!, bin: "424242", last4: "4242" }), {
              fingerprint: `f${n % 9}`,
              ...(n % 3 === 0 ? {} : { country: n % 3 === 1 ? "RUS" : "KAZ" })
            })
          }
          rows.push(p)
          yield* put.payment(p)
        }
        yield* SqlSearch.compact.pipe(Effect.orDie)
        const ok = (p: Pay) => p.status === "captured" || p.status === "refunded"
        for (const [from, bucket] of [[T0 - 1_234_567, 86_400_000], [T0 - 1_234_567, 36 * 3_600_000], [T0 + 17 * 60_000, 45 * 60_000], [T0 + 30 * 60_000, 3_600_000]] as const) {
          const w = { from, to: from + 366 * 86_400_000 }
          const expect = (f: (p: Pay) => boolean, keyOf: (p: Pay) => Partial<StatsRow>) => {
            const groups = new Map<string, StatsRow>()
            for (const p of rows.filter((p) => p.createdAt >= w.from && p.createdAt < w.to && f(p))) {
              const k = { segment: Math.floor((p.createdAt - w.from) / bucket), ...keyOf(p) }
              const g = groups.get(canon(k)) ?? { ...k, total: 0, successful: 0, revenue: 0, fee: 0 }
              groups.set(canon(k), {
                ...g,
                total: g.total + 1,
                successful: g.successful + (ok(p) ? 1 : 0),
                revenue: g.revenue + (ok(p) ? p.amount : 0),
                fee: g.fee + (ok(p) ? p.fee : 0)
              })
            }
            return sorted([...groups.values()])
          }
          const stats = (by: any, successfulOnly: boolean, bankCardOnly: boolean) =>
            Effect.map(repo.paymentStats({ scope: shop, window: w, bucketMs: bucket, by, successfulOnly, bankCardOnly }), sorted)
          assert.deepStrictEqual(yield* stats([], false, false), expect(() => true, () => ({})))
          assert.deepStrictEqual(yield* stats(["currency"], true, false), expect(ok, (p) => ({ currency: p.currency })))
          assert.deepStrictEqual(
            yield* stats(["country", "currency"], true, false),
            expect(ok, (p) => ({ country: p.payer.contactInfo?.country ?? null, currency: p.currency }))
          )
          assert.deepStrictEqual(
            yield* stats(["paymentSystem", "currency"], true, true),
            expect(ok, (p) => ({ paymentSystem: details(p).paymentSystem, currency: p.currency }))
          )
        }
      }), { timeout: 120_000 })

    it.effect("deep offsets seek through the hourly counts and land on the same rows as skipping them", () =>
      Effect.gen(function*() {
        const repo = yield* SearchRepository
        const sql = yield* SqlClient.SqlClient
        const shop = freshShop()
        const statuses = ["captured", "failed", "pending"]
        const rows = Array.from({ length: 2600 }, (_, n) => ({
          invoiceId: `${shop.shopID}d${String(n).padStart(5, "0")}`,
          id: "1",
          partyId: shop.partyID,
          shopId: shop.shopID,
          externalId: null,
          createdAt: T0 + Math.floor(n / 20) * H + (n % 7) * 60_000,
          amount: 100 + n,
          currency: "RUB",
          status: statuses[n % 3]!,
          activity: "done",
          flow: JSON.stringify({ type: "PaymentFlowInstant" }),
          interactionId: null,
          fee: 1,
          statusChangedAt: T0,
          data: JSON.stringify({ payer: resourcePayer(card({ system: "visa", bin: "424242", last4: "4242" }), { fingerprint: "f" }) }),
          version: 1
        }))
        for (let i = 0; i < rows.length; i += 500) {
          yield* sql`INSERT INTO payments ${sql.insert(rows.slice(i, i + 500))}`.pipe(Effect.orDie)
        }
        yield* SqlSearch.compact.pipe(Effect.orDie)
        // half the hours folded, the other half still deltas
        yield* sql`UPDATE payments SET status = 'refunded' WHERE invoice_id IN (${sql.literal(
          rows.filter((_, n) => n % 10 === 1).map((r) => `'${r.invoiceId}'`).join(", ")
        )})`.pipe(Effect.orDie)
        const model = rows.map((r, n) => ({ key: r.invoiceId, createdAt: r.createdAt, status: n % 10 === 1 ? "refunded" : r.status }))
          .sort((a, b) => b.createdAt - a.createdAt || (a.key < b.key ? 1 : -1))
        for (const w of [{ from: T0, to: T0 + 200 * H }, { from: T0 + 30 * 60_000 + 1, to: T0 + 120 * H + 17 }]) {
          for (const status of [undefined, "captured", "refunded"]) {
            const expected = model.filter((r) => r.createdAt >= w.from && r.createdAt < w.to && (status === undefined || r.status === status))
            const query: Query<PaymentConditions> = { scope: shop, window: w, conditions: status === undefined ? {} : { status } }
            assert.strictEqual(yield* repo.countPayments(query), expected.length)
            for (const offset of [0, 5, 2000, 2001, 2345, expected.length - 3, expected.length + 10]) {
              const page = yield* repo.payments(query, { limit: 7, offset, after: Option.none() })
              assert.deepStrictEqual(
                page.map((p) => p.invoiceID),
                expected.slice(offset, offset + 7).map((r) => r.key),
                `${JSON.stringify(w)} ${status} offset ${offset}`
              )
            }
          }
        }
      }), { timeout: 120_000 })
  })
}
