/**
 * Handlers of the Refunds, Chargebacks and AdminChargebacks groups.
 *
 * @since 0.1.0
 */
import { Chargeback, ChargebackService, Refund, RefundService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The handlers the lean router serves too. @since 0.1.0 */
export const hot = Effect.gen(function*() {
  const refunds = yield* RefundService.RefundService
  return {
    createRefund: ({ path, payload }: {
      readonly path: { readonly invoiceID: string; readonly paymentID: string }
      readonly payload: typeof Refund.RefundParams.Type
    }) =>
      Effect.flatMap(merchantParty, (party) => refunds.create(party, path.invoiceID, path.paymentID, payload)).pipe(
        Effect.map(Refund.toRefund)
      )
  }
})

/** The Refunds group's handlers, by operation. @since 0.1.0 @category handlers */
export const refundsHandlers = Effect.gen(function*() {
  const refunds = yield* RefundService.RefundService
  const served = yield* hot
  return Group.handlers(KassaApi, "Refunds")({
    getRefunds: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => refunds.list(party, path.invoiceID, path.paymentID)).pipe(
        Effect.map((list) => list.map(Refund.toRefund))
      ),
    createRefund: served.createRefund,
    getRefundByID: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => refunds.get(party, path.invoiceID, path.paymentID, path.refundID)).pipe(
        Effect.map(Refund.toRefund)
      ),
    getRefundByExternalID: ({ urlParams }) =>
      Effect.flatMap(merchantParty, (party) => refunds.getByExternalID(party, urlParams.externalID)).pipe(
        Effect.map(Refund.toRefund)
      ),
    getRefundByExternalIDForParty: ({ path, urlParams }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => refunds.getByExternalID(party, urlParams.externalID)).pipe(
        Effect.map(Refund.toRefund)
      )
  })
})

const Refunds = Group.layer(KassaApi, "Refunds", refundsHandlers)

/** The Chargebacks group's handlers, by operation. @since 0.1.0 @category handlers */
export const chargebacksHandlers = Effect.gen(function*() {
  const chargebacks = yield* ChargebackService.ChargebackService
  return Group.handlers(KassaApi, "Chargebacks")({
    getChargebacks: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => chargebacks.list(party, path.invoiceID, path.paymentID)).pipe(
        Effect.map((list) => list.map(Chargeback.toChargeback))
      ),
    getChargebackByID: ({ path }) =>
      Effect.flatMap(
        merchantParty,
        (party) => chargebacks.get(party, path.invoiceID, path.paymentID, path.chargebackID)
      ).pipe(Effect.map(Chargeback.toChargeback))
  })
})

const Chargebacks = Group.layer(KassaApi, "Chargebacks", chargebacksHandlers)

/** The AdminChargebacks group's handlers, by operation. @since 0.1.0 @category handlers */
export const adminChargebacksHandlers = Effect.gen(function*() {
  const chargebacks = yield* ChargebackService.ChargebackService
  const commandOf = (decision: "accept" | "reject" | "cancel" | "reopen", d: Chargeback.ChargebackDecision) => {
    switch (decision) {
      case "accept":
        return Chargeback.ChargebackCommand.Accept({ body: d.body, levy: d.levy })
      case "reject":
        return Chargeback.ChargebackCommand.Reject({ levy: d.levy })
      case "cancel":
        return Chargeback.ChargebackCommand.Cancel()
      case "reopen":
        return Chargeback.ChargebackCommand.Reopen({ body: d.body, levy: d.levy, stage: d.stage })
    }
  }
  return Group.handlers(KassaApi, "AdminChargebacks")({
    openChargeback: ({ path, payload }) =>
      chargebacks.open(path.invoiceID, path.paymentID, payload).pipe(Effect.map(Chargeback.toChargeback)),
    decideChargeback: ({ path, payload }) =>
      chargebacks.command(path.invoiceID, path.paymentID, path.chargebackID, commandOf(path.decision, payload)).pipe(
        Effect.map(Chargeback.toChargeback)
      )
  })
})

const AdminChargebacks = Group.layer(KassaApi, "AdminChargebacks", adminChargebacksHandlers)

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Refunds, Chargebacks, AdminChargebacks)
