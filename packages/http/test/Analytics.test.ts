import * as SqlClient from "@effect/sql/SqlClient"
import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

/**
 * The older revision's payment statistics over HTTP (`/v1` and the same routes under `/v2`),
 * exact on a small fixture written straight into storage.
 */

const H = 3_600_000
const DAY = 24 * H
const at = (month: number, day: number, hours = 0, minutes = 0, ms = 0) => Date.UTC(2025, month - 1, day, hours, minutes, 0, ms)

interface Fixture {
  readonly id: string
  readonly createdAt: number
  readonly amount: number
  readonly fee: number
  readonly status: string
  readonly currency?: string
  readonly system?: string
  readonly terminal?: boolean
  readonly country?: string
  readonly fingerprint?: string
  readonly customerID?: string
}

const fixtures: ReadonlyArray<Fixture> = [
  { id: "p1", createdAt: at(1, 1, 1), amount: 1000, fee: 20, status: "captured", system: "visa", country: "RUS", fingerprint: "fp-a" },
  { id: "p2", createdAt: at(1, 1, 2), amount: 2000, fee: 40, status: "failed", system: "visa", country: "RUS", fingerprint: "fp-b" },
  { id: "p3", createdAt: at(1, 1, 23, 59), amount: 3000, fee: 60, status: "refunded", system: "mastercard", country: "KAZ", fingerprint: "fp-a" },
  { id: "p4", createdAt: at(1, 2), amount: 500, fee: 10, status: "captured", currency: "USD", system: "visa", fingerprint: "fp-c" },
  { id: "p5", createdAt: at(1, 15, 12), amount: 700, fee: 0, status: "pending", system: "nspkmir", country: "RUS", fingerprint: "fp-d" },
  { id: "p6", createdAt: at(2, 10), amount: 1500, fee: 30, status: "captured", terminal: true, country: "RUS", fingerprint: "fp-e" },
  { id: "p7", createdAt: at(3, 31, 23, 59) + 59_999, amount: 900, fee: 18, status: "captured", system: "visa", customerID: "cust-1" },
  { id: "p8", createdAt: at(4, 1), amount: 10_000, fee: 200, status: "captured", system: "visa", country: "RUS", fingerprint: "fp-z" },
  { id: "p9", createdAt: at(1, 3), amount: 100, fee: 2, status: "cancelled", system: "visa", country: "DEU", fingerprint: "fp-a" }
]

const payer = (f: Fixture) => {
  const details = f.terminal === true
    ? { detailsType: "PaymentToolDetailsPaymentTerminal", provider: "euroset" }
    : {
      detailsType: "PaymentToolDetailsBankCard",
      cardNumberMask: "424242******4242",
      first6: "424242",
      last4: "4242",
      paymentSystem: f.system
    }
  return f.customerID !== undefined
    ? { payerType: "CustomerPayer", customerID: f.customerID, paymentToolDetails: details }
    : {
      payerType: "PaymentResourcePayer",
      paymentToolToken: "pt",
      paymentSession: "ps",
      paymentToolDetails: details,
      clientInfo: { fingerprint: f.fingerprint },
      contactInfo: f.country === undefined ? { email: "a@b.c" } : { email: "a@b.c", country: f.country }
    }
}

const seed = (partyID: string, shopID: string, rows: ReadonlyArray<Fixture>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const f of rows) {
      const invoiceID = `${shopID}-${f.id}`
      yield* sql`INSERT INTO payments ${
        sql.insert({
          invoiceId: invoiceID,
          id: "1",
          partyId: partyID,
          shopId: shopID,
          externalId: null,
          createdAt: f.createdAt,
          amount: f.amount,
          currency: f.currency ?? "RUB",
          status: f.status,
          activity: "done",
          flow: JSON.stringify({ type: "PaymentFlowInstant" }),
          interactionId: null,
          fee: f.fee,
          statusChangedAt: f.createdAt,
          data: JSON.stringify({ payer: payer(f), makeRecurrent: false, authorizedAmount: f.amount }),
          version: 1
        })
      }`
    }
  }).pipe(Effect.orDie)

