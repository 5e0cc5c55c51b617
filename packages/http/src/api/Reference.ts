/**
 * Reference data: categories, countries, trade blocs, payment institutions and their terms,
 * payout schedules, service providers. Countries, trade blocs and service providers are public.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Reference } from "@kassa/core"
import * as Schema from "effect/Schema"
import { CountryCode, CurrencyCode, Int32FromString } from "./Params.js"
import { Authentication } from "./Security.js"

const InstitutionPath = Schema.Struct({ paymentInstitutionID: Int32FromString })

/** @since 0.1.0 @category groups */
export class CategoriesGroup extends HttpApiGroup.make("Categories")
  .add(HttpApiEndpoint.get("getCategories", "/processing/categories").addSuccess(Schema.Array(Reference.Category)))
  .add(
    HttpApiEndpoint.get("getCategoryByRef", "/processing/categories/:categoryID")
      .setPath(Schema.Struct({ categoryID: Int32FromString }))
      .addSuccess(Reference.Category)
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class CountriesGroup extends HttpApiGroup.make("Countries")
  .add(HttpApiEndpoint.get("getCountries", "/processing/countries").addSuccess(Schema.Array(Reference.Country)))
  .add(
    HttpApiEndpoint.get("getCountryByID", "/processing/countries/:countryID")
      .setPath(Schema.Struct({ countryID: CountryCode }))
      .addSuccess(Reference.Country)
  )
{}

/** @since 0.1.0 @category groups */
export class TradeBlocsGroup extends HttpApiGroup.make("TradeBlocs")
  .add(HttpApiEndpoint.get("getTradeBlocs", "/processing/tradeblocs").addSuccess(Schema.Array(Reference.TradeBloc)))
  .add(
    HttpApiEndpoint.get("getTradeBlocByID", "/processing/tradeblocs/:tradeBlocID")
      .setPath(Schema.Struct({ tradeBlocID: Schema.String.pipe(Schema.minLength(1)) }))
      .addSuccess(Reference.TradeBloc)
  )
{}

/** @since 0.1.0 @category groups */
export class PaymentInstitutionsGroup extends HttpApiGroup.make("PaymentInstitutions")
  .add(
    HttpApiEndpoint.get("getPaymentInstitutions", "/processing/payment-institutions")
      .setUrlParams(Schema.Struct({ residence: Schema.optional(CountryCode), realm: Schema.optional(Reference.Realm) }))
      .addSuccess(Schema.Array(Reference.PaymentInstitution))
  )
  .add(
    HttpApiEndpoint.get("getPaymentInstitutionByRef", "/processing/payment-institutions/:paymentInstitutionID")
      .setPath(InstitutionPath)
      .addSuccess(Reference.PaymentInstitution)
  )
  .add(
    HttpApiEndpoint.get(
      "getPaymentInstitutionPaymentTerms",
      "/processing/payment-institutions/:paymentInstitutionID/terms/payments"
    ).setPath(InstitutionPath).addSuccess(Reference.PaymentTerms)
  )
  .add(
    HttpApiEndpoint.get(
      "getPaymentInstitutionPayoutMethods",
      "/processing/payment-institutions/:paymentInstitutionID/terms/payouts/methods"
    ).setPath(InstitutionPath)
      .setUrlParams(Schema.Struct({ currency: Schema.optional(CurrencyCode) }))
      .addSuccess(Schema.Array(Reference.PayoutMethod))
  )
  .add(
    HttpApiEndpoint.get(
      "getPaymentInstitutionPayoutSchedules",
      "/processing/payment-institutions/:paymentInstitutionID/terms/payouts/schedules"
    ).setPath(InstitutionPath)
      .setUrlParams(
        Schema.Struct({ currency: Schema.optional(CurrencyCode), payoutMethod: Schema.optional(Reference.PayoutMethod) })
      )
      .addSuccess(Schema.Array(Schema.Int))
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class PayoutsGroup extends HttpApiGroup.make("Payouts")
  .add(
    HttpApiEndpoint.get("getScheduleByRef", "/processing/schedules/:scheduleID")
      .setPath(Schema.Struct({ scheduleID: Int32FromString }))
      .addSuccess(Reference.Schedule)
  )
  .middleware(Authentication)
{}

/** @since 0.1.0 @category groups */
export class ServiceProvidersGroup extends HttpApiGroup.make("ServiceProviders")
  .add(
    HttpApiEndpoint.get("getServiceProviderByID", "/processing/service-providers/:serviceProviderID")
      .setPath(Schema.Struct({ serviceProviderID: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) }))
      .addSuccess(Reference.ServiceProvider)
  )
{}
