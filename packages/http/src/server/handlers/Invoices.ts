/**
 * Handlers of the Invoices group.
 *
 * @since 0.1.0
 */
import { type Invoice, InvoiceService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty, resourceParty, withMerchantParty, withResourceParty } from "../Caller.js"
import * as Group from "./Group.js"

/** The handlers the lean router serves too. @since 0.1.0 */
export const hot = Effect.gen(function*() {
  const invoices = yield* InvoiceService.InvoiceService
  const reader = (id: string) => resourceParty("invoice", id, "Invoice")
  return {
    createInvoice: ({ payload }: { readonly payload: Invoice.InvoiceParams }) =>
      withMerchantParty((party) => invoices.create(party, payload)),
    getInvoiceByID: ({ path }: { readonly path: { readonly invoiceID: string } }) =>
      withResourceParty("invoice", path.invoiceID, "Invoice", (party) => invoices.get(party, path.invoiceID)),
    getInvoiceEvents: ({ path, urlParams }: {
      readonly path: { readonly invoiceID: string }
      readonly urlParams: { readonly limit: number; readonly eventID?: number | undefined }
    }) =>
      Effect.flatMap(reader(path.invoiceID), (party) => invoices.events(party, path.invoiceID, urlParams.limit, urlParams.eventID))
  }
})

/** The Invoices group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const invoices = yield* InvoiceService.InvoiceService
  const reader = (id: string) => resourceParty("invoice", id, "Invoice")
  const served = yield* hot
  return Group.handlers(KassaApi, "Invoices")({
    createInvoice: served.createInvoice,
    getInvoiceByExternalID: ({ urlParams }) =>
      Effect.flatMap(merchantParty, (party) => invoices.getByExternalID(party, urlParams.externalID)),
    getInvoiceByExternalIDForParty: ({ path, urlParams }) =>
      Effect.flatMap(namedParty(path.partyID), (party) => invoices.getByExternalID(party, urlParams.externalID)),
    getInvoiceByID: served.getInvoiceByID,
    createInvoiceAccessToken: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => invoices.accessToken(party, path.invoiceID)),
    getInvoiceEvents: served.getInvoiceEvents,
    fulfillInvoice: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => invoices.fulfill(party, path.invoiceID, payload.reason)).pipe(
        Effect.asVoid
      ),
    rescindInvoice: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => invoices.rescind(party, path.invoiceID, payload.reason)).pipe(
        Effect.asVoid
      ),
    getInvoicePaymentMethods: ({ path }) =>
      Effect.flatMap(reader(path.invoiceID), (party) => invoices.paymentMethods(party, path.invoiceID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Invoices", handlers)
