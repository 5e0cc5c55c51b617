/**
 * `ReferenceData` read from the tables the reference-data migration fills. The set only changes
 * with a migration, so it is read once and then served from memory.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Reference } from "@kassa/core"
import { ReferenceData } from "@kassa/core/ports/ReferenceData"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { int, json, opt, optString } from "./internal/rows.js"

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  ReferenceData,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const load = Effect.all({
      categories: sql`SELECT * FROM ref_categories ORDER BY category_id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.CategoryRecord => ({
            categoryID: int(r.categoryId),
            name: r.name,
            ...opt("description", optString(r.description)),
            type: r.type
          }))
        )
      ),
      countries: sql`SELECT * FROM ref_countries ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.Country => {
            const blocs = json<Array<string>>(r.tradeBlocs)
            return { id: r.id, name: r.name, ...opt("tradeBlocs", blocs.length > 0 ? blocs : undefined) }
          })
        )
      ),
      tradeBlocs: sql`SELECT * FROM ref_trade_blocs ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.TradeBloc => ({
            id: r.id,
            name: r.name,
            ...opt("description", optString(r.description))
          }))
        )
      ),
      institutions: sql`SELECT * FROM ref_payment_institutions ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.PaymentInstitutionRecord => ({
            id: int(r.id),
            name: r.name,
            ...opt("description", optString(r.description)),
            residences: json(r.residences),
            realm: r.realm,
            terms: json(r.terms),
            payoutMethods: json(r.payoutMethods),
            payoutSchedules: json(r.payoutSchedules)
          }))
        )
      ),
      schedules: sql`SELECT * FROM ref_schedules ORDER BY schedule_id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.Schedule => ({
            scheduleID: int(r.scheduleId),
            name: r.name,
            ...opt("description", optString(r.description))
          }))
        )
      ),
      providers: sql`SELECT * FROM ref_service_providers ORDER BY id`.pipe(
        Effect.map((rows) =>
          rows.map((r: any): Reference.ServiceProvider => ({
            id: r.id,
            brandName: r.brandName,
            category: r.category,
            metadata: json(r.metadata)
          }))
        )
      )
    }).pipe(Effect.orDie)
    const data = yield* Effect.cached(load)
    const find = <A>(items: ReadonlyArray<A>, p: (a: A) => boolean) => Option.fromNullable(items.find(p))

    return {
      categories: Effect.map(data, (d) => d.categories),
      category: (id) => Effect.map(data, (d) => find(d.categories, (c) => c.categoryID === id)),
      countries: Effect.map(data, (d) => d.countries),
      country: (id) => Effect.map(data, (d) => find(d.countries, (c) => c.id === id)),
      tradeBlocs: Effect.map(data, (d) => d.tradeBlocs),
      tradeBloc: (id) => Effect.map(data, (d) => find(d.tradeBlocs, (b) => b.id === id)),
      paymentInstitutions: (filter) =>
        Effect.map(data, (d) =>
          d.institutions.filter((pi) =>
            (filter.realm === undefined || pi.realm === filter.realm) &&
            (filter.residence === undefined || pi.residences.includes(filter.residence))
          )
        ),
      paymentInstitution: (id) => Effect.map(data, (d) => find(d.institutions, (pi) => pi.id === id)),
      schedules: Effect.map(data, (d) => d.schedules),
      serviceProvider: (id) => Effect.map(data, (d) => find(d.providers, (p) => p.id === id))
    }
  })
)
