/**
 * `InvoiceTemplateRepository` in memory; a deleted template stays stored, found by no read.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { InvoiceTemplateRecord } from "../invoice-template/InvoiceTemplate.js"
import { InvoiceTemplateRepository } from "../ports/InvoiceTemplateRepository.js"
import { MemoryStore, withFields } from "./MemoryStore.js"

interface Stored {
  readonly template: InvoiceTemplateRecord
  readonly deletedAt: Date | undefined
}

/** A template as a read answers it: every field present, those without a value undefined. */
const complete = (t: InvoiceTemplateRecord): InvoiceTemplateRecord => ({
  id: t.id,
  partyID: t.partyID,
  shopID: t.shopID,
  externalID: t.externalID,
  name: t.name,
  description: t.description,
  createdAt: t.createdAt,
  lifetime: t.lifetime,
  details: t.details,
  metadata: t.metadata,
  randomizeAmount: t.randomizeAmount,
  version: t.version
})

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<InvoiceTemplateRepository, never, MemoryStore> = Layer.effect(
  InvoiceTemplateRepository,
  Effect.map(MemoryStore, (store) => {
    const templates = store.table<Stored>("invoice_templates")
    const live = (id: string) => Effect.map(templates.get(id), Option.filter((s) => s.deletedAt === undefined))
    return {
      findById: (partyID, id) =>
        Effect.map(live(id), (found) => Option.filter(Option.map(found, (s) => s.template), (t) => t.partyID === partyID)),
      insert: (t) => templates.insert(t.id, { template: complete(t), deletedAt: undefined }),
      update: (t, expected) =>
        store.transaction(Effect.flatMap(live(t.id), (found) =>
          Option.isNone(found) || found.value.template.version !== expected
            ? Effect.succeed(false)
            : Effect.as(templates.set(t.id, {
              deletedAt: undefined,
              // the SQL adapter writes the template's data and version, never its identity
              template: complete(withFields(t, found.value.template, ["id", "partyID", "shopID", "externalID", "createdAt"]))
            }), true))),
      delete: (partyID, id, at) =>
        store.transaction(Effect.flatMap(live(id), (found) =>
          Option.isNone(found) || found.value.template.partyID !== partyID
            ? Effect.succeed(false)
            : Effect.as(templates.set(id, { ...found.value, deletedAt: at }), true)))
    }
  })
)
