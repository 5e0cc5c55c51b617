/**
 * Authentication of the wallet and card-token interfaces: a party's API key only (the payments
 * interface's keys); access tokens and operator tokens are refused as 401.
 *
 * @since 0.1.0
 */
import { Authenticator, Errors, type Principal } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import { WalletAuthentication } from "../../api/wallet/Security.js"
import { authenticate } from "../Auth.js"

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  WalletAuthentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    bearer: (token: Redacted.Redacted<string>) =>
      authenticate(authenticator, token).pipe(
        Effect.filterOrFail(
          (p): p is Principal.Principal => p._tag === "ApiKey",
          () => new Errors.Unauthorized({ message: "The wallet interface needs the party's API key" })
        )
      )
  }))
)
