/**
 * The invoice's event changes, in the specification's shapes (`getInvoiceEvents`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { PaymentChange } from "../payment/PaymentChange.js"
import { RefundStarted, RefundStatusChanged } from "../refund/Refund.js"
import { Invoice, InvoiceStatus } from "./Invoice.js"

/** @since 0.1.0 @category schemas */
export const InvoiceCreated = Schema.Struct({
  changeType: Schema.Literal("InvoiceCreated"),
  invoice: Invoice
})

/** @since 0.1.0 @category schemas */
export const InvoiceStatusChanged = Schema.Struct({
  changeType: Schema.Literal("InvoiceStatusChanged"),
  status: InvoiceStatus,
  reason: Schema.optional(Schema.String)
})

/**
 * Kassa's own change, which the specification's `InvoiceChange` does not list: a chargeback
 * accepted for what remained of the payment took it back. It numbers an event of the invoice (the
 * `PaymentChargedBack` notification's `eventID`) but `getInvoiceEvents` leaves it out.
 *
 * @since 0.1.0 @category schemas
 */
export const PaymentChargedBack = Schema.Struct({
  changeType: Schema.Literal("PaymentChargedBack"),
  paymentID: Schema.String,
  chargebackID: Schema.String
})

/** The change types the invoice's event log holds that `getInvoiceEvents` does not answer. @since 0.1.0 */
export const UNLISTED_CHANGE_TYPES: ReadonlySet<string> = new Set([PaymentChargedBack.fields.changeType.literals[0]])

/** The stored changes `getInvoiceEvents` answers. @since 0.1.0 */
export const listedChanges = (stored: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  stored.filter((c) => !UNLISTED_CHANGE_TYPES.has((c as { readonly changeType?: unknown } | null)?.changeType as string))

/** @since 0.1.0 @category schemas */
export const InvoiceChange = Schema.Union(
  InvoiceCreated,
  InvoiceStatusChanged,
  ...PaymentChange.members,
  RefundStarted,
  RefundStatusChanged
)
/** @since 0.1.0 */
export type InvoiceChange = typeof InvoiceChange.Type

/** @since 0.1.0 @category schemas */
export const InvoiceEvent = Schema.Struct({
  id: Schema.Int,
  createdAt: Schema.DateFromString,
  changes: Schema.Array(InvoiceChange)
}).annotations({ identifier: "InvoiceEvent" })
/** @since 0.1.0 */
export type InvoiceEvent = typeof InvoiceEvent.Type
