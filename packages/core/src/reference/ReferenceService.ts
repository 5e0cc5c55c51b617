/**
 * Reads of the reference data, answering `NotFound` for unknown ids.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import { ReferenceData } from "../ports/ReferenceData.js"
import type { PayoutMethod, Realm } from "./Reference.js"

const orNotFound = (what: string, id: string | number) => <A>(o: Option.Option<A>) =>
  Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of(what, id))

/** What builds the service: `ReferenceService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const data = yield* ReferenceData

  const paymentInstitution = (id: number) =>
    data.paymentInstitution(id).pipe(Effect.flatMap(orNotFound("Payment institution", id)))

  return {
    categories: data.categories,
    category: (id: number) => data.category(id).pipe(Effect.flatMap(orNotFound("Category", id))),
    countries: data.countries,
    country: (id: string) => data.country(id).pipe(Effect.flatMap(orNotFound("Country", id))),
    tradeBlocs: data.tradeBlocs,
    tradeBloc: (id: string) => data.tradeBloc(id).pipe(Effect.flatMap(orNotFound("Trade bloc", id))),
    paymentInstitutions: (filter: { readonly residence?: string | undefined; readonly realm?: Realm | undefined }) =>
      data.paymentInstitutions(filter),
    paymentInstitution,
    paymentTerms: (id: number) =>
      paymentInstitution(id).pipe(
        Effect.map((pi) => ({ currencies: pi.terms.currencies, categories: pi.terms.categories }))
      ),
    payoutMethods: (id: number, currency: string | undefined) =>
      paymentInstitution(id).pipe(
        Effect.map((pi) =>
          currency === undefined || pi.terms.currencies.includes(currency) ? pi.payoutMethods : []
        )
      ),
    payoutSchedules: (id: number, currency: string | undefined, method: PayoutMethod | undefined) =>
      paymentInstitution(id).pipe(
        Effect.map((pi) =>
          (currency === undefined || pi.terms.currencies.includes(currency)) &&
            (method === undefined || pi.payoutMethods.includes(method))
            ? pi.payoutSchedules
            : []
        )
      ),
    schedules: data.schedules,
    schedule: (id: number) =>
      data.schedules.pipe(
        Effect.map((all) => Option.fromNullable(all.find((s) => s.scheduleID === id))),
        Effect.flatMap(orNotFound("Schedule", id))
      ),
    serviceProvider: (id: string) =>
      data.serviceProvider(id).pipe(Effect.flatMap(orNotFound("Service provider", id)))
  } as const
})

/** @since 0.1.0 @category services */
export class ReferenceService extends Effect.Service<ReferenceService>()("kassa/ReferenceService", {
  effect: make
}) {}
