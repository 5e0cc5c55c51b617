import { assert, layer } from "@effect/vitest"
import type { PaymentRecord } from "@kassa/core/payment/Payment"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { type Query, SearchRepository } from "@kassa/core/ports/SearchRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

const HOUR = 3_600_000
const T0 = 1_800_000_000_000

/** Five payments of a fresh shop, an hour apart from T0 + 1 h: their statuses, amounts and payers vary. */
const fivePayments = Effect.gen(function*() {
  const payments = yield* PaymentRepository
  const base = yield* Records.storedPayment
  const scope = { partyID: Records.fresh("p"), shopID: Records.fresh("s") }
  const rows: ReadonlyArray<readonly [PaymentRecord["status"], number, string, string]> = [
    ["captured", 100, "A@Kassa.test", "device-1"],
    ["failed", 200, "b@kassa.test", "device-2"],
    ["refunded", 300, "a@kassa.test", "device-1"],
    ["captured", 400, "c@kassa.test", "device-3"],
    ["pending", 500, "d@kassa.test", "device-4"]
  ]
  const made: Array<PaymentRecord> = []
  for (const [i, [status, amount, email, fingerprint]] of rows.entries()) {
    const payer = base.payer.payerType === "PaymentResourcePayer"
      ? { ...base.payer, contactInfo: { email }, clientInfo: { ...base.payer.clientInfo, fingerprint } }
      : base.payer
    const p: PaymentRecord = {
      ...base,
      ...scope,
      invoiceID: Records.fresh("inv"),
      createdAt: new Date(T0 + (i + 1) * HOUR),
      status,
      amount,
      fee: amount / 10,
      payer
    }
    yield* payments.insert(p)
    made.push(p)
  }
  const query = (conditions: Query<object>["conditions"] = {}) => ({ scope, window: { from: T0, to: T0 + 10 * HOUR }, conditions })
  return { scope, made, query }
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: search [${backend}]`, (it) => {
    it.effect("payments: newest first, by offset or after a position, filtered and counted", () =>
      Effect.gen(function*() {
        const search = yield* SearchRepository
        const { made, query } = yield* fivePayments
        const ids = (rows: ReadonlyArray<{ readonly invoiceID: string }>) => rows.map((r) => made.findIndex((m) => m.invoiceID === r.invoiceID))
        const first = yield* search.payments(query(), { limit: 2, offset: 0, after: Option.none() })
        assert.deepStrictEqual(ids(first), [4, 3])
        assert.deepStrictEqual(ids(yield* search.payments(query(), { limit: 2, offset: 2, after: Option.none() })), [2, 1])
        const last = first[1]!
        const after = Option.some({ createdAt: last.createdAt.getTime(), ids: [last.invoiceID, last.id] })
        assert.deepStrictEqual(ids(yield* search.payments(query(), { limit: 10, offset: 0, after })), [2, 1, 0])
        assert.strictEqual(yield* search.countPayments(query()), 5)

        assert.deepStrictEqual(ids(yield* search.payments(query({ status: "captured" }), { limit: 10, offset: 0, after: Option.none() })), [3, 0])
        assert.strictEqual(yield* search.countPayments(query({ status: "captured" })), 2)
        // e-mails are searched lower-case
        assert.deepStrictEqual(ids(yield* search.payments(query({ email: "a@kassa.test" }), { limit: 10, offset: 0, after: Option.none() })), [2, 0])
        assert.strictEqual(yield* search.countPayments(query({ amount: 400, fingerprint: "device-3" })), 1)
        assert.strictEqual(yield* search.countPayments(query({ lastDigits: ["42"], bin: ["424242"] })), 5)
        assert.strictEqual(yield* search.countPayments(query({ lastDigits: ["4243"] })), 0)
        // another window or shop sees none of them
        assert.strictEqual(yield* search.countPayments({ ...query(), window: { from: T0, to: T0 + HOUR } }), 0)
        assert.strictEqual(yield* search.countPayments({ ...query(), scope: { ...query().scope, shopID: "another" } }), 0)
        const [found] = yield* search.payments(query({ status: "refunded" }), { limit: 1, offset: 0, after: Option.none() })
        assert.deepStrictEqual([found!.shopID, found!.fee, found!.amount, found!.status], [made[2]!.shopID, 30, 300, "refunded"])
      }))

    it.effect("statistics group the window's payments by segment; unique payers count the successful ones' payers", () =>
      Effect.gen(function*() {
        const search = yield* SearchRepository
        const { query, scope } = yield* fivePayments
        const window = query().window
        const all = yield* search.paymentStats({ scope, window, bucketMs: 10 * HOUR, by: [], successfulOnly: false, bankCardOnly: false })
        assert.deepStrictEqual(all.map((r) => [r.segment, r.total, r.successful, r.revenue, r.fee]), [[0, 5, 3, 800, 80]])
        const byHalf = yield* search.paymentStats({ scope, window, bucketMs: 3 * HOUR, by: ["currency"], successfulOnly: true, bankCardOnly: false })
        assert.deepStrictEqual(
          [...byHalf].sort((a, b) => a.segment - b.segment).map((r) => [r.segment, r.currency, r.total, r.revenue]),
          [[0, "RUB", 1, 100], [1, "RUB", 2, 700]]
        )
        // device-1 paid twice, device-3 once; failed and pending payments do not count
        assert.strictEqual(yield* search.uniquePayers(scope, window), 2)
      }))
  })
}
