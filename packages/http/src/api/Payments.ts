/**
 * Payments of an invoice, and the payment resources (tokenization) they are made with.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Invoice, Payment, PaymentTool } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ExternalIdConflict } from "./Errors.js"
import { Id, PartyIdParam } from "./Params.js"
import { Authentication } from "./Security.js"

const InvoicePath = Schema.Struct({ invoiceID: Id })
const PaymentPath = Schema.Struct({ invoiceID: Id, paymentID: Id })
const ByExternalID = Schema.Struct({ externalID: Id })

/** @since 0.1.0 @category groups */
export class PaymentsGroup extends HttpApiGroup.make("Payments")
  .add(
    HttpApiEndpoint.get("getPayments", "/processing/invoices/:invoiceID/payments")
      .setPath(InvoicePath)
      .addSuccess(Schema.Array(Payment.Payment))
  )
  .add(
    HttpApiEndpoint.post("createPayment", "/processing/invoices/:invoiceID/payments")
      .setPath(InvoicePath)
      .setPayload(Payment.PaymentParams)
      .addSuccess(Payment.Payment, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get("getPaymentByID", "/processing/invoices/:invoiceID/payments/:paymentID")
      .setPath(PaymentPath)
      .addSuccess(Payment.Payment)
  )
  .add(
    HttpApiEndpoint.post("cancelPayment", "/processing/invoices/:invoiceID/payments/:paymentID/cancel")
      .setPath(PaymentPath)
      .setPayload(Invoice.Reason)
      .addSuccess(HttpApiSchema.Empty(202))
  )
  .add(
    HttpApiEndpoint.post("capturePayment", "/processing/invoices/:invoiceID/payments/:paymentID/capture")
      .setPath(PaymentPath)
      .setPayload(Payment.CaptureParams)
      .addSuccess(HttpApiSchema.Empty(202))
  )
  .add(
    HttpApiEndpoint.get("getPaymentByExternalID", "/processing/payments").setUrlParams(ByExternalID).addSuccess(
      Payment.Payment
    )
  )
  .add(
    HttpApiEndpoint.get("getPaymentByExternalIDForParty", "/processing/parties/:partyID/payments")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .setUrlParams(ByExternalID)
      .addSuccess(Payment.Payment)
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class TokensGroup extends HttpApiGroup.make("Tokens")
  .add(
    HttpApiEndpoint.post("createPaymentResource", "/processing/payment-resources")
      .setPayload(PaymentTool.PaymentResourceParams)
      .addSuccess(PaymentTool.PaymentResourceResult, { status: 201 })
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category schemas */
export const Account = Schema.Struct({
  id: Schema.Int,
  ownAmount: Schema.Int,
  availableAmount: Schema.Int,
  currency: Schema.String
}).annotations({ identifier: "Account" })

/** @since 0.1.0 @category groups */
export class AccountsGroup extends HttpApiGroup.make("Accounts")
  .add(
    HttpApiEndpoint.get("getAccountByID", "/processing/accounts/:accountID")
      .setPath(Schema.Struct({ accountID: Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)) }))
      .addSuccess(Account)
  )
  .middleware(Authentication)
{}
