/**
 * Handlers of the Search and Analytics groups. On `/v1` (the older revision, whose searches
 * answer `{totalCount, result}`) invoice and payment searches always count; on `/v2` they count
 * when `offset` is given.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { SearchService } from "@kassa/core/search/SearchService"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { merchantParty } from "../Caller.js"
import * as Group from "./Group.js"

/** Whether the request came in under `/v1`. */
const olderRevision = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => request.originalUrl.startsWith("/v1/")
)

/** The Search group's handlers, by operation. @since 0.1.0 @category handlers */
export const searchHandlers = Effect.gen(function*() {
  const search = yield* SearchService
  return Group.handlers(KassaApi, "Search")({
    searchInvoices: ({ path, urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        const totalCount = yield* olderRevision
        return yield* search.searchInvoices(party, path.shopID, urlParams, { totalCount })
      }),
    searchPayments: ({ path, urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        const totalCount = yield* olderRevision
        return yield* search.searchPayments(party, path.shopID, urlParams, { totalCount })
      }),
    searchRefunds: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.searchRefunds(party, path.shopID, urlParams)),
    searchPayouts: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.searchPayouts(party, path.shopID, urlParams))
  })
})

const Search = Group.layer(KassaApi, "Search", searchHandlers)

/** The Analytics group's handlers, by operation. @since 0.1.0 @category handlers */
export const analyticsHandlers = Effect.gen(function*() {
  const search = yield* SearchService
  return Group.handlers(KassaApi, "Analytics")({
    getPaymentMethodStats: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.paymentMethodStats(party, path.shopID, urlParams)),
    getPaymentRateStats: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.paymentRateStats(party, path.shopID, urlParams)),
    getPaymentConversionStats: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.paymentConversionStats(party, path.shopID, urlParams)),
    getPaymentGeoStats: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.paymentGeoStats(party, path.shopID, urlParams)),
    getPaymentRevenueStats: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => search.paymentRevenueStats(party, path.shopID, urlParams))
  })
})

const Analytics = Group.layer(KassaApi, "Analytics", analyticsHandlers)

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Search, Analytics)
