/**
 * Refunds and chargebacks of a payment; the operator's chargeback decisions.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Chargeback, Refund } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ExternalIdConflict } from "./Errors.js"
import { Id, PartyIdParam } from "./Params.js"
import { Authentication, OperatorAuthentication } from "./Security.js"

const PaymentPath = Schema.Struct({ invoiceID: Id, paymentID: Id })
const ByExternalID = Schema.Struct({ externalID: Id })

/** @since 0.1.0 @category groups */
export class RefundsGroup extends HttpApiGroup.make("Refunds")
  .add(
    HttpApiEndpoint.get("getRefunds", "/processing/invoices/:invoiceID/payments/:paymentID/refunds")
      .setPath(PaymentPath)
      .addSuccess(Schema.Array(Refund.Refund))
  )
  .add(
    HttpApiEndpoint.post("createRefund", "/processing/invoices/:invoiceID/payments/:paymentID/refunds")
      .setPath(PaymentPath)
      .setPayload(Refund.RefundParams)
      .addSuccess(Refund.Refund, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get("getRefundByID", "/processing/invoices/:invoiceID/payments/:paymentID/refunds/:refundID")
      .setPath(Schema.Struct({ invoiceID: Id, paymentID: Id, refundID: Id }))
      .addSuccess(Refund.Refund)
  )
  .add(HttpApiEndpoint.get("getRefundByExternalID", "/processing/refunds").setUrlParams(ByExternalID).addSuccess(Refund.Refund))
  .add(
    HttpApiEndpoint.get("getRefundByExternalIDForParty", "/processing/parties/:partyID/refunds")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .setUrlParams(ByExternalID)
      .addSuccess(Refund.Refund)
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class ChargebacksGroup extends HttpApiGroup.make("Chargebacks")
  .add(
    HttpApiEndpoint.get("getChargebacks", "/processing/invoices/:invoiceID/payments/:paymentID/chargebacks")
      .setPath(PaymentPath)
      .addSuccess(Schema.Array(Chargeback.Chargeback))
  )
  .add(
    HttpApiEndpoint.get(
      "getChargebackByID",
      "/processing/invoices/:invoiceID/payments/:paymentID/chargebacks/:chargebackID"
    ).setPath(Schema.Struct({ invoiceID: Id, paymentID: Id, chargebackID: Id })).addSuccess(Chargeback.Chargeback)
  )
  .middleware(Authentication)
{}

const ChargebackPath = Schema.Struct({
  invoiceID: Id,
  paymentID: Id,
  chargebackID: Id,
  decision: Schema.Literal("accept", "reject", "cancel", "reopen")
})

/** @since 0.1.0 @category groups */
export class AdminChargebacksGroup extends HttpApiGroup.make("AdminChargebacks")
  .add(
    HttpApiEndpoint.post("openChargeback", "/invoices/:invoiceID/payments/:paymentID/chargebacks")
      .setPath(PaymentPath)
      .setPayload(Chargeback.ChargebackParams)
      .addSuccess(Chargeback.Chargeback, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("decideChargeback", "/invoices/:invoiceID/payments/:paymentID/chargebacks/:chargebackID/:decision")
      .setPath(ChargebackPath)
      .setPayload(Chargeback.ChargebackDecision)
      .addSuccess(Chargeback.Chargeback)
  )
  .middleware(OperatorAuthentication)
  .prefix("/admin/v1")
{}
