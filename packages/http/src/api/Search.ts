/**
 * Search and analytics of a shop: the three searches of the newer revision (whose paths the
 * older one shares, with `offset` paging and `bin` / `cardNumberMask`), the older revision's
 * payout search and its five payment statistics.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as SearchParams from "@kassa/core/search/SearchParams"
import * as SearchResults from "@kassa/core/search/SearchResults"
import * as Statistics from "@kassa/core/search/Statistics"
import * as Schema from "effect/Schema"
import { Id } from "./Params.js"
import { Authentication } from "./Security.js"

const ShopPath = Schema.Struct({ shopID: Id })

/** @since 0.1.0 @category groups */
export class SearchGroup extends HttpApiGroup.make("Search")
  .add(
    HttpApiEndpoint.get("searchInvoices", "/analytics/shops/:shopID/invoices")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.InvoiceSearchParams)
      .addSuccess(SearchResults.InvoiceSearchPage)
  )
  .add(
    HttpApiEndpoint.get("searchPayments", "/analytics/shops/:shopID/payments")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.PaymentSearchParams)
      .addSuccess(SearchResults.PaymentSearchPage)
  )
  .add(
    HttpApiEndpoint.get("searchRefunds", "/analytics/shops/:shopID/refunds")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.RefundSearchParams)
      .addSuccess(SearchResults.RefundSearchPage)
  )
  .add(
    HttpApiEndpoint.get("searchPayouts", "/analytics/shops/:shopID/payouts")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.PayoutSearchParams)
      .addSuccess(SearchResults.PayoutSearchPage)
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class AnalyticsGroup extends HttpApiGroup.make("Analytics")
  .add(
    HttpApiEndpoint.get("getPaymentMethodStats", "/analytics/shops/:shopID/customers/stats/payment_method")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.PaymentMethodStatsParams)
      .addSuccess(Schema.Array(Statistics.PaymentMethodBankCardStat))
  )
  .add(
    HttpApiEndpoint.get("getPaymentRateStats", "/analytics/shops/:shopID/customers/stats/rate")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.RateStatsParams)
      .addSuccess(Statistics.PaymentRateStat)
  )
  .add(
    HttpApiEndpoint.get("getPaymentConversionStats", "/analytics/shops/:shopID/payments/stats/conversion")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.SplitStatsParams)
      .addSuccess(Schema.Array(Statistics.PaymentConversionStat))
  )
  .add(
    HttpApiEndpoint.get("getPaymentGeoStats", "/analytics/shops/:shopID/payments/stats/geo")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.SplitStatsParams)
      .addSuccess(Schema.Array(Statistics.PaymentGeoStat))
  )
  .add(
    HttpApiEndpoint.get("getPaymentRevenueStats", "/analytics/shops/:shopID/payments/stats/revenue")
      .setPath(ShopPath)
      .setUrlParams(SearchParams.SplitStatsParams)
      .addSuccess(Schema.Array(Statistics.PaymentRevenueStat))
  )
  .middleware(Authentication)
{}
