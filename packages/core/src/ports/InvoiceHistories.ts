/**
 * What invoice notifications are made from, read together for many invoices: each one's events
 * and its current invoice and payment records.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { StoredEvent } from "../Event.js"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"

/** @since 0.1.0 @category models */
export interface InvoiceHistory {
  /** Oldest first. */
  readonly events: ReadonlyArray<Pick<StoredEvent, "id" | "createdAt" | "changes">>
  readonly invoice: InvoiceRecord | undefined
  /** Oldest first. */
  readonly payments: ReadonlyArray<PaymentRecord>
}

/** @since 0.1.0 @category tags */
export class InvoiceHistories extends Context.Tag("kassa/InvoiceHistories")<InvoiceHistories, {
  /** The invoices' histories, by id (an invoice that does not exist: no events, no records). */
  readonly load: (invoiceIDs: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, InvoiceHistory>>
}>() {}
