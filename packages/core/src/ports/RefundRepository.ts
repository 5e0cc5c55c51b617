/**
 * Storage of refunds. A refund's id is its number within its payment ("1", "2", …).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ChargebackRecord } from "../chargeback/Chargeback.js"
import type { PaymentRecord } from "../payment/Payment.js"
import type { RefundRecord } from "../refund/Refund.js"

/** @since 0.1.0 @category tags */
export class RefundRepository extends Context.Tag("kassa/RefundRepository")<RefundRepository, {
  readonly findById: (invoiceID: string, paymentID: string, id: string) => Effect.Effect<Option.Option<RefundRecord>>
  /** The refund when it is `partyID`'s: a scoped read in one look-up. */
  readonly findOfParty: (
    partyID: string,
    invoiceID: string,
    paymentID: string,
    id: string
  ) => Effect.Effect<Option.Option<RefundRecord>>
  readonly listByPayment: (invoiceID: string, paymentID: string) => Effect.Effect<ReadonlyArray<RefundRecord>>
  /**
   * What has been taken back of a payment, as the refund rule weighs it: its refunds (by number)
   * and its chargebacks (as `ChargebackRepository.listByPayment` lists them), in one look-up.
   */
  readonly listWithChargebacks: (invoiceID: string, paymentID: string) => Effect.Effect<{
    readonly refunds: ReadonlyArray<RefundRecord>
    readonly chargebacks: ReadonlyArray<ChargebackRecord>
  }>
  /**
   * What a refund of a payment is decided on: the payment when it is `partyID`'s (as
   * `PaymentRepository.findOfParty` reads it), with what has been taken back of it (as
   * `listWithChargebacks` lists it), in one look-up.
   */
  readonly findPaymentOfParty: (partyID: string, invoiceID: string, paymentID: string) => Effect.Effect<
    Option.Option<{
      readonly payment: PaymentRecord
      readonly refunds: ReadonlyArray<RefundRecord>
      readonly chargebacks: ReadonlyArray<ChargebackRecord>
    }>
  >
  readonly insert: (refund: RefundRecord) => Effect.Effect<void>
  /** Writes `refund` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (refund: RefundRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
