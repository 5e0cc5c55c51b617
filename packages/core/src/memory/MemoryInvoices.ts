/**
 * `InvoiceRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import { InvoiceRepository } from "../ports/InvoiceRepository.js"
import { MemoryStore, updateIfVersion } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<InvoiceRepository, never, MemoryStore> = Layer.effect(
  InvoiceRepository,
  Effect.map(MemoryStore, (store) => {
    const invoices = store.table<InvoiceRecord>("invoices")
    return {
      findById: (partyID, id) => Effect.map(invoices.get(id), Option.filter((i) => i.partyID === partyID)),
      findByIdUnscoped: (id) => invoices.get(id),
      insert: (i) => invoices.insert(i.id, i),
      // the SQL adapter writes the status, the active payment, the JSON data and the version
      update: (i, expected) =>
        updateIfVersion(store, invoices, i.id, expected, (stored) => ({
          ...i,
          id: stored.id,
          partyID: stored.partyID,
          shopID: stored.shopID,
          externalID: stored.externalID,
          createdAt: stored.createdAt,
          dueDate: stored.dueDate,
          amount: stored.amount,
          currency: stored.currency,
          product: stored.product,
          invoiceTemplateID: stored.invoiceTemplateID
        }))
    }
  })
)
