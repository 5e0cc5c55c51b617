/**
 * Handlers of the reference data groups.
 *
 * @since 0.1.0
 */
import { ReferenceService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { anyCaller } from "../Caller.js"
import * as Group from "./Group.js"

/** The Categories group's handlers, by operation. @since 0.1.0 @category handlers */
export const categoriesHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "Categories")({
    getCategories: () => Effect.zipRight(anyCaller, ref.categories),
    getCategoryByRef: ({ path }) => Effect.zipRight(anyCaller, ref.category(path.categoryID))
  }))

const Categories = Group.layer(KassaApi, "Categories", categoriesHandlers)

/** The Countries group's handlers, by operation. @since 0.1.0 @category handlers */
export const countriesHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "Countries")({
    getCountries: () => ref.countries,
    getCountryByID: ({ path }) => ref.country(path.countryID)
  }))

const Countries = Group.layer(KassaApi, "Countries", countriesHandlers)

/** The TradeBlocs group's handlers, by operation. @since 0.1.0 @category handlers */
export const tradeBlocsHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "TradeBlocs")({
    getTradeBlocs: () => ref.tradeBlocs,
    getTradeBlocByID: ({ path }) => ref.tradeBloc(path.tradeBlocID)
  }))

const TradeBlocs = Group.layer(KassaApi, "TradeBlocs", tradeBlocsHandlers)

/** The PaymentInstitutions group's handlers, by operation. @since 0.1.0 @category handlers */
export const paymentInstitutionsHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "PaymentInstitutions")({
    getPaymentInstitutions: ({ urlParams }) =>
      Effect.zipRight(anyCaller, ref.paymentInstitutions(urlParams)),
    getPaymentInstitutionByRef: ({ path }) =>
      Effect.zipRight(anyCaller, ref.paymentInstitution(path.paymentInstitutionID)),
    getPaymentInstitutionPaymentTerms: ({ path }) =>
      Effect.zipRight(anyCaller, ref.paymentTerms(path.paymentInstitutionID)),
    getPaymentInstitutionPayoutMethods: ({ path, urlParams }) =>
      Effect.zipRight(anyCaller, ref.payoutMethods(path.paymentInstitutionID, urlParams.currency)),
    getPaymentInstitutionPayoutSchedules: ({ path, urlParams }) =>
      Effect.zipRight(
        anyCaller,
        ref.payoutSchedules(path.paymentInstitutionID, urlParams.currency, urlParams.payoutMethod)
      )
  }))

const PaymentInstitutions = Group.layer(KassaApi, "PaymentInstitutions", paymentInstitutionsHandlers)

/** The Payouts group's handlers, by operation. @since 0.1.0 @category handlers */
export const payoutsHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "Payouts")({
    getScheduleByRef: ({ path }) => Effect.zipRight(anyCaller, ref.schedule(path.scheduleID))
  }))

const Payouts = Group.layer(KassaApi, "Payouts", payoutsHandlers)

/** The ServiceProviders group's handlers, by operation. @since 0.1.0 @category handlers */
export const serviceProvidersHandlers = Effect.map(ReferenceService.ReferenceService, (ref) =>
  Group.handlers(KassaApi, "ServiceProviders")({
    getServiceProviderByID: ({ path }) => ref.serviceProvider(path.serviceProviderID)
  }))

const ServiceProviders = Group.layer(KassaApi, "ServiceProviders", serviceProvidersHandlers)

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Categories, Countries, TradeBlocs, PaymentInstitutions, Payouts, ServiceProviders)
