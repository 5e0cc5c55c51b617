/**
 * `SearchRepository` in memory: the rows of the store filtered, ordered and paged, counted and
 * aggregated as the SQL searches answer (`SqlSearch`): newest first by (creation, ids), ids
 * compared as text; conditions on the values as stored (see `internal/searchFields`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"
import {
  type Keyset,
  type Page,
  type PaymentConditions,
  type Query,
  type Scope,
  SearchRepository,
  type StatsRow,
  type Window
} from "../ports/SearchRepository.js"
import { type RefundRecord, toRefund } from "../refund/Refund.js"
import type { PaymentSearchRecord, RefundSearchRecord } from "../search/SearchResults.js"
import { compareText } from "./internal/order.js"
import { searchFields } from "./internal/searchFields.js"
import { key, MemoryStore } from "./MemoryStore.js"

/** Statuses of a successful payment. */
const SUCCESSFUL = new Set(["captured", "refunded"])

const inScope = (r: { readonly partyID: string; readonly shopID: string; readonly createdAt: Date }, scope: Scope, w: Window) =>
  r.partyID === scope.partyID && r.shopID === scope.shopID && r.createdAt.getTime() >= w.from && r.createdAt.getTime() < w.to

/** Whether the payment meets every condition present. */
const meets = (p: PaymentRecord, c: PaymentConditions): boolean => {
  const f = searchFields(p)
  const eq = (value: string | number | undefined, wanted: string | number | undefined) => wanted === undefined || value === wanted
  return eq(p.status, c.status) &&
    eq(f.flow, c.flow) &&
    eq(f.method, c.method) &&
    (c.terminalProvider === undefined || (f.provider === c.terminalProvider && f.method === "PaymentToolDetailsPaymentTerminal")) &&
    eq(p.invoiceID, c.invoiceID) &&
    eq(p.id, c.paymentID) &&
    eq(f.email, c.email) &&
    eq(f.ip, c.ip) &&
    eq(f.fingerprint, c.fingerprint) &&
    eq(f.customer, c.customerID) &&
    eq(f.tokenProvider, c.tokenProvider) &&
    eq(f.paymentSystem, c.paymentSystem) &&
    (c.bin ?? []).every((bin) => f.bin === bin) &&
    (c.lastDigits ?? []).every((digits) =>
      f.last4 !== undefined && (digits.length >= 4 ? f.last4 === digits : f.last4.endsWith(digits))
    ) &&
    eq(f.rrn, c.rrn) &&
    eq(f.approvalCode, c.approvalCode) &&
    eq(p.amount, c.amount)
}

/** Only conditions that say something: an empty set of payment conditions is no condition. */
const isEmpty = (c: PaymentConditions | undefined) =>
  c === undefined || Object.entries(c).every(([, v]) => v === undefined || (Array.isArray(v) && v.length === 0))

/** (createdAt, ids…) compared, newest first: negative when `a` comes first. */
const newestFirst = (a: Keyset, b: Keyset): number => {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt
  for (let i = 0; i < a.ids.length; i++) {
    const c = compareText(b.ids[i] ?? "", a.ids[i] ?? "")
    if (c !== 0) return c
  }
  return 0
}

const paged = <A>(rows: ReadonlyArray<A>, position: (a: A) => Keyset, p: Page): Array<A> =>
  [...rows]
    .sort((a, b) => newestFirst(position(a), position(b)))
    .filter((r) => Option.isNone(p.after) || newestFirst(p.after.value, position(r)) < 0)
    .slice(p.offset, p.offset + p.limit)

const paymentResult = (p: PaymentRecord): PaymentSearchRecord => ({
  id: p.id,
  ...(p.externalID === undefined ? {} : { externalID: p.externalID }),
  invoiceID: p.invoiceID,
  shopID: p.shopID,
  createdAt: p.createdAt,
  amount: p.amount,
  currency: p.currency,
  flow: p.flow,
  payer: p.payer,
  ...(p.transactionInfo === undefined ? {} : { transactionInfo: p.transactionInfo }),
  makeRecurrent: p.makeRecurrent === true,
  ...(p.metadata === undefined ? {} : { metadata: p.metadata }),
  ...(p.allocation === undefined ? {} : { allocation: p.allocation }),
  status: p.status,
  ...(p.error === undefined ? {} : { error: p.error }),
  fee: p.fee,
  statusChangedAt: p.statusChangedAt,
  ...(p.cart === undefined ? {} : { cart: p.cart })
})

