/**
 * Storage of payment resources: a payment tool token and its session, bound to the party that
 * created them and valid until a moment.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { ClientInfo, PaymentToolDetails, StoredTool } from "../payment/PaymentTool.js"

/** @since 0.1.0 @category models */
export interface PaymentResourceRecord {
  readonly token: string
  readonly session: string
  readonly partyID: string
  readonly tool: StoredTool
  readonly details: PaymentToolDetails
  readonly clientInfo: ClientInfo
  /** The vault session holding the CVV, if any. */
  readonly vaultSession: string | undefined
  readonly createdAt: Date
  readonly validUntil: Date
}

/** @since 0.1.0 @category tags */
export class PaymentResourceRepository extends Context.Tag("kassa/PaymentResourceRepository")<PaymentResourceRepository, {
  readonly insert: (resource: PaymentResourceRecord) => Effect.Effect<void>
  readonly findByToken: (token: string) => Effect.Effect<Option.Option<PaymentResourceRecord>>
  /**
   * What a payment of an invoice with a resource starts from: the invoice when it is `partyID`'s
   * (as `InvoiceRepository.findById` reads it) and the resource (as `findByToken` reads it), in
   * one look-up.
   */
  readonly findWithInvoice: (partyID: string, invoiceID: string, token: string) => Effect.Effect<{
    readonly invoice: Option.Option<InvoiceRecord>
    readonly resource: Option.Option<PaymentResourceRecord>
  }>
}>() {}
