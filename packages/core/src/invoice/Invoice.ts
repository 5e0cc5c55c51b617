/**
 * The invoice: a container for payments, with goods data, a shop and a limited lifetime.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { DateTime, Metadata } from "../Time.js"
import { AmountRandomized, RandomizeAmount } from "./RandomizeAmount.js"

/** @since 0.1.0 @category schemas */
export const InvoiceStatus = Schema.Literal("unpaid", "cancelled", "paid", "fulfilled")
/** @since 0.1.0 */
export type InvoiceStatus = typeof InvoiceStatus.Type

/** @since 0.1.0 @category schemas */
export const BankAccount = Schema.Struct({
  accountType: Schema.Literal("InvoiceRussianBankAccount"),
  account: Schema.String.pipe(Schema.pattern(/^\d{20}$/)),
  bankBik: Schema.String.pipe(Schema.pattern(/^\d{9}$/))
})

/** @since 0.1.0 @category schemas */
export const ClientInfo = Schema.Struct({ trustLevel: Schema.Literal("wellKnown", "unknown") })

/** @since 0.1.0 @category schemas */
export const Product = Schema.String.pipe(Schema.maxLength(100))
/** @since 0.1.0 @category schemas */
export const Description = Schema.String.pipe(Schema.maxLength(1000))
/** @since 0.1.0 @category schemas */
export const Reason = Schema.Struct({ reason: Schema.String.pipe(Schema.maxLength(1000)) })

/**
 * The invoice as the interface shows it.
 *
 * @since 0.1.0 @category schemas
 */
export const Invoice = Schema.Struct({
  id: Schema.String,
  shopID: Schema.String,
  externalID: Schema.optional(Schema.String),
  createdAt: DateTime,
  dueDate: DateTime,
  amount: Schema.Int,
  currency: Schema.String,
  product: Schema.String,
  description: Schema.optional(Schema.String),
  invoiceTemplateID: Schema.optional(Schema.String),
  cart: Schema.optional(Schema.Array(Cart.InvoiceLine)),
  allocation: Schema.optional(Schema.Array(Allocation.AllocationTransaction)),
  bankAccount: Schema.optional(BankAccount),
  metadata: Metadata,
  clientInfo: Schema.optional(ClientInfo),
  amountRandomized: Schema.optional(AmountRandomized),
  status: InvoiceStatus,
  reason: Schema.optional(Schema.String)
}).annotations({ identifier: "Invoice" })
/** @since 0.1.0 */
export type Invoice = typeof Invoice.Type

/**
 * The invoice as stored: the interface's fields plus its party, the payment in flight (if any)
 * and its version.
 *
 * @since 0.1.0 @category models
 */
export interface InvoiceRecord extends Invoice {
  readonly partyID: string
  readonly activePaymentID: string | undefined
  /** The payments started on it, which numbers the next one. */
  readonly paymentCount: number
  readonly version: number
}

/**
 * createInvoice's body.
 *
 * @since 0.1.0 @category schemas
 */
export const InvoiceParams = Schema.Struct({
  shopID: Identifier,
  partyID: Schema.optional(Identifier),
  externalID: Schema.optional(Identifier),
  dueDate: DateTime,
  amount: Schema.optional(Amount),
  randomizeAmount: Schema.optional(RandomizeAmount),
  currency: Currency,
  product: Product,
  description: Schema.optional(Description),
  cart: Schema.optional(Cart.CartParam),
  allocation: Schema.optional(Allocation.AllocationParams),
  bankAccount: Schema.optional(BankAccount),
  metadata: Metadata,
  clientInfo: Schema.optional(ClientInfo)
}).annotations({ identifier: "InvoiceParams" })
/** @since 0.1.0 */
export type InvoiceParams = typeof InvoiceParams.Type

/** The invoice as the interface answers a read: no bookkeeping. @since 0.1.0 */
export const toInvoice = (r: InvoiceRecord): Invoice => {
  const { activePaymentID: _a, partyID: _p, paymentCount: _c, version: _v, ...invoice } = r
  return invoice
}
