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
