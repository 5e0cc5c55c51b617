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
import { MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

/** Fields a read leaves out when they have no value. */
const optional = [
  "externalID",
  "description",
  "invoiceTemplateID",
  "cart",
  "allocation",
  "bankAccount",
  "clientInfo",
  "amountRandomized",
  "reason"
] as const

/** The invoice's identity and terms: what an update does not write. */
const fixed = ["id", "partyID", "shopID", "externalID", "createdAt", "dueDate", "amount", "currency", "product", "invoiceTemplateID"] as const

const stored = (i: InvoiceRecord) => omitUndefined(i, optional)

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<InvoiceRepository, never, MemoryStore> = Layer.effect(
  InvoiceRepository,
  Effect.map(MemoryStore, (store) => {
    const invoices = store.table<InvoiceRecord>("invoices")
    return {
      findById: (partyID, id) => Effect.map(invoices.get(id), Option.filter((i) => i.partyID === partyID)),
      findByIdUnscoped: (id) => invoices.get(id),
      insert: (i) => invoices.insert(i.id, stored(i)),
      // the SQL adapter writes the status, the active payment, the JSON data and the version
      update: (i, expected) =>
        updateIfVersion(store, invoices, i.id, expected, (before) => stored(withFields(i, before, fixed)))
    }
  })
)
