/**
 * Handlers of the Refunds, Chargebacks and AdminChargebacks groups.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Chargeback, ChargebackService, Refund, RefundService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty } from "../Caller.js"

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

const Refunds = HttpApiBuilder.group(KassaApi, "Refunds", (handlers) =>
  Effect.gen(function*() {
    const refunds = yield* RefundService.RefundService
    const served = yield* hot
    return handlers
      .handle("getRefunds", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => refunds.list(party, path.invoiceID, path.paymentID)).pipe(
          Effect.map((list) => list.map(Refund.toRefund))
        ))
      .handle("createRefund", served.createRefund)
      .handle("getRefundByID", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => refunds.get(party, path.invoiceID, path.paymentID, path.refundID)).pipe(
          Effect.map(Refund.toRefund)
        ))
      .handle("getRefundByExternalID", ({ urlParams }) =>
        Effect.flatMap(merchantParty, (party) => refunds.getByExternalID(party, urlParams.externalID)).pipe(
          Effect.map(Refund.toRefund)
        ))
      .handle("getRefundByExternalIDForParty", ({ path, urlParams }) =>
        Effect.flatMap(namedParty(path.partyID), (party) => refunds.getByExternalID(party, urlParams.externalID)).pipe(
          Effect.map(Refund.toRefund)
        ))
  }))

const Chargebacks = HttpApiBuilder.group(KassaApi, "Chargebacks", (handlers) =>
  Effect.gen(function*() {
    const chargebacks = yield* ChargebackService.ChargebackService
    return handlers
      .handle("getChargebacks", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => chargebacks.list(party, path.invoiceID, path.paymentID)).pipe(
          Effect.map((list) => list.map(Chargeback.toChargeback))
        ))
      .handle("getChargebackByID", ({ path }) =>
        Effect.flatMap(
          merchantParty,
          (party) => chargebacks.get(party, path.invoiceID, path.paymentID, path.chargebackID)
        ).pipe(Effect.map(Chargeback.toChargeback)))
  }))

const AdminChargebacks = HttpApiBuilder.group(KassaApi, "AdminChargebacks", (handlers) =>
  Effect.gen(function*() {
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
    return handlers
      .handle("openChargeback", ({ path, payload }) =>
        chargebacks.open(path.invoiceID, path.paymentID, payload).pipe(Effect.map(Chargeback.toChargeback)))
      .handle("decideChargeback", ({ path, payload }) =>
        chargebacks.command(path.invoiceID, path.paymentID, path.chargebackID, commandOf(path.decision, payload)).pipe(
          Effect.map(Chargeback.toChargeback)
        ))
  }))

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Refunds, Chargebacks, AdminChargebacks)
