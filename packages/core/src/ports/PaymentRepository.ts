/**
 * Storage of payments. A payment's id is its number within its invoice ("1", "2", …).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"

/** @since 0.1.0 @category tags */
export class PaymentRepository extends Context.Tag("kassa/PaymentRepository")<PaymentRepository, {
  readonly findById: (invoiceID: string, id: string) => Effect.Effect<Option.Option<PaymentRecord>>
  /** The payment when it is `partyID`'s: a scoped read in one look-up. */
  readonly findOfParty: (partyID: string, invoiceID: string, id: string) => Effect.Effect<Option.Option<PaymentRecord>>
  /**
   * The payment when it is `partyID`'s (as `findOfParty` reads it) with its invoice (as
   * `InvoiceRepository.findById` reads it), in one look-up.
   */
  readonly findOfPartyWithInvoice: (partyID: string, invoiceID: string, id: string) => Effect.Effect<
    Option.Option<{ readonly payment: PaymentRecord; readonly invoice: InvoiceRecord }>
  >
  readonly listByInvoice: (invoiceID: string) => Effect.Effect<ReadonlyArray<PaymentRecord>>
  readonly findByInteraction: (interactionID: string) => Effect.Effect<Option.Option<PaymentRecord>>
  readonly insert: (payment: PaymentRecord) => Effect.Effect<void>
  /**
   * Writes `payment` if the stored version is still `expectedVersion`; answers whether it did.
   * Read under `Contention.expected` in the same transaction, it cannot lose.
   */
  readonly update: (payment: PaymentRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
