/**
 * Turns a bearer token into a principal: the signature, algorithm, key id and expiry are the
 * token adapter's to check; that the key is registered and not revoked is checked here.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Unauthorized } from "../Errors.js"
import { ApiKeyRepository } from "../ports/ApiKeyRepository.js"
import { Jwt } from "../ports/Jwt.js"
import { Principal } from "./Principal.js"

/** What builds the service: `Authenticator.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const tokens = yield* Jwt
  const keys = yield* ApiKeyRepository

  // (every request of the interface asks: chained effects, no generator's steps)
  const authenticate = (token: string): Effect.Effect<Principal, Unauthorized> =>
    Effect.flatMap(tokens.verify(token), (claims): Effect.Effect<Principal, Unauthorized> => {
      if (claims.kind === "access") {
        return Effect.succeed(Principal.AccessToken({ partyID: claims.sub, resource: claims.resource, resourceID: claims.resourceID }))
      }
      // a grant opens no API: it goes with a request made by an API key
      if (claims.kind === "wallet-grant" || claims.kind === "destination-grant" || claims.kind === "withdrawal-quote" || claims.kind === "file-download"
      ) return Effect.fail(new Unauthorized({ message: "A grant is no API key" }))
      return Effect.flatMap(keys.findById(claims.jti), (key) => {
        if (
          Option.isNone(key) || key.value.revokedAt !== undefined || key.value.kind !== claims.kind ||
          key.value.partyID !== claims.sub
        ) {
          return Effect.fail(new Unauthorized({ message: "API key is unknown or revoked" }))
        }
        return Effect.succeed(
          claims.kind === "operator"
            ? Principal.Operator({ keyID: claims.jti })
            : Principal.ApiKey({ partyID: claims.sub, keyID: claims.jti })
        )
      })
    })

  return { authenticate } as const
})

/** @since 0.1.0 @category services */
export class Authenticator extends Effect.Service<Authenticator>()("kassa/Authenticator", {
  effect: make
}) {}
