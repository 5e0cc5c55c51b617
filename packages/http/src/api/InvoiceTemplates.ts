/**
 * Invoice templates.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { InvoiceTemplate, Reference } from "@kassa/core"
import * as Schema from "effect/Schema"
import { ExternalIdConflict } from "./Errors.js"
import { AccessToken, InvoiceAndToken } from "./Invoices.js"
import { Id } from "./Params.js"
import { Authentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const InvoiceTemplateAndToken = Schema.Struct({
  invoiceTemplate: InvoiceTemplate.InvoiceTemplate,
  invoiceTemplateAccessToken: AccessToken
}).annotations({ identifier: "InvoiceTemplateAndToken" })

const TemplatePath = Schema.Struct({ invoiceTemplateID: Id })

/** @since 0.1.0 @category groups */
export class InvoiceTemplatesGroup extends HttpApiGroup.make("InvoiceTemplates")
  .add(
    HttpApiEndpoint.post("createInvoiceTemplate", "/processing/invoice-templates")
      .setPayload(InvoiceTemplate.CreateParams)
      .addSuccess(InvoiceTemplateAndToken, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get("getInvoiceTemplateByID", "/processing/invoice-templates/:invoiceTemplateID")
      .setPath(TemplatePath)
      .addSuccess(InvoiceTemplate.InvoiceTemplate)
  )
  .add(
    HttpApiEndpoint.put("updateInvoiceTemplate", "/processing/invoice-templates/:invoiceTemplateID")
      .setPath(TemplatePath)
      .setPayload(InvoiceTemplate.UpdateParams)
      .addSuccess(InvoiceTemplate.InvoiceTemplate)
  )
  .add(
    HttpApiEndpoint.del("deleteInvoiceTemplate", "/processing/invoice-templates/:invoiceTemplateID")
      .setPath(TemplatePath)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.post("createInvoiceWithTemplate", "/processing/invoice-templates/:invoiceTemplateID/invoices")
      .setPath(TemplatePath)
      .setPayload(InvoiceTemplate.InvoiceParamsWithTemplate)
      .addSuccess(InvoiceAndToken, { status: 201 })
      .addError(ExternalIdConflict)
  )
  .add(
    HttpApiEndpoint.get(
      "getInvoicePaymentMethodsByTemplateID",
      "/processing/invoice-templates/:invoiceTemplateID/payment-methods"
    ).setPath(TemplatePath).addSuccess(Schema.Array(Reference.PaymentMethod))
  )
  .middleware(Authentication)
{}
