/**
 * Storage of invoice templates; deleted templates are not found.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { InvoiceTemplateRecord } from "../invoice-template/InvoiceTemplate.js"

/** @since 0.1.0 @category tags */
export class InvoiceTemplateRepository extends Context.Tag("kassa/InvoiceTemplateRepository")<InvoiceTemplateRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<InvoiceTemplateRecord>>
  readonly insert: (template: InvoiceTemplateRecord) => Effect.Effect<void>
  /** Writes `template` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (template: InvoiceTemplateRecord, expectedVersion: number) => Effect.Effect<boolean>
  readonly delete: (partyID: string, id: string, at: Date) => Effect.Effect<boolean>
}>() {}
