/**
 * Handlers of the InvoiceTemplates group.
 *
 * @since 0.1.0
 */
import { InvoiceTemplateService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { externalIdNamespace, merchantParty, resourceParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The InvoiceTemplates group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const templates = yield* InvoiceTemplateService.InvoiceTemplateService
  const reader = (id: string) => resourceParty("invoiceTemplate", id, "Invoice template")
  return Group.handlers(KassaApi, "InvoiceTemplates")({
    createInvoiceTemplate: ({ payload }) =>
      Effect.flatMap(merchantParty, (party) => templates.create(party, payload)),
    getInvoiceTemplateByID: ({ path }) =>
      Effect.flatMap(reader(path.invoiceTemplateID), (party) => templates.get(party, path.invoiceTemplateID)),
    updateInvoiceTemplate: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => templates.update(party, path.invoiceTemplateID, payload)),
    deleteInvoiceTemplate: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => templates.delete(party, path.invoiceTemplateID)),
    createInvoiceWithTemplate: ({ path, payload }) =>
      Effect.flatMap(
        Effect.zip(reader(path.invoiceTemplateID), externalIdNamespace),
        ([party, namespace]) => templates.createInvoice(party, path.invoiceTemplateID, payload, namespace)
      ),
    getInvoicePaymentMethodsByTemplateID: ({ path }) =>
      Effect.flatMap(reader(path.invoiceTemplateID), (party) => templates.paymentMethods(party, path.invoiceTemplateID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "InvoiceTemplates", handlers)
