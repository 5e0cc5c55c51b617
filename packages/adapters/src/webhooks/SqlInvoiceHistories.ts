/**
 * `InvoiceHistories` on `SqlClient`: the events, invoices and payments of many invoices, one
 * statement each for all of them.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { InvoiceRecord } from "@kassa/core/invoice/Invoice"
import type { PaymentRecord } from "@kassa/core/payment/Payment"
import { type InvoiceHistory, InvoiceHistories } from "@kassa/core/ports/InvoiceHistories"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, reader } from "../internal/rows.js"
import { columns as invoiceColumns, fromRow as invoiceFromRow } from "../SqlInvoices.js"
import { columns as paymentColumns, fromRow as paymentFromRow } from "../SqlPayments.js"

/** An invoice's event, with the invoice it is of. */
const events = reader(
  Schema.Struct({ aggregateId: Schema.String, id: IntColumn, createdAt: DateColumn, changes: JsonColumn(Schema.Array(Schema.Unknown)) }),
  (r) => r
)

interface Building {
  readonly events: Array<InvoiceHistory["events"][number]>
  invoice: InvoiceRecord | undefined
  readonly payments: Array<PaymentRecord>
}

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  InvoiceHistories,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      load: (invoiceIDs) =>
        Effect.gen(function*() {
          const data = new Map<string, Building>()
          if (invoiceIDs.length === 0) return data
          for (const id of invoiceIDs) data.set(id, { events: [], invoice: undefined, payments: [] })
          const [eventRows, invoiceRows, paymentRows] = yield* Effect.all([
            sql`SELECT aggregate_id, id, created_at, changes FROM events
              WHERE aggregate_type = 'invoice' AND ${sql.in("aggregate_id", invoiceIDs)} ORDER BY aggregate_id, id`,
            sql`SELECT ${sql.literal(invoiceColumns)} FROM invoices WHERE ${sql.in("id", invoiceIDs)}`,
            sql`SELECT ${sql.literal(paymentColumns)} FROM payments WHERE ${sql.in("invoice_id", invoiceIDs)}`
          ])
          for (const { aggregateId, ...event } of events.all(eventRows)) data.get(aggregateId)?.events.push(event)
          for (const row of invoiceRows) {
            const invoice = invoiceFromRow(row)
            const entry = data.get(invoice.id)
            if (entry !== undefined) entry.invoice = invoice
          }
          for (const row of paymentRows) {
            const payment = paymentFromRow(row)
            data.get(payment.invoiceID)?.payments.push(payment)
          }
          for (const entry of data.values()) entry.payments.sort((x, y) => Number(x.id) - Number(y.id))
          return data
        }).pipe(Effect.orDie)
    }
  })
)
