/**
 * `PaymentRepository` and `PaymentResourceRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { type PaymentResourceRecord, PaymentResourceRepository } from "../ports/PaymentResourceRepository.js"
import { byNumber } from "./internal/order.js"
import { key, MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

/** A payment as a read answers it: optional fields without a value left out, `chargedBack` only when true. */
const stored = (p: PaymentRecord): PaymentRecord => {
  const out = omitUndefined(p, ["externalID", "transactionInfo", "metadata", "allocation", "error"])
  if (out.chargedBack === true || !("chargedBack" in out)) return out
  const { chargedBack: _, ...rest } = out
  return rest
}

/** The payment's identity, creation, currency and flow: what an update does not write. */
const fixed = ["id", "invoiceID", "partyID", "shopID", "externalID", "createdAt", "currency", "flow"] as const

/** @since 0.1.0 @category layers */
export const paymentsLayerMemory: Layer.Layer<PaymentRepository, never, MemoryStore> = Layer.effect(
  PaymentRepository,
  Effect.map(MemoryStore, (store) => {
    const payments = store.table<PaymentRecord>("payments")
    const invoices = store.table<InvoiceRecord>("invoices")
    const findOfParty = (partyID: string, invoiceID: string, id: string) =>
      Effect.map(payments.get(key(invoiceID, id)), Option.filter((p) => p.partyID === partyID))
    const findBy = (p: (payment: PaymentRecord) => boolean) => Effect.map(payments.values, (all) => Option.fromNullable(all.find(p)))
    return {
      findById: (invoiceID, id) => payments.get(key(invoiceID, id)),
      findOfParty,
      findOfPartyWithInvoice: (partyID, invoiceID, id) =>
        Effect.zipWith(
          findOfParty(partyID, invoiceID, id),
          invoices.get(invoiceID),
          (payment, invoice) => Option.all({ payment, invoice })
        ),
      listByInvoice: (invoiceID) => Effect.map(payments.values, (all) => byNumber(all.filter((p) => p.invoiceID === invoiceID))),
      findByInteraction: (interactionID) => findBy((p) => p.interactionID === interactionID),
      insert: (p) => payments.insert(key(p.invoiceID, p.id), stored(p)),
      update: (p, expected) =>
        updateIfVersion(store, payments, key(p.invoiceID, p.id), expected, (before) => stored(withFields(p, before, fixed)))
    }
  })
)

/** @since 0.1.0 @category layers */
export const resourcesLayerMemory: Layer.Layer<PaymentResourceRepository, never, MemoryStore> = Layer.effect(
  PaymentResourceRepository,
  Effect.map(MemoryStore, (store) => {
    const resources = store.table<PaymentResourceRecord>("payment_resources")
    const invoices = store.table<InvoiceRecord>("invoices")
    return {
      insert: (r) => resources.insert(r.token, r),
      findByToken: (token) => resources.get(token),
      findWithInvoice: (partyID, invoiceID, token) =>
        Effect.zipWith(
          Effect.map(invoices.get(invoiceID), Option.filter((i) => i.partyID === partyID)),
          resources.get(token),
          (invoice, resource) => ({ invoice, resource })
        )
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layerMemory = Layer.mergeAll(paymentsLayerMemory, resourcesLayerMemory)
