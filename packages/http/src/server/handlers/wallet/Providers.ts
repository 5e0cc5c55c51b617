/**
 * Handlers of the wallet interface's providers, identity classes and levels.
 *
 * @since 0.1.0
 */
import { IdentityService, Provider } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import * as Group from "../Group.js"

/** The WalletProviders group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const identities = yield* IdentityService.IdentityService
  return Group.handlers(KassaApi, "WalletProviders")({
    listProviders: ({ urlParams }) => Effect.map(identities.providers(urlParams.residence), (ps) => ps.map(Provider.toProvider)),
    getProvider: ({ path }) => Effect.map(identities.provider(path.providerID), Provider.toProvider),
    listProviderIdentityClasses: ({ path }) =>
      Effect.map(identities.identityClasses(path.providerID), (cs) => cs.map(Provider.toIdentityClass)),
    getProviderIdentityClass: ({ path }) =>
      Effect.map(identities.identityClass(path.providerID, path.identityClassID), Provider.toIdentityClass),
    listProviderIdentityLevels: ({ path }) => identities.identityLevels(path.providerID, path.identityClassID),
    getProviderIdentityLevel: ({ path }) =>
      identities.identityLevel(path.providerID, path.identityClassID, path.identityLevelID)
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WalletProviders", handlers)
