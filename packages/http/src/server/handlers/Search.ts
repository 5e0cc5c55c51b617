/**
 * Handlers of the Search and Analytics groups. On `/v1` (the older revision, whose searches
 * answer `{totalCount, result}`) invoice and payment searches always count; on `/v2` they count
 * when `offset` is given.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { SearchService } from "@kassa/core/search/SearchService"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty } from "../Caller.js"

/** Whether the request came in under `/v1`. */
const olderRevision = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => request.originalUrl.startsWith("/v1/")
)

const Search = HttpApiBuilder.group(KassaApi, "Search", (handlers) =>
  Effect.gen(function*() {
    const search = yield* SearchService
    return handlers
      .handle("searchInvoices", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const party = yield* merchantParty
          const totalCount = yield* olderRevision
          return yield* search.searchInvoices(party, path.shopID, urlParams, { totalCount })
        }))
      .handle("searchPayments", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const party = yield* merchantParty
          const totalCount = yield* olderRevision
          return yield* search.searchPayments(party, path.shopID, urlParams, { totalCount })
        }))
      .handle("searchRefunds", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.searchRefunds(party, path.shopID, urlParams)))
      .handle("searchPayouts", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.searchPayouts(party, path.shopID, urlParams)))
  }))

const Analytics = HttpApiBuilder.group(KassaApi, "Analytics", (handlers) =>
  Effect.gen(function*() {
    const search = yield* SearchService
    return handlers
      .handle("getPaymentMethodStats", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.paymentMethodStats(party, path.shopID, urlParams)))
      .handle("getPaymentRateStats", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.paymentRateStats(party, path.shopID, urlParams)))
      .handle("getPaymentConversionStats", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.paymentConversionStats(party, path.shopID, urlParams)))
      .handle("getPaymentGeoStats", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.paymentGeoStats(party, path.shopID, urlParams)))
      .handle("getPaymentRevenueStats", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => search.paymentRevenueStats(party, path.shopID, urlParams)))
  }))

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Search, Analytics)
