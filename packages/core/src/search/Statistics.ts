/**
 * The statistics of the older revision: their item shapes, and how a window is split into
 * segments of `splitSize` × `splitUnit`.
 *
 * Segments start at `fromTime`: segment `i` covers `[fromTime + i·size, fromTime + (i+1)·size)`,
 * clipped to `toTime`. Minutes, hours, days and weeks have a fixed length; months and years are
 * calendar months of UTC from `fromTime` (the 31st plus a month is the last day of the next
 * month). An item's `offset` is its segment's index `i`; only segments with payments appear.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { StatsRow } from "../ports/SearchRepository.js"
import type { SplitUnit } from "./SearchParams.js"

/** @since 0.1.0 @category schemas */
export const PaymentConversionStat = Schema.Struct({
  offset: Schema.Int,
  successfulCount: Schema.Int,
  totalCount: Schema.Int,
  conversion: Schema.Number
}).annotations({ identifier: "PaymentConversionStat" })
/** @since 0.1.0 */
export type PaymentConversionStat = typeof PaymentConversionStat.Type

/** @since 0.1.0 @category schemas */
export const PaymentGeoStat = Schema.Struct({
  offset: Schema.Int,
  geoID: Schema.Int,
  currency: Schema.String,
  profit: Schema.Int,
  revenue: Schema.Int
}).annotations({ identifier: "PaymentGeoStat" })
/** @since 0.1.0 */
export type PaymentGeoStat = typeof PaymentGeoStat.Type

/** @since 0.1.0 @category schemas */
export const PaymentRevenueStat = Schema.Struct({
  offset: Schema.Int,
  currency: Schema.String,
  profit: Schema.Int,
  revenue: Schema.Int
}).annotations({ identifier: "PaymentRevenueStat" })
/** @since 0.1.0 */
export type PaymentRevenueStat = typeof PaymentRevenueStat.Type

/**
 * The bank card statistic: `totalCount` payments (each payer counted per payment) of a payment
 * system. `currency` is added to the specification's shape: profit and revenue are per currency.
 *
 * @since 0.1.0 @category schemas
 */
export const PaymentMethodBankCardStat = Schema.Struct({
  statType: Schema.Literal("PaymentMethodBankCardStat"),
  offset: Schema.Int,
  totalCount: Schema.Int,
  paymentSystem: Schema.String,
  currency: Schema.String,
  profit: Schema.Int,
  revenue: Schema.Int
}).annotations({ identifier: "PaymentMethodBankCardStat" })
/** @since 0.1.0 */
export type PaymentMethodBankCardStat = typeof PaymentMethodBankCardStat.Type

/** @since 0.1.0 @category schemas */
export const PaymentRateStat = Schema.Struct({ uniqueCount: Schema.Int }).annotations({ identifier: "PaymentRateStat" })
/** @since 0.1.0 */
export type PaymentRateStat = typeof PaymentRateStat.Type

const MINUTE = 60_000
const DAY = 86_400_000

/** Fixed unit lengths in milliseconds. @since 0.1.0 */
export const unitMs: Readonly<Record<Exclude<SplitUnit, "month" | "year">, number>> = {
  minute: MINUTE,
  hour: 60 * MINUTE,
  day: DAY,
  week: 7 * DAY
}

/** `date` plus `months` calendar months (UTC), the day clamped to the target month's length. @since 0.1.0 */
export const addMonths = (date: Date, months: number): Date => {
  const y = date.getUTCFullYear()
  const m = date.getUTCMonth() + months
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate()
  return new Date(
    Date.UTC(
      y,
      m,
      Math.min(date.getUTCDate(), last),
      date.getUTCHours(),
      date.getUTCMinutes(),
      date.getUTCSeconds(),
      date.getUTCMilliseconds()
    )
  )
}

/**
 * A window split into segments. The store groups rows into buckets of `bucketMs` from the
 * window's start; `segmentOf` maps a bucket to its segment (months and years are grouped by day,
 * each month boundary being a whole number of days from the start).
 *
 * @since 0.1.0 @category models
 */
export interface Segmentation {
  readonly count: number
  readonly bucketMs: number
  readonly segmentOf: (bucket: number) => number
}

/** @since 0.1.0 */
export const segmentation = (from: Date, to: Date, unit: SplitUnit, size: number): Segmentation => {
  const length = Math.max(1, to.getTime() - from.getTime())
  if (unit !== "month" && unit !== "year") {
    const bucketMs = Math.min(unitMs[unit] * size, length)
    return { count: Math.ceil(length / bucketMs), bucketMs, segmentOf: (bucket) => bucket }
  }
  const months = unit === "year" ? 12 * size : size
  // the starts of the segments after the first, in days from `from`
  const starts: Array<number> = []
  // a window is at most a year or so: past ~40 years the first segment covers it all
  for (let i = 1; months * i <= 12 * 40; i++) {
    const start = addMonths(from, months * i).getTime()
    if (start >= to.getTime()) break
    starts.push((start - from.getTime()) / DAY)
  }
  return {
    count: starts.length + 1,
    bucketMs: DAY,
    segmentOf: (day) => {
      let lo = 0
      let hi = starts.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (starts[mid]! <= day) lo = mid + 1
        else hi = mid
      }
      return lo
    }
  }
}

/** @since 0.1.0 @category models */
export type Totals = Pick<StatsRow, "total" | "successful" | "revenue" | "fee">

/**
 * Sums a store's rows of the same segment (mapped by `segmentOf`) and keys (`keyOf`), in
 * segment then key order (numbers by value, strings by code point).
 *
 * @since 0.1.0
 */
export const regroup = (
  rows: ReadonlyArray<StatsRow>,
  keyOf: (row: StatsRow) => ReadonlyArray<string | number>,
  segmentOf: (bucket: number) => number
) => {
  const groups = new Map<string, { offset: number; keys: ReadonlyArray<string | number>; row: Totals }>()
  for (const row of rows) {
    const offset = segmentOf(row.segment)
    const keys = keyOf(row)
    const id = JSON.stringify([offset, ...keys])
    const found = groups.get(id)
    if (found === undefined) {
      groups.set(id, { offset, keys, row: { total: row.total, successful: row.successful, revenue: row.revenue, fee: row.fee } })
    } else {
      found.row = {
        total: found.row.total + row.total,
        successful: found.row.successful + row.successful,
        revenue: found.row.revenue + row.revenue,
        fee: found.row.fee + row.fee
      }
    }
  }
  const compare = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): number => {
    for (let i = 0; i < a.length; i++) {
      const [x, y] = [a[i]!, b[i]!]
      if (x !== y) return typeof x === "number" && typeof y === "number" ? x - y : String(x) < String(y) ? -1 : 1
    }
    return 0
  }
  return [...groups.values()]
    .sort((a, b) => a.offset - b.offset || compare(a.keys, b.keys))
    .map((group) => group as { readonly offset: number; readonly keys: ReadonlyArray<any>; readonly row: Totals })
}
