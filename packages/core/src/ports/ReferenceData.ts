/**
 * The shipped reference data set.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type {
  CategoryRecord,
  Country,
  PaymentInstitutionRecord,
  Realm,
  Schedule,
  ServiceProvider,
  TradeBloc
} from "../reference/Reference.js"

/** @since 0.1.0 @category tags */
export class ReferenceData extends Context.Tag("kassa/ReferenceData")<ReferenceData, {
  readonly categories: Effect.Effect<ReadonlyArray<CategoryRecord>>
  readonly category: (id: number) => Effect.Effect<Option.Option<CategoryRecord>>
  readonly countries: Effect.Effect<ReadonlyArray<Country>>
  readonly country: (id: string) => Effect.Effect<Option.Option<Country>>
  readonly tradeBlocs: Effect.Effect<ReadonlyArray<TradeBloc>>
  readonly tradeBloc: (id: string) => Effect.Effect<Option.Option<TradeBloc>>
  readonly paymentInstitutions: (filter: {
    readonly residence?: string | undefined
    readonly realm?: Realm | undefined
  }) => Effect.Effect<ReadonlyArray<PaymentInstitutionRecord>>
  readonly paymentInstitution: (id: number) => Effect.Effect<Option.Option<PaymentInstitutionRecord>>
  readonly schedules: Effect.Effect<ReadonlyArray<Schedule>>
  readonly serviceProvider: (id: string) => Effect.Effect<Option.Option<ServiceProvider>>
}>() {}