const headers = (token: string) => ({ "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` })

type Stat = "payment_method" | "rate" | "conversion" | "geo" | "revenue"
const paths: Record<Stat, string> = {
  payment_method: "customers/stats/payment_method",
  rate: "customers/stats/rate",
  conversion: "payments/stats/conversion",
  geo: "payments/stats/geo",
  revenue: "payments/stats/revenue"
}

const iso = (ms: number) => new Date(ms).toISOString()
const Q1 = { fromTime: iso(at(1, 1)), toTime: iso(at(4, 1)) }

const stat = (
  version: "v1" | "v2",
  which: Stat,
  m: { shopID: string; apiKey: string },
  params: Record<string, string>
) => {
  const query = new URLSearchParams({
    ...Q1,
    ...(which === "rate" ? {} : { splitUnit: "day", splitSize: "1" }),
    ...(which === "payment_method" ? { paymentMethod: "bankCard" } : {}),
    ...params
  })
  return TestServer.raw("GET", `/${version}/analytics/shops/${m.shopID}/${paths[which]}?${query}`, { headers: headers(m.apiKey) })
}

const ok = (r: TestServer.RawResponse) => {
  assert.strictEqual(r.status, 200, r.text)
  return r.json
}

const conversion = (offset: number, successfulCount: number, totalCount: number) => ({
  offset,
  successfulCount,
  totalCount,
  conversion: successfulCount / totalCount
})
const money = (revenue: number, fee: number) => ({ revenue, profit: revenue - fee })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Analytics [${dialect}]`, (it) => {
    it.effect("exact statistics of a small shop, split by day, hour, month and year, on /v1 and /v2", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        // p9 is in the other shop of the same party: never counted here
        yield* seed(m.partyID, m.shopID, fixtures.filter((f) => f.id !== "p9"))
        yield* seed(m.partyID, m.shopIDs[1]!, fixtures.filter((f) => f.id === "p9"))

        for (const version of ["v1", "v2"] as const) {
          assert.deepStrictEqual(ok(yield* stat(version, "conversion", m, {})), [
            conversion(0, 2, 3),
            conversion(1, 1, 1),
            conversion(14, 0, 1),
            conversion(40, 1, 1),
            conversion(89, 1, 1)
          ])
        }
        // hours of 1 January
        assert.deepStrictEqual(
          ok(yield* stat("v1", "conversion", m, { fromTime: iso(at(1, 1)), toTime: iso(at(1, 2)), splitUnit: "hour" })),
          [conversion(1, 1, 1), conversion(2, 0, 1), conversion(23, 1, 1)]
        )
        // segments start at fromTime, whatever its alignment
        assert.deepStrictEqual(
          ok(yield* stat("v1", "conversion", m, { fromTime: iso(at(1, 1, 1, 30)), toTime: iso(at(1, 3)), splitUnit: "hour", splitSize: "2" })),
          [conversion(0, 0, 1), conversion(11, 2, 2)]
        )
        assert.deepStrictEqual(
          ok(yield* stat("v1", "conversion", m, { splitUnit: "week", splitSize: "2" })),
          [conversion(0, 3, 4), conversion(1, 0, 1), conversion(2, 1, 1), conversion(6, 1, 1)]
        )
        assert.deepStrictEqual(ok(yield* stat("v1", "revenue", m, { splitUnit: "month" })), [
          { offset: 0, currency: "RUB", ...money(4000, 80) },
          { offset: 0, currency: "USD", ...money(500, 10) },
          { offset: 1, currency: "RUB", ...money(1500, 30) },
          { offset: 2, currency: "RUB", ...money(900, 18) }
        ])
        assert.deepStrictEqual(ok(yield* stat("v1", "revenue", m, { splitUnit: "year" })), [
          { offset: 0, currency: "RUB", ...money(6400, 128) },
          { offset: 0, currency: "USD", ...money(500, 10) }
        ])
        // geo ids: ISO 3166-1 numeric of the payer's country; 0 unknown
        assert.deepStrictEqual(ok(yield* stat("v1", "geo", m, { splitUnit: "month" })), [
          { offset: 0, geoID: 0, currency: "USD", ...money(500, 10) },
          { offset: 0, geoID: 398, currency: "RUB", ...money(3000, 60) },
          { offset: 0, geoID: 643, currency: "RUB", ...money(1000, 20) },
          { offset: 1, geoID: 643, currency: "RUB", ...money(1500, 30) },
          { offset: 2, geoID: 0, currency: "RUB", ...money(900, 18) }
        ])
        assert.deepStrictEqual(ok(yield* stat("v1", "payment_method", m, { splitUnit: "year" })), [
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 1, paymentSystem: "mastercard", currency: "RUB", ...money(3000, 60) },
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 2, paymentSystem: "visa", currency: "RUB", ...money(1900, 38) },
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 1, paymentSystem: "visa", currency: "USD", ...money(500, 10) }
        ])
        assert.deepStrictEqual(ok(yield* stat("v1", "payment_method", m, { splitUnit: "month", splitSize: "2" })), [
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 1, paymentSystem: "mastercard", currency: "RUB", ...money(3000, 60) },
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 1, paymentSystem: "visa", currency: "RUB", ...money(1000, 20) },
          { statType: "PaymentMethodBankCardStat", offset: 0, totalCount: 1, paymentSystem: "visa", currency: "USD", ...money(500, 10) },
          { statType: "PaymentMethodBankCardStat", offset: 1, totalCount: 1, paymentSystem: "visa", currency: "RUB", ...money(900, 18) }
        ])
        // unique payers of successful payments: fp-a (twice), fp-c, fp-e, cust-1
        assert.deepStrictEqual(ok(yield* stat("v1", "rate", m, {})), { uniqueCount: 4 })
        assert.deepStrictEqual(ok(yield* stat("v2", "rate", m, { toTime: iso(at(1, 2)) })), { uniqueCount: 1 })
        assert.deepStrictEqual(ok(yield* stat("v1", "rate", m, { fromTime: iso(at(5, 1)), toTime: iso(at(6, 1)) })), { uniqueCount: 0 })
        assert.deepStrictEqual(ok(yield* stat("v1", "revenue", m, { fromTime: iso(at(5, 1)), toTime: iso(at(6, 1)) })), [])
        // the other shop
        assert.deepStrictEqual(ok(yield* stat("v1", "conversion", { ...m, shopID: m.shopIDs[1]! }, {})), [conversion(2, 0, 1)])
      }))

    it.effect("bad parameters are 400 invalidRequest naming the field; too long a window or too many segments, limitExceeded; others' shops 404", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const invalid = (r: TestServer.RawResponse, field: string) => {
          assert.strictEqual(r.status, 400, r.text)
          assert.strictEqual(r.json.code, "invalidRequest", r.text)
          assert.include(r.json.message, field)
        }
        for (const which of ["payment_method", "conversion", "geo", "revenue"] as const) {
          invalid(yield* stat("v1", which, m, { splitUnit: "quarter" }), "splitUnit")
          invalid(yield* stat("v1", which, m, { splitSize: "0" }), "splitSize")
          invalid(yield* stat("v1", which, m, { splitSize: "2147483648" }), "splitSize")
          invalid(yield* stat("v1", which, m, { fromTime: "January" }), "fromTime")
          invalid(yield* stat("v1", which, m, { toTime: Q1.fromTime }), "fromTime")
          const limit = yield* stat("v1", which, m, { fromTime: iso(at(1, 1) - 400 * DAY) })
          assert.strictEqual(limit.json.code, "limitExceeded", limit.text)
          const segments = yield* stat("v1", which, m, { fromTime: iso(at(1, 1)), toTime: iso(at(1, 8)), splitUnit: "minute" })
          assert.strictEqual(segments.json.code, "limitExceeded", segments.text)
          assert.include(segments.json.message, "splitUnit")
          ok(yield* stat("v1", which, m, { fromTime: iso(at(1, 1)), toTime: iso(at(1, 7, 22)), splitUnit: "minute" }))
          assert.strictEqual((yield* stat("v1", which, { ...m, apiKey: other.apiKey }, {})).status, 404)
        }
        invalid(yield* stat("v1", "payment_method", m, { paymentMethod: "paymentTerminal" }), "paymentMethod")
        const missing = yield* TestServer.raw(
          "GET",
          `/v1/analytics/shops/${m.shopID}/payments/stats/revenue?${new URLSearchParams(Q1)}`,
          { headers: headers(m.apiKey) }
        )
        invalid(missing, "split")
        invalid(yield* stat("v1", "rate", m, { toTime: "later" }), "toTime")
        assert.strictEqual((yield* stat("v1", "rate", { ...m, shopID: "no-such-shop" }, {})).status, 404)
        assert.strictEqual((yield* stat("v1", "rate", { ...m, apiKey: other.apiKey }, {})).status, 404)
      }))
  })
}
