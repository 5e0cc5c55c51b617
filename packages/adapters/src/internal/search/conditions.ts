/**
 * @internal
 * The WHERE clauses of the searches: one SQL text for both dialects (the dialect-specific JSON
 * extraction lives in the `search_*` columns of migration 0010).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type {
  InvoiceConditions,
  Keyset,
  PaymentConditions,
  Query,
  RefundConditions,
  Scope,
  Window
} from "@kassa/core/ports/SearchRepository"
import * as Option from "effect/Option"

type Sql = SqlClient.SqlClient
type Fragment = Statement.Fragment

/** Statuses of a successful payment. */
export const SUCCESSFUL = ["captured", "refunded"] as const

/** The shop and window of alias `t`. */
export const scoped = (sql: Sql, t: string, scope: Scope, w: Window): Array<Fragment> => [
  sql`${sql(t)}.party_id = ${scope.partyID}`,
  sql`${sql(t)}.shop_id = ${scope.shopID}`,
  sql`${sql(t)}.created_at >= ${w.from}`,
  sql`${sql(t)}.created_at < ${w.to}`
]

/** Conditions on the payments of alias `p`. */
export const payment = (sql: Sql, p: string, c: PaymentConditions): Array<Fragment> => {
  const col = (name: string) => sql`${sql(p)}.${sql(name)}`
  const out: Array<Fragment> = []
  const eq = (name: string, value: string | number | undefined) => {
    if (value !== undefined) out.push(sql`${col(name)} = ${value}`)
  }
  eq("status", c.status)
  eq("search_flow", c.flow)
  eq("search_method", c.method)
  if (c.terminalProvider !== undefined) {
    eq("search_provider", c.terminalProvider)
    eq("search_method", "PaymentToolDetailsPaymentTerminal")
  }
  eq("invoice_id", c.invoiceID)
  eq("id", c.paymentID)
  eq("search_email", c.email)
  eq("search_ip", c.ip)
  eq("search_fingerprint", c.fingerprint)
  eq("search_customer", c.customerID)
  eq("search_token_provider", c.tokenProvider)
  eq("search_payment_system", c.paymentSystem)
  for (const bin of c.bin ?? []) eq("search_bin", bin)
  for (const digits of c.lastDigits ?? []) {
    // digits only: no LIKE escaping needed
    if (digits.length >= 4) eq("search_last4", digits)
    else out.push(sql`${col("search_last4")} LIKE ${`%${digits}`}`)
  }
  eq("search_rrn", c.rrn)
  eq("search_approval_code", c.approvalCode)
  eq("amount", c.amount)
  return out
}

const exists = (sql: Sql, join: Fragment, c: PaymentConditions | undefined): Array<Fragment> => {
  if (c === undefined) return []
  const inner = payment(sql, "p", c)
  return inner.length === 0 ? [] : [sql`EXISTS (SELECT 1 FROM payments p WHERE ${sql.and([join, ...inner])})`]
}

export const invoice = (sql: Sql, q: Query<InvoiceConditions>): Array<Fragment> => {
  const c = q.conditions
  const out = scoped(sql, "i", q.scope, q.window)
  if (c.status !== undefined) out.push(sql`i.status = ${c.status}`)
  if (c.id !== undefined) out.push(sql`i.id = ${c.id}`)
  if (c.amount !== undefined) out.push(sql`i.amount = ${c.amount}`)
  // the shop too: it lets the planner reach the payments through their search indexes
  return [...out, ...exists(sql, sql`p.party_id = i.party_id AND p.shop_id = i.shop_id AND p.invoice_id = i.id`, c.payment)]
}

export const payments = (sql: Sql, q: Query<PaymentConditions>): Array<Fragment> => [
  ...scoped(sql, "p", q.scope, q.window),
  ...payment(sql, "p", q.conditions)
]

export const refund = (sql: Sql, q: Query<RefundConditions>): Array<Fragment> => {
  const c = q.conditions
  const out = scoped(sql, "r", q.scope, q.window)
  if (c.status !== undefined) out.push(sql`r.status = ${c.status}`)
  if (c.invoiceID !== undefined) out.push(sql`r.invoice_id = ${c.invoiceID}`)
  if (c.paymentID !== undefined) out.push(sql`r.payment_id = ${c.paymentID}`)
  if (c.id !== undefined) out.push(sql`r.id = ${c.id}`)
  return [
    ...out,
    ...exists(sql, sql`p.party_id = r.party_id AND p.shop_id = r.shop_id AND p.invoice_id = r.invoice_id AND p.id = r.payment_id`, c.payment)
  ]
}

/**
 * Rows strictly after `after` in (created_at, ids) descending order: a row-value comparison,
 * which both dialects evaluate on the search indexes.
 */
export const after = (sql: Sql, t: string, columns: ReadonlyArray<string>, keyset: Option.Option<Keyset>): Array<Fragment> => {
  if (Option.isNone(keyset)) return []
  const names = sql.csv(["created_at", ...columns].map((c) => sql`${sql(t)}.${sql(c)}`))
  const values = sql.csv([sql`${keyset.value.createdAt}`, ...keyset.value.ids.map((id) => sql`${id}`)])
  return [sql`(${names}) < (${values})`]
}

/** ORDER BY of alias `t`: created_at then `columns`, all descending. */
export const order = (sql: Sql, t: string, columns: ReadonlyArray<string>): Fragment =>
  sql.csv(["created_at", ...columns].map((c) => sql`${sql(t)}.${sql(c)} DESC`))
