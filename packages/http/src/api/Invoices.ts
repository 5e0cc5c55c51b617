/**
 * Invoices.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Invoice, InvoiceChange, Reference } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ExternalIdConflict } from "./Errors.js"
import { Id, Int32FromString, PartyIdParam } from "./Params.js"
import { Authentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const AccessToken = Schema.Struct({ payload: Schema.String }).annotations({ identifier: "AccessToken" })

/** @since 0.1.0 @category schemas */
export const InvoiceAndToken = Schema.Struct({
  invoice: Invoice.Invoice,
  invoiceAccessToken: AccessToken
}).annotations({ identifier: "InvoiceAndToken" })

const InvoicePath = Schema.Struct({ invoiceID: Id })
const ByExternalID = Schema.Struct({ externalID: Id })

/** @since 0.1.0 @category groups */
export class InvoicesGroup extends HttpApiGroup.make("Invoices")
  .add(
    HttpApiEndpoint.post("createInvoice", "/processing/invoices")
      .setPayload(Invoice.InvoiceParams)
      .addSuccess(InvoiceAndToken, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get("getInvoiceByExternalID", "/processing/invoices").setUrlParams(ByExternalID).addSuccess(
      Invoice.Invoice
    )
  )
  .add(
    HttpApiEndpoint.get("getInvoiceByExternalIDForParty", "/processing/parties/:partyID/invoices")
      .setPath(Schema.Struct({ partyID: PartyIdParam }))
      .setUrlParams(ByExternalID)
      .addSuccess(Invoice.Invoice)
  )
  .add(HttpApiEndpoint.get("getInvoiceByID", "/processing/invoices/:invoiceID").setPath(InvoicePath).addSuccess(Invoice.Invoice))
  .add(
    HttpApiEndpoint.post("createInvoiceAccessToken", "/processing/invoices/:invoiceID/access-tokens")
      .setPath(InvoicePath)
      .addSuccess(AccessToken, { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("getInvoiceEvents", "/processing/invoices/:invoiceID/events")
      .setPath(InvoicePath)
      .setUrlParams(Schema.Struct({
        limit: Int32FromString.pipe(Schema.greaterThanOrEqualTo(1)),
        eventID: Schema.optional(Int32FromString)
      }))
      .addSuccess(Schema.Array(InvoiceChange.InvoiceEvent))
  )
  .add(
    HttpApiEndpoint.post("fulfillInvoice", "/processing/invoices/:invoiceID/fulfill")
      .setPath(InvoicePath)
      .setPayload(Invoice.Reason)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.post("rescindInvoice", "/processing/invoices/:invoiceID/rescind")
      .setPath(InvoicePath)
      .setPayload(Invoice.Reason)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.get("getInvoicePaymentMethods", "/processing/invoices/:invoiceID/payment-methods")
      .setPath(InvoicePath)
      .addSuccess(Schema.Array(Reference.PaymentMethod))
  )
  .middleware(Authentication)
{}
