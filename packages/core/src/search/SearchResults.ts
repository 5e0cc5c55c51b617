/**
 * What searches answer: invoices as they are, payments and refunds with the fields the search
 * results of the specification add, and the page around them.
 *
 * A page is a superset of both revisions' answers: `result` always, `totalCount` when the
 * offset form is used (always for refunds and on `/v1`), `continuationToken` when more rows
 * remain.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Cart from "../cart/Cart.js"
import * as Invoice from "../invoice/Invoice.js"
import * as Payment from "../payment/Payment.js"
import * as Refund from "../refund/Refund.js"
import { DateTime } from "../Time.js"

/**
 * A payment found by a search: the payment with its short id (`<invoiceID>.<paymentID>`), shop,
 * system fee, the time of its last status change and its cart.
 *
 * @since 0.1.0 @category schemas
 */
export const PaymentSearchResult = Schema.Struct({
  ...Payment.Payment.fields,
  shortID: Schema.String,
  shopID: Schema.String,
  fee: Schema.Int,
  statusChangedAt: DateTime,
  cart: Schema.optional(Schema.Array(Cart.InvoiceLine))
}).annotations({ identifier: "PaymentSearchResult" })
/** @since 0.1.0 */
export type PaymentSearchResult = typeof PaymentSearchResult.Type

/** A refund found by a search: the refund with its invoice and payment. @since 0.1.0 @category schemas */
export const RefundSearchResult = Schema.Struct({
  ...Refund.Refund.fields,
  invoiceID: Schema.String,
  paymentID: Schema.String
}).annotations({ identifier: "RefundSearchResult" })
/** @since 0.1.0 */
export type RefundSearchResult = typeof RefundSearchResult.Type

/** A payment as the search store reads it. @since 0.1.0 @category models */
export interface PaymentSearchRecord extends Payment.Payment {
  readonly shopID: string
  readonly fee: number
  readonly statusChangedAt: Date
  readonly cart?: ReadonlyArray<Cart.InvoiceLine> | undefined
}

/** A refund as the search store reads it. @since 0.1.0 @category models */
export interface RefundSearchRecord extends Refund.Refund {
  readonly invoiceID: string
  readonly paymentID: string
}

/** @since 0.1.0 */
export const shortID = (invoiceID: string, paymentID: string): string => `${invoiceID}.${paymentID}`

/** @since 0.1.0 */
export const toPaymentSearchResult = (r: PaymentSearchRecord): PaymentSearchResult => {
  const { cart, ...payment } = r
  return {
    ...payment,
    shortID: shortID(r.invoiceID, r.id),
    ...(cart === undefined ? {} : { cart })
  }
}

/** The payout of the older revision. @since 0.1.0 @category schemas */
export const Payout = Schema.Struct({
  id: Schema.String,
  shopID: Schema.String,
  createdAt: DateTime,
  status: Schema.Literal("unpaid", "paid", "cancelled", "confirmed"),
  cancellationDetails: Schema.optional(Schema.String),
  amount: Schema.Int,
  fee: Schema.Int,
  currency: Schema.String,
  payoutToolDetails: Schema.Struct({ detailsType: Schema.String }, Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  payoutSummary: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
}).annotations({ identifier: "Payout" })
/** @since 0.1.0 */
export type Payout = typeof Payout.Type

/** A page of results. @since 0.1.0 @category schemas */
export const page = <A, I>(item: Schema.Schema<A, I>, identifier: string) =>
  Schema.Struct({
    result: Schema.Array(item),
    totalCount: Schema.optional(Schema.Int),
    continuationToken: Schema.optional(Schema.String)
  }).annotations({ identifier })

/** @since 0.1.0 @category schemas */
export const InvoiceSearchPage = page(Invoice.Invoice, "InvoiceSearchPage")
/** @since 0.1.0 @category schemas */
export const PaymentSearchPage = page(PaymentSearchResult, "PaymentSearchPage")
/** @since 0.1.0 @category schemas */
export const RefundSearchPage = page(RefundSearchResult, "RefundSearchPage")
/** @since 0.1.0 @category schemas */
export const PayoutSearchPage = page(Payout, "PayoutSearchPage")

/** @since 0.1.0 @category models */
export interface Page<A> {
  readonly result: ReadonlyArray<A>
  readonly totalCount?: number
  readonly continuationToken?: string
}
