/**
 * Storage of invoices. Reads are scoped by party; the due-date timer reads by id alone.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"

/** @since 0.1.0 @category tags */
export class InvoiceRepository extends Context.Tag("kassa/InvoiceRepository")<InvoiceRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<InvoiceRecord>>
  /** For background work that only knows the id (timers). */
  readonly findByIdUnscoped: (id: string) => Effect.Effect<Option.Option<InvoiceRecord>>
  readonly insert: (invoice: InvoiceRecord) => Effect.Effect<void>
  /**
   * Writes `invoice` if the stored version is still `expectedVersion`; answers whether it did.
   * Read under `Contention.expected` in the same transaction, it cannot lose.
   */
  readonly update: (invoice: InvoiceRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
