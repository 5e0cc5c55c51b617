/**
 * The payment statistics of the older revision: a shop's payments in a window, split into
 * segments and grouped (conversion, revenue, geography, payment method), and distinct payers.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { BusinessError, type NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import type { Scope, SearchRepository, StatsKey, StatsRow } from "../ports/SearchRepository.js"
import { geoIDOf } from "./GeoIDs.js"
import type { PaymentMethodStatsParams, RateStatsParams, SplitStatsParams } from "./SearchParams.js"
import * as SearchQuery from "./SearchQuery.js"
import {
  type PaymentConversionStat,
  type PaymentGeoStat,
  type PaymentMethodBankCardStat,
  type PaymentRateStat,
  type PaymentRevenueStat,
  regroup,
  segmentation
} from "./Statistics.js"

/** The most segments a statistic is split into. @since 0.1.0 */
export const maxSegments = 10_000

/** @since 0.1.0 @category constructors */
export const make = (
  repository: Context.Tag.Service<SearchRepository>,
  scopeOf: (partyID: string, shopID: string) => Effect.Effect<Scope, BusinessError | NotFound>
) => {
  /** The window's payments grouped by segment and `by`, merged into the split's segments. */
  const grouped = (
    partyID: string,
    shopID: string,
    params: SplitStatsParams,
    by: ReadonlyArray<StatsKey>,
    filter: { readonly successfulOnly: boolean; readonly bankCardOnly: boolean },
    keyOf: (row: StatsRow) => ReadonlyArray<string | number>
  ) =>
    Effect.gen(function*() {
      const scope = yield* scopeOf(partyID, shopID)
      const w = yield* SearchQuery.window(params.fromTime, params.toTime)
      const split = segmentation(params.fromTime, params.toTime, params.splitUnit, params.splitSize)
      if (split.count > maxSegments) {
        return yield* BusinessError.of(
          "limitExceeded",
          `splitUnit, splitSize: the window splits into ${split.count} segments, more than ${maxSegments}; split into longer ones`
        )
      }
      const rows = yield* repository.paymentStats({ scope, window: w, bucketMs: split.bucketMs, by, ...filter })
      return regroup(rows, keyOf, split.segmentOf)
    })

  const success = { successfulOnly: true, bankCardOnly: false }

  /** Payments started and succeeded (captured or refunded) per segment. */
  const paymentConversionStats = Traced.fn("SearchService.paymentConversionStats")(
    function*(partyID: string, shopID: string, params: SplitStatsParams) {
      const groups = yield* grouped(partyID, shopID, params, [], { successfulOnly: false, bankCardOnly: false }, () => [])
      return groups.map(({ offset, row }): PaymentConversionStat => ({
        offset,
        successfulCount: row.successful,
        totalCount: row.total,
        conversion: row.total === 0 ? 0 : row.successful / row.total
      }))
    }
  )

  /** Sums of successful payments per segment and currency, with and without the system fee. */
  const paymentRevenueStats = Traced.fn("SearchService.paymentRevenueStats")(
    function*(partyID: string, shopID: string, params: SplitStatsParams) {
      const groups = yield* grouped(partyID, shopID, params, ["currency"], success, (r) => [r.currency ?? ""])
      return groups.map(({ keys, offset, row }): PaymentRevenueStat => ({
        offset,
        currency: keys[0],
        profit: row.revenue - row.fee,
        revenue: row.revenue
      }))
    }
  )

  /** Revenue per segment, payer's country (ISO 3166-1 numeric; 0 unknown) and currency. */
  const paymentGeoStats = Traced.fn("SearchService.paymentGeoStats")(
    function*(partyID: string, shopID: string, params: SplitStatsParams) {
      const groups = yield* grouped(
        partyID,
        shopID,
        params,
        ["country", "currency"],
        success,
        (r) => [geoIDOf(r.country), r.currency ?? ""]
      )
      return groups.map(({ keys, offset, row }): PaymentGeoStat => ({
        offset,
        geoID: keys[0],
        currency: keys[1],
        profit: row.revenue - row.fee,
        revenue: row.revenue
      }))
    }
  )

  /** Successful bank card payments per segment, payment system and currency. */
  const paymentMethodStats = Traced.fn("SearchService.paymentMethodStats")(
    function*(partyID: string, shopID: string, params: PaymentMethodStatsParams) {
      const groups = yield* grouped(
        partyID,
        shopID,
        params,
        ["paymentSystem", "currency"],
        { successfulOnly: true, bankCardOnly: true },
        (r) => [r.paymentSystem ?? "", r.currency ?? ""]
      )
      return groups.map(({ keys, offset, row }): PaymentMethodBankCardStat => ({
        statType: "PaymentMethodBankCardStat",
        offset,
        totalCount: row.successful,
        paymentSystem: keys[0],
        currency: keys[1],
        profit: row.revenue - row.fee,
        revenue: row.revenue
      }))
    }
  )

  /** Distinct payers of the window's successful payments. */
  const paymentRateStats = Traced.fn("SearchService.paymentRateStats")(
    function*(partyID: string, shopID: string, params: RateStatsParams) {
      const scope = yield* scopeOf(partyID, shopID)
      const w = yield* SearchQuery.window(params.fromTime, params.toTime)
      const stat: PaymentRateStat = { uniqueCount: yield* repository.uniquePayers(scope, w) }
      return stat
    }
  )

  return { paymentConversionStats, paymentRevenueStats, paymentGeoStats, paymentMethodStats, paymentRateStats } as const
}
