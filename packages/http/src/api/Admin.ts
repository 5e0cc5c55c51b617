/**
 * The operator API (`/admin/v1`): what the platform decides. Onboarding, API keys, blocking and
 * suspension of parties and shops.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Onboarding, Standing } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Id, PartyIdParam } from "./Params.js"
import { OperatorAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const IssuedApiKey = Schema.Struct({ keyID: Schema.String, apiKey: Schema.String })

/** @since 0.1.0 @category schemas */
export const ApiKeyInfo = Schema.Struct({
  keyID: Schema.String,
  createdAt: Schema.DateFromString,
  revokedAt: Schema.optional(Schema.DateFromString)
})

const PartyPath = Schema.Struct({ partyID: PartyIdParam })
const StandingPath = Schema.Struct({ partyID: PartyIdParam, command: Standing.StandingCommand })
const ShopStandingPath = Schema.Struct({ partyID: PartyIdParam, shopID: Id, command: Standing.StandingCommand })

/** @since 0.1.0 @category groups */
export class AdminGroup extends HttpApiGroup.make("Admin")
  .add(
    HttpApiEndpoint.post("onboardParty", "/parties")
      .setPayload(Onboarding.OnboardingParams)
      .addSuccess(Onboarding.Onboarded, { status: 201 })
  )
  .add(
    HttpApiEndpoint.post("issueApiKey", "/parties/:partyID/api-keys").setPath(PartyPath).addSuccess(IssuedApiKey, {
      status: 201
    })
  )
  .add(HttpApiEndpoint.get("listApiKeys", "/parties/:partyID/api-keys").setPath(PartyPath).addSuccess(Schema.Array(ApiKeyInfo)))
  .add(
    HttpApiEndpoint.del("revokeApiKey", "/parties/:partyID/api-keys/:keyID").setPath(
      Schema.Struct({ partyID: PartyIdParam, keyID: Schema.String })
    )
  )
  .add(HttpApiEndpoint.put("setPartyActivity", "/parties/:partyID/:command").setPath(StandingPath))
  .add(HttpApiEndpoint.put("setShopActivity", "/parties/:partyID/shops/:shopID/:command").setPath(ShopStandingPath))
  .middleware(OperatorAuthentication)
  .prefix("/admin/v1")
{}
