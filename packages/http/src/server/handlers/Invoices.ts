/**
 * Handlers of the Invoices group.
 *
 * @since 0.1.0
 */
import { type Invoice, InvoiceService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty, namedParty, withMerchantParty, withResourceParty } from "../Caller.js"
import * as Group from "./Group.js"

/** `f` of the party on whose behalf the caller reads invoice `id`. */
const withReader = <A, E, R>(id: string, f: (party: string) => Effect.Effect<A, E, R>) =>
  withResourceParty("invoice", id, "Invoice", f)

/** The handlers the lean router serves too. @since 0.1.0 */
export const hot = Effect.gen(function*() {
  const invoices = yield* InvoiceService.InvoiceService
  return {
    createInvoice: ({ payload }: { readonly payload: Invoice.InvoiceParams }) =>
      withMerchantParty((party) => invoices.create(party, payload)),
    getInvoiceByID: ({ path }: { readonly path: { readonly invoiceID: string } }) =>
      withReader(path.invoiceID, (party) => invoices.get(party, path.invoiceID)),
    getInvoiceEvents: ({ path, urlParams }: {
      readonly path: { readonly invoiceID: string }
      readonly urlParams: { readonly limit: number; readonly eventID?: number | undefined }
    }) =>
      withReader(path.invoiceID, (party) => invoices.events(party, path.invoiceID, urlParams.limit, urlParams.eventID))
  }
})

/** The Invoices group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const invoices = yield* InvoiceService.InvoiceService
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
      withReader(path.invoiceID, (party) => invoices.paymentMethods(party, path.invoiceID))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Invoices", handlers)
