/**
 * Handlers of the wallet interface's identities and identity challenges.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletIdentities", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listIdentities", () => notImplemented("listIdentities"))
      .handle("createIdentity", () => notImplemented("createIdentity"))
      .handle("getIdentity", () => notImplemented("getIdentity"))
      .handle("getWithdrawalMethods", () => notImplemented("getWithdrawalMethods"))
      .handle("listIdentityChallenges", () => notImplemented("listIdentityChallenges"))
      .handle("startIdentityChallenge", () => notImplemented("startIdentityChallenge"))
      .handle("getIdentityChallenge", () => notImplemented("getIdentityChallenge"))
      .handle("pollIdentityChallengeEvents", () => notImplemented("pollIdentityChallengeEvents"))
      .handle("getIdentityChallengeEvent", () => notImplemented("getIdentityChallengeEvent"))
  ))