const refundResult = (r: RefundRecord): RefundSearchRecord => ({ ...toRefund(r), invoiceID: r.invoiceID, paymentID: r.paymentID })

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<SearchRepository, never, MemoryStore> = Layer.effect(
  SearchRepository,
  Effect.map(MemoryStore, (store) => {
    const invoices = store.table<InvoiceRecord>("invoices")
    const payments = store.table<PaymentRecord>("payments")
    const refunds = store.table<RefundRecord>("refunds")

    const matchingInvoices = (q: Query<Parameters<SearchRepository["Type"]["countInvoices"]>[0]["conditions"]>) =>
      Effect.gen(function*() {
        const c = q.conditions
        const all = yield* payments.values
        return (yield* invoices.values).filter((i) =>
          inScope(i, q.scope, q.window) &&
          (c.status === undefined || i.status === c.status) &&
          (c.id === undefined || i.id === c.id) &&
          (c.amount === undefined || i.amount === c.amount) &&
          (isEmpty(c.payment) ||
            all.some((p) => p.partyID === i.partyID && p.shopID === i.shopID && p.invoiceID === i.id && meets(p, c.payment!)))
        )
      })

    const matchingPayments = (q: Query<PaymentConditions>) =>
      Effect.map(payments.values, (all) => all.filter((p) => inScope(p, q.scope, q.window) && meets(p, q.conditions)))

    const matchingRefunds = (q: Query<Parameters<SearchRepository["Type"]["countRefunds"]>[0]["conditions"]>) =>
      Effect.gen(function*() {
        const c = q.conditions
        const payment = c.payment
        const paymentsMet = isEmpty(payment)
          ? undefined
          : new Set((yield* payments.values).filter((p) => meets(p, payment!)).map((p) => key(p.partyID, p.shopID, p.invoiceID, p.id)))
        return (yield* refunds.values).filter((r) =>
          inScope(r, q.scope, q.window) &&
          (c.status === undefined || r.status === c.status) &&
          (c.invoiceID === undefined || r.invoiceID === c.invoiceID) &&
          (c.paymentID === undefined || r.paymentID === c.paymentID) &&
          (c.id === undefined || r.id === c.id) &&
          (paymentsMet === undefined || paymentsMet.has(key(r.partyID, r.shopID, r.invoiceID, r.paymentID)))
        )
      })

    const successfulIn = (scope: Scope, w: Window) =>
      Effect.map(payments.values, (all) => all.filter((p) => inScope(p, scope, w) && SUCCESSFUL.has(p.status)))

    return {
      invoices: (q, p) =>
        Effect.map(matchingInvoices(q), (rows) => paged(rows, (i) => ({ createdAt: i.createdAt.getTime(), ids: [i.id] }), p)),
      countInvoices: (q) => Effect.map(matchingInvoices(q), (rows) => rows.length),
      payments: (q, p) =>
        Effect.map(matchingPayments(q), (rows) =>
          paged(rows, (r) => ({ createdAt: r.createdAt.getTime(), ids: [r.invoiceID, r.id] }), p).map(paymentResult)),
      countPayments: (q) => Effect.map(matchingPayments(q), (rows) => rows.length),
      refunds: (q, p) =>
        Effect.map(matchingRefunds(q), (rows) =>
          paged(rows, (r) => ({ createdAt: r.createdAt.getTime(), ids: [r.invoiceID, r.paymentID, r.id] }), p).map(refundResult)),
      countRefunds: (q) => Effect.map(matchingRefunds(q), (rows) => rows.length),
      paymentStats: (q) =>
        Effect.map(payments.values, (all) => {
          // the rollup that answers this query leaves out card payments of no payment system
          const bySystemRollup = q.by.join(",") === "paymentSystem,currency" && q.successfulOnly && q.bankCardOnly
          const groups = new Map<string, { -readonly [K in keyof StatsRow]: StatsRow[K] }>()
          for (const p of all) {
            if (!inScope(p, q.scope, q.window)) continue
            const f = searchFields(p)
            const ok = SUCCESSFUL.has(p.status)
            if (q.successfulOnly && !ok) continue
            if (q.bankCardOnly && f.method !== "PaymentToolDetailsBankCard") continue
            if (bySystemRollup && f.paymentSystem === undefined) continue
            const segment = Math.floor((p.createdAt.getTime() - q.window.from) / q.bucketMs)
            const keys = {
              ...(q.by.includes("currency") ? { currency: p.currency } : {}),
              ...(q.by.includes("country") ? { country: f.country ?? null } : {}),
              ...(q.by.includes("paymentSystem") ? { paymentSystem: f.paymentSystem ?? null } : {})
            }
            const id = JSON.stringify([segment, keys.currency, keys.country, keys.paymentSystem])
            let g = groups.get(id)
            if (g === undefined) groups.set(id, g = { segment, ...keys, total: 0, successful: 0, revenue: 0, fee: 0 })
            g.total += 1
            if (ok) {
              g.successful += 1
              g.revenue += p.amount
              g.fee += p.fee
            }
          }
          return [...groups.values()]
        }),
      uniquePayers: (scope, w) =>
        Effect.map(successfulIn(scope, w), (rows) => {
          const payers = new Set<string>()
          for (const p of rows) {
            const payer = searchFields(p).payer
            if (payer !== undefined) payers.add(payer)
          }
          return payers.size
        })
    }
  })
)
