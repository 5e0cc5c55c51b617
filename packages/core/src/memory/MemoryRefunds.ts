/**
 * `RefundRepository` and `ChargebackRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ChargebackRecord } from "../chargeback/Chargeback.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { ChargebackRepository } from "../ports/ChargebackRepository.js"
import { RefundRepository } from "../ports/RefundRepository.js"
import type { RefundRecord } from "../refund/Refund.js"
import { byCreatedAt, byNumber } from "./internal/order.js"
import { key, MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const storedRefund = (r: RefundRecord) => omitUndefined(r, ["externalID", "reason", "cart", "allocation", "error"])

const storedChargeback = (c: ChargebackRecord) => omitUndefined(c, ["reasonCode"])

/** @since 0.1.0 @category layers */
export const refundsLayerMemory: Layer.Layer<RefundRepository, never, MemoryStore> = Layer.effect(
  RefundRepository,
  Effect.map(MemoryStore, (store) => {
    const refunds = store.table<RefundRecord>("refunds")
    const chargebacks = store.table<ChargebackRecord>("chargebacks")
    const payments = store.table<PaymentRecord>("payments")
    const listByPayment = (invoiceID: string, paymentID: string) =>
      Effect.map(refunds.values, (all) => byNumber(all.filter((r) => r.invoiceID === invoiceID && r.paymentID === paymentID)))
    const listWithChargebacks = (invoiceID: string, paymentID: string) =>
      Effect.zipWith(
        listByPayment(invoiceID, paymentID),
        chargebacks.values,
        (refunds, all) => ({
          refunds,
          chargebacks: byCreatedAt(all.filter((c) => c.invoiceID === invoiceID && c.paymentID === paymentID))
        })
      )
    return {
      findById: (invoiceID, paymentID, id) => refunds.get(key(invoiceID, paymentID, id)),
      findOfParty: (partyID, invoiceID, paymentID, id) =>
        Effect.map(refunds.get(key(invoiceID, paymentID, id)), Option.filter((r) => r.partyID === partyID)),
      listByPayment,
      listWithChargebacks,
      findPaymentOfParty: (partyID, invoiceID, paymentID) =>
        Effect.flatMap(payments.get(key(invoiceID, paymentID)), (found) =>
          Option.isNone(found) || found.value.partyID !== partyID
            ? Effect.succeedNone
            : Effect.map(listWithChargebacks(invoiceID, paymentID), (takenBack) => Option.some({ payment: found.value, ...takenBack }))),
      insert: (r) => refunds.insert(key(r.invoiceID, r.paymentID, r.id), storedRefund(r)),
      // the SQL adapter writes the status, the reason, cart, allocation and error, and the version
      update: (r, expected) =>
        updateIfVersion(store, refunds, key(r.invoiceID, r.paymentID, r.id), expected, (before) =>
          storedRefund(withFields(before, r, ["status", "reason", "cart", "allocation", "error", "version"])))
    }
  })
)

/** @since 0.1.0 @category layers */
export const chargebacksLayerMemory: Layer.Layer<ChargebackRepository, never, MemoryStore> = Layer.effect(
  ChargebackRepository,
  Effect.map(MemoryStore, (store) => {
    const chargebacks = store.table<ChargebackRecord>("chargebacks")
    return {
      findById: (invoiceID, paymentID, id) => chargebacks.get(key(invoiceID, paymentID, id)),
      listByPayment: (invoiceID, paymentID) =>
        Effect.map(chargebacks.values, (all) => byCreatedAt(all.filter((c) => c.invoiceID === invoiceID && c.paymentID === paymentID))),
      insert: (c) => chargebacks.insert(key(c.invoiceID, c.paymentID, c.id), storedChargeback(c)),
      // the SQL adapter writes the amounts, stage, status and version
      update: (c, expected) =>
        updateIfVersion(store, chargebacks, key(c.invoiceID, c.paymentID, c.id), expected, (before) =>
          withFields(before, c, ["body", "levy", "stage", "status", "version"]))
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layerMemory = Layer.mergeAll(refundsLayerMemory, chargebacksLayerMemory)
