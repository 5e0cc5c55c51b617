/**
 * `InvoiceHistories` in memory: the events, invoice and payments of many invoices, from the
 * tables the event log and the repositories write.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { type InvoiceHistory, InvoiceHistories } from "../ports/InvoiceHistories.js"
import { byNumber } from "./internal/order.js"
import { eventsTable } from "./MemoryEventLog.js"
import { key, MemoryStore } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<InvoiceHistories, never, MemoryStore> = Layer.effect(
  InvoiceHistories,
  Effect.map(MemoryStore, (store) => {
    const events = eventsTable(store)
    const invoices = store.table<InvoiceRecord>("invoices")
    const payments = store.table<PaymentRecord>("payments")
    return {
      load: (invoiceIDs) =>
        Effect.gen(function*() {
          const data = new Map<string, InvoiceHistory>()
          if (invoiceIDs.length === 0) return data
          const allPayments = yield* payments.values
          for (const id of invoiceIDs) {
            const history = Option.getOrElse(yield* events.get(key("invoice", id)), () => [])
            data.set(id, {
              events: history.map((e) => ({ id: e.id, createdAt: e.createdAt, changes: e.changes })),
              invoice: Option.getOrUndefined(yield* invoices.get(id)),
              payments: byNumber(allPayments.filter((p) => p.invoiceID === id))
            })
          }
          return data
        })
    }
  })
)
