/**
 * Handlers of the reference data groups.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { ReferenceService } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../../api/KassaApi.js"
import { anyCaller } from "../Caller.js"

const Categories = HttpApiBuilder.group(KassaApi, "Categories", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers
      .handle("getCategories", () => Effect.zipRight(anyCaller, ref.categories))
      .handle("getCategoryByRef", ({ path }) => Effect.zipRight(anyCaller, ref.category(path.categoryID)))))

const Countries = HttpApiBuilder.group(KassaApi, "Countries", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers
      .handle("getCountries", () => ref.countries)
      .handle("getCountryByID", ({ path }) => ref.country(path.countryID))))

const TradeBlocs = HttpApiBuilder.group(KassaApi, "TradeBlocs", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers
      .handle("getTradeBlocs", () => ref.tradeBlocs)
      .handle("getTradeBlocByID", ({ path }) => ref.tradeBloc(path.tradeBlocID))))

const PaymentInstitutions = HttpApiBuilder.group(KassaApi, "PaymentInstitutions", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers
      .handle("getPaymentInstitutions", ({ urlParams }) =>
        Effect.zipRight(anyCaller, ref.paymentInstitutions(urlParams)))
      .handle("getPaymentInstitutionByRef", ({ path }) =>
        Effect.zipRight(anyCaller, ref.paymentInstitution(path.paymentInstitutionID)))
      .handle("getPaymentInstitutionPaymentTerms", ({ path }) =>
        Effect.zipRight(anyCaller, ref.paymentTerms(path.paymentInstitutionID)))
      .handle("getPaymentInstitutionPayoutMethods", ({ path, urlParams }) =>
        Effect.zipRight(anyCaller, ref.payoutMethods(path.paymentInstitutionID, urlParams.currency)))
      .handle("getPaymentInstitutionPayoutSchedules", ({ path, urlParams }) =>
        Effect.zipRight(
          anyCaller,
          ref.payoutSchedules(path.paymentInstitutionID, urlParams.currency, urlParams.payoutMethod)
        ))))

const Payouts = HttpApiBuilder.group(KassaApi, "Payouts", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers.handle("getScheduleByRef", ({ path }) => Effect.zipRight(anyCaller, ref.schedule(path.scheduleID)))))

const ServiceProviders = HttpApiBuilder.group(KassaApi, "ServiceProviders", (handlers) =>
  Effect.map(ReferenceService.ReferenceService, (ref) =>
    handlers.handle("getServiceProviderByID", ({ path }) => ref.serviceProvider(path.serviceProviderID))))

/** @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(Categories, Countries, TradeBlocs, PaymentInstitutions, Payouts, ServiceProviders)
