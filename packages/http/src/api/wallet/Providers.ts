/**
 * Providers, their identity classes and identity levels: reference data.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { NotFound } from "./Errors.js"
import { ProofType } from "./Identities.js"
import { Id, ResidenceParam } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const Provider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  residences: Schema.Array(Schema.String)
}).annotations({ identifier: "Provider" })

/** @since 0.1.0 @category schemas */
export const IdentityClass = Schema.Struct({ id: Schema.String, name: Schema.String }).annotations({
  identifier: "IdentityClass"
})

/** @since 0.1.0 @category schemas */
export const IdentityChallengeType = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  requiredProofs: Schema.Array(ProofType)
})

/** @since 0.1.0 @category schemas */
export const IdentityLevel = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  challenges: Schema.Array(IdentityChallengeType)
}).annotations({ identifier: "IdentityLevel" })

// identity class and level ids in paths: the specification gives no bounds
const ClassId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
const ProviderPath = Schema.Struct({ providerID: Id })
const ClassPath = Schema.Struct({ providerID: Id, identityClassID: ClassId })

/** @since 0.1.0 @category groups */
export class ProvidersGroup extends HttpApiGroup.make("WalletProviders")
  .add(
    HttpApiEndpoint.get("listProviders", "/providers")
      .setUrlParams(Schema.Struct({ residence: Schema.optional(ResidenceParam) }))
      .addSuccess(Schema.Array(Provider))
  )
  .add(HttpApiEndpoint.get("getProvider", "/providers/:providerID").setPath(ProviderPath).addSuccess(Provider).addError(NotFound))
  .add(
    HttpApiEndpoint.get("listProviderIdentityClasses", "/providers/:providerID/identity-classes")
      .setPath(ProviderPath)
      .addSuccess(Schema.Array(IdentityClass))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getProviderIdentityClass", "/providers/:providerID/identity-classes/:identityClassID")
      .setPath(ClassPath)
      .addSuccess(IdentityClass)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listProviderIdentityLevels", "/providers/:providerID/identity-classes/:identityClassID/levels")
      .setPath(ClassPath)
      .addSuccess(Schema.Array(IdentityLevel))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get(
      "getProviderIdentityLevel",
      "/providers/:providerID/identity-classes/:identityClassID/levels/:identityLevelID"
    )
      .setPath(Schema.Struct({ providerID: Id, identityClassID: ClassId, identityLevelID: ClassId }))
      .addSuccess(IdentityLevel)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Providers")
{}
