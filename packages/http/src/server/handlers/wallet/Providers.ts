/**
 * Handlers of the wallet interface's providers, identity classes and levels.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletProviders", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listProviders", () => notImplemented("listProviders"))
      .handle("getProvider", () => notImplemented("getProvider"))
      .handle("listProviderIdentityClasses", () => notImplemented("listProviderIdentityClasses"))
      .handle("getProviderIdentityClass", () => notImplemented("getProviderIdentityClass"))
      .handle("listProviderIdentityLevels", () => notImplemented("listProviderIdentityLevels"))
      .handle("getProviderIdentityLevel", () => notImplemented("getProviderIdentityLevel"))
  ))
