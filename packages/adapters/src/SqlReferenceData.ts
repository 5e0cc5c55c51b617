/**
 * `ReferenceData` read from the tables the reference-data migration fills. The set only changes
 * with a migration, so it is read once and then served from memory.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Reference } from "@kassa/core"
import { ReferenceData } from "@kassa/core/ports/ReferenceData"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { IntColumn, JsonColumn, opt, OptionalText, reader } from "./internal/rows.js"
import { once } from "./internal/once.js"
import * as Repository from "./internal/repository.js"

const Names = Schema.Array(Schema.String)
const SomeNames = Schema.optionalWith(Names, { exact: true })

/** A payment institution's terms, as stored in its JSON column. */
const Terms = Schema.Struct({
  currencies: Names,
  categories: Schema.Array(Schema.Number),
  cashLimits: Schema.Array(Schema.Struct({ currency: Schema.String, min: Schema.Number, max: Schema.Number })),
  paymentMethods: Schema.Array(Schema.Struct({
    method: Schema.Literal("BankCard", "PaymentTerminal", "DigitalWallet", "CryptoWallet", "MobileCommerce"),
    paymentSystems: SomeNames,
    tokenProviders: SomeNames,
    providers: SomeNames,
    cryptoCurrencies: SomeNames,
    operators: SomeNames
  })),
  allocationAllowed: Schema.Boolean,
  holdLifetimeSeconds: Schema.Number,
  fees: Schema.Struct({
    payment: Schema.Struct({ rateBasisPoints: Schema.Number, fixed: Schema.Number }),
    refund: Schema.Struct({ fixed: Schema.Number })
  })
})

const categories = reader(
  Schema.Struct({ categoryId: IntColumn, name: Schema.String, description: OptionalText, type: Reference.Realm }),
  (r): Reference.CategoryRecord => ({ categoryID: r.categoryId, name: r.name, ...opt("description", r.description), type: r.type })
)

const countries = reader(
  Schema.Struct({ id: Schema.String, name: Schema.String, tradeBlocs: JsonColumn(Names) }),
  (r): Reference.Country => ({ id: r.id, name: r.name, ...opt("tradeBlocs", r.tradeBlocs.length > 0 ? r.tradeBlocs : undefined) })
)

const tradeBlocs = reader(
  Schema.Struct({ id: Schema.String, name: Schema.String, description: OptionalText }),
  (r): Reference.TradeBloc => r
)

const institutions = reader(
  Schema.Struct({
    id: IntColumn,
    name: Schema.String,
    description: OptionalText,
    residences: JsonColumn(Names),
    realm: Reference.Realm,
    terms: JsonColumn(Terms),
    payoutMethods: JsonColumn(Schema.Array(Reference.PayoutMethod)),
    payoutSchedules: JsonColumn(Schema.Array(Schema.Number))
  }),
  (r): Reference.PaymentInstitutionRecord => r
)

const schedules = reader(
  Schema.Struct({ scheduleId: IntColumn, name: Schema.String, description: OptionalText }),
  (r): Reference.Schedule => ({ scheduleID: r.scheduleId, name: r.name, ...opt("description", r.description) })
)

const providers = reader(
  Schema.Struct({
    id: Schema.String,
    brandName: Schema.String,
    category: Schema.String,
    metadata: JsonColumn(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }),
  (r): Reference.ServiceProvider => r
)


/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ReferenceData,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const load = Effect.all({
      categories: Effect.map(sql`SELECT category_id, name, description, type FROM ref_categories ORDER BY category_id`, categories.all),
      countries: Effect.map(sql`SELECT id, name, trade_blocs FROM ref_countries ORDER BY id`, countries.all),
      tradeBlocs: Effect.map(sql`SELECT id, name, description FROM ref_trade_blocs ORDER BY id`, tradeBlocs.all),
      institutions: Effect.map(
        sql`SELECT id, name, description, residences, realm, terms, payout_methods, payout_schedules
            FROM ref_payment_institutions ORDER BY id`,
        institutions.all
      ),
      schedules: Effect.map(sql`SELECT schedule_id, name, description FROM ref_schedules ORDER BY schedule_id`, schedules.all),
      providers: Effect.map(sql`SELECT id, brand_name, category, metadata FROM ref_service_providers ORDER BY id`, providers.all)
    }).pipe(Effect.orDie)
    const data = once(load)
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

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
