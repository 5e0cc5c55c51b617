/**
 * @internal
 * Rows of `invoices`, `payments` and `refunds` as searches answer them: the same columns and JSON
 * the repositories write (SqlInvoices, SqlPayments, SqlRefunds), read into the public shapes.
 */
import type { PaymentSearchRecord, RefundSearchRecord } from "@kassa/core/search/SearchResults"
import * as Schema from "effect/Schema"
import { JsonColumn, opt, reader } from "../rows.js"
import { PaymentData, PaymentRow } from "../../SqlPayments.js"
import { fromRow as refundFromRow } from "../../SqlRefunds.js"

export { fromRow as invoice } from "../../SqlInvoices.js"

const data = PaymentData.fields

/** A payment as searches read it: the fields they answer (rows seeded for searches hold only those). */
const PaymentSearchRow = Schema.Struct({
  ...PaymentRow.fields,
  data: JsonColumn(Schema.Struct({
    payer: data.payer,
    transactionInfo: data.transactionInfo,
    makeRecurrent: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    metadata: data.metadata,
    allocation: data.allocation,
    error: data.error,
    cart: data.cart
  }))
})

const payments = reader(PaymentSearchRow, ({ data: d, ...r }): PaymentSearchRecord => ({
  id: r.id,
  ...opt("externalID", r.externalId),
  invoiceID: r.invoiceId,
  shopID: r.shopId,
  createdAt: r.createdAt,
  amount: r.amount,
  currency: r.currency,
  flow: r.flow,
  payer: d.payer,
  ...opt("transactionInfo", d.transactionInfo),
  makeRecurrent: d.makeRecurrent,
  ...opt("metadata", d.metadata),
  ...opt("allocation", d.allocation),
  status: r.status,
  ...opt("error", d.error),
  fee: r.fee,
  statusChangedAt: r.statusChangedAt,
  ...opt("cart", d.cart)
}))

export const payment = payments.one

export const refund = (row: unknown): RefundSearchRecord => {
  const { fee: _fee, partyID: _partyID, shopID: _shopID, version: _version, ...refund } = refundFromRow(row)
  return refund
}
