/**
 * Handlers of the wallet interface's providers, identity classes and levels.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { IdentityService, Provider } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletProviders", (handlers) =>
  Effect.gen(function*() {
    const identities = yield* IdentityService.IdentityService
    return handlers
      .handle("listProviders", ({ urlParams }) => Effect.map(identities.providers(urlParams.residence), (ps) => ps.map(Provider.toProvider)))
      .handle("getProvider", ({ path }) => Effect.map(identities.provider(path.providerID), Provider.toProvider))
      .handle("listProviderIdentityClasses", ({ path }) =>
        Effect.map(identities.identityClasses(path.providerID), (cs) => cs.map(Provider.toIdentityClass)))
      .handle("getProviderIdentityClass", ({ path }) =>
        Effect.map(identities.identityClass(path.providerID, path.identityClassID), Provider.toIdentityClass))
      .handle("listProviderIdentityLevels", ({ path }) => identities.identityLevels(path.providerID, path.identityClassID))
      .handle("getProviderIdentityLevel", ({ path }) =>
        identities.identityLevel(path.providerID, path.identityClassID, path.identityLevelID))
  }))
