/**
 * Storage of chargebacks.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ChargebackRecord } from "../chargeback/Chargeback.js"

/** @since 0.1.0 @category tags */
export class ChargebackRepository extends Context.Tag("kassa/ChargebackRepository")<ChargebackRepository, {
  readonly findById: (invoiceID: string, paymentID: string, id: string) => Effect.Effect<Option.Option<ChargebackRecord>>
  readonly listByPayment: (invoiceID: string, paymentID: string) => Effect.Effect<ReadonlyArray<ChargebackRecord>>
  readonly insert: (chargeback: ChargebackRecord) => Effect.Effect<void>
  /** Writes `chargeback` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (chargeback: ChargebackRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
