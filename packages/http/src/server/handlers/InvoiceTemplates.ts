/**
 * Handlers of the InvoiceTemplates group.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { InvoiceTemplateService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { externalIdNamespace, merchantParty, resourceParty } from "../Caller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "InvoiceTemplates", (handlers) =>
  Effect.gen(function*() {
    const templates = yield* InvoiceTemplateService.InvoiceTemplateService
    const reader = (id: string) => resourceParty("invoiceTemplate", id, "Invoice template")
    return handlers
      .handle("createInvoiceTemplate", ({ payload }) =>
        Effect.flatMap(merchantParty, (party) => templates.create(party, payload)))
      .handle("getInvoiceTemplateByID", ({ path }) =>
        Effect.flatMap(reader(path.invoiceTemplateID), (party) => templates.get(party, path.invoiceTemplateID)))
      .handle("updateInvoiceTemplate", ({ path, payload }) =>
        Effect.flatMap(merchantParty, (party) => templates.update(party, path.invoiceTemplateID, payload)))
      .handle("deleteInvoiceTemplate", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => templates.delete(party, path.invoiceTemplateID)))
      .handle("createInvoiceWithTemplate", ({ path, payload }) =>
        Effect.flatMap(
          Effect.zip(reader(path.invoiceTemplateID), externalIdNamespace),
          ([party, namespace]) => templates.createInvoice(party, path.invoiceTemplateID, payload, namespace)
        ))
      .handle("getInvoicePaymentMethodsByTemplateID", ({ path }) =>
        Effect.flatMap(reader(path.invoiceTemplateID), (party) => templates.paymentMethods(party, path.invoiceTemplateID)))
  }))
