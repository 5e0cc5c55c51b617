/**
 * `ReferenceData` in memory, over a given data set (the adapters ship the one their migrations
 * load), answered as the SQL adapter answers it: each list in id order.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ReferenceData } from "../ports/ReferenceData.js"
import type {
  CategoryRecord,
  Country,
  PaymentInstitutionRecord,
  Schedule,
  ServiceProvider,
  TradeBloc
} from "../reference/Reference.js"

/** A reference data set. @since 0.1.0 @category models */
export interface ReferenceSet {
  readonly categories: ReadonlyArray<CategoryRecord>
  readonly countries: ReadonlyArray<Country>
  readonly tradeBlocs: ReadonlyArray<TradeBloc>
  readonly paymentInstitutions: ReadonlyArray<PaymentInstitutionRecord>
  readonly schedules: ReadonlyArray<Schedule>
  readonly serviceProviders: ReadonlyArray<ServiceProvider>
}

const sortedBy = <A>(items: ReadonlyArray<A>, id: (a: A) => string | number): ReadonlyArray<A> =>
  [...items].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0))

const find = <A>(items: ReadonlyArray<A>, p: (a: A) => boolean) => Effect.succeed(Option.fromNullable(items.find(p)))

/** @since 0.1.0 @category layers */
export const layerMemory = (data: ReferenceSet): Layer.Layer<ReferenceData> =>
  Layer.sync(ReferenceData, () => {
    const categories = sortedBy(data.categories, (c) => c.categoryID)
    // a country in no trade bloc has none listed, as the SQL adapter reads it
    const countries = sortedBy(data.countries, (c) => c.id).map(({ tradeBlocs, ...c }): Country =>
      tradeBlocs === undefined || tradeBlocs.length === 0 ? c : { ...c, tradeBlocs }
    )
    const tradeBlocs = sortedBy(data.tradeBlocs, (b) => b.id)
    const institutions = sortedBy(data.paymentInstitutions, (pi) => pi.id)
    const schedules = sortedBy(data.schedules, (s) => s.scheduleID)
    const providers = sortedBy(data.serviceProviders, (p) => p.id)
    return {
      categories: Effect.succeed(categories),
      category: (id) => find(categories, (c) => c.categoryID === id),
      countries: Effect.succeed(countries),
      country: (id) => find(countries, (c) => c.id === id),
      tradeBlocs: Effect.succeed(tradeBlocs),
      tradeBloc: (id) => find(tradeBlocs, (b) => b.id === id),
      paymentInstitutions: (filter) =>
        Effect.succeed(institutions.filter((pi) =>
          (filter.realm === undefined || pi.realm === filter.realm) &&
          (filter.residence === undefined || pi.residences.includes(filter.residence))
        )),
      paymentInstitution: (id) => find(institutions, (pi) => pi.id === id),
      schedules: Effect.succeed(schedules),
      serviceProvider: (id) => find(providers, (p) => p.id === id)
    }
  })
