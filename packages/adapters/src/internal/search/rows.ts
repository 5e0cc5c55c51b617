/**
 * @internal
 * Rows of `invoices`, `payments` and `refunds` as searches answer them: the same columns and JSON
 * the repositories write (SqlInvoices, SqlPayments, SqlRefunds), read into the public shapes.
 */
import type { PaymentSearchRecord, RefundSearchRecord } from "@kassa/core/search/SearchResults"
import { date, int, json, opt, optString } from "../rows.js"

export { fromRow as invoice } from "../../SqlInvoices.js"

const flow = (f: any) =>
  f.type === "PaymentFlowHold" && f.heldUntil !== undefined ? { ...f, heldUntil: new Date(f.heldUntil) } : f

export const payment = (r: any): PaymentSearchRecord => {
  const d = json<any>(r.data)
  return {
    id: r.id,
    ...opt("externalID", optString(r.externalId)),
    invoiceID: r.invoiceId,
    shopID: r.shopId,
    createdAt: date(r.createdAt),
    amount: int(r.amount),
    currency: r.currency,
    flow: flow(json<any>(r.flow)),
    payer: d.payer,
    ...opt("transactionInfo", d.transactionInfo),
    makeRecurrent: d.makeRecurrent === true,
    ...opt("metadata", d.metadata),
    ...opt("allocation", d.allocation),
    status: r.status,
    ...opt("error", d.error),
    fee: int(r.fee),
    statusChangedAt: date(r.statusChangedAt),
    ...opt("cart", d.cart)
  }
}

export const refund = (r: any): RefundSearchRecord => {
  const d = json<any>(r.data)
  return {
    id: r.id,
    invoiceID: r.invoiceId,
    paymentID: r.paymentId,
    ...opt("externalID", optString(r.externalId)),
    createdAt: date(r.createdAt),
    amount: int(r.amount),
    currency: r.currency,
    ...opt("reason", d.reason),
    ...opt("cart", d.cart),
    ...opt("allocation", d.allocation),
    status: r.status,
    ...opt("error", d.error)
  }
}
