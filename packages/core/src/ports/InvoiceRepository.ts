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
  /** Writes `invoice` if the stored version is still `invoice.version - 1`; answers whether it did. */
  readonly update: (invoice: InvoiceRecord) => Effect.Effect<boolean>
  /**
   * Inside a transaction: reads the invoice by id and keeps other writers off it until the
   * transaction ends (they wait, then find a newer version).
   */
  readonly findForUpdate: (id: string) => Effect.Effect<Option.Option<InvoiceRecord>>
  /**
   * Writes `invoice` over the version `findForUpdate` read in the same transaction. Nothing can
   * have changed it since, so nobody needs an answer: the storage may hold the write back with
   * the transaction's other writes.
   */
  readonly overwrite: (invoice: InvoiceRecord) => Effect.Effect<void>
}>() {}
