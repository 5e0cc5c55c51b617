/**
 * Currencies and residences: reference data of the wallet interface.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { NotFound } from "./Errors.js"
import { ResidenceParam } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const Currency = Schema.Struct({
  id: Schema.String,
  numericCode: Schema.String,
  name: Schema.String,
  sign: Schema.optional(Schema.String),
  exponent: Schema.Int
}).annotations({ identifier: "Currency" })

/** @since 0.1.0 @category schemas */
export const Residence = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  flag: Schema.optional(Schema.String)
}).annotations({ identifier: "Residence" })

/** @since 0.1.0 @category groups */
export class CurrenciesGroup extends HttpApiGroup.make("WalletCurrencies")
  .add(
    HttpApiEndpoint.get("getCurrency", "/currencies/:currencyID")
      .setPath(Schema.Struct({ currencyID: ResidenceParam }))
      .addSuccess(Currency)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Currencies")
{}

/** @since 0.1.0 @category groups */
export class ResidencesGroup extends HttpApiGroup.make("Residences")
  .add(
    HttpApiEndpoint.get("getResidence", "/residences/:residence")
      .setPath(Schema.Struct({ residence: ResidenceParam }))
      .addSuccess(Residence)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Residences")
{}
