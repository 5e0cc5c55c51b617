/**
 * `Jwt` for service tests: a token is a name for the claims it was issued with, kept in memory
 * (no signature: core's services only issue tokens and verify them through this port).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Unauthorized } from "@kassa/core/Errors"
import { Jwt, type VerifiedClaims } from "@kassa/core/ports/Jwt"

export const layer: Layer.Layer<Jwt> = Layer.sync(Jwt, () => {
  const issued = new Map<string, VerifiedClaims>()
  return {
    issue: (claims, expiresAt) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const token = `test-jwt.${issued.size + 1}`
        const iat = Math.floor(now / 1000)
        issued.set(token, expiresAt === undefined ? { ...claims, iat } : { ...claims, iat, exp: Math.floor(expiresAt.getTime() / 1000) })
        return token
      }),
    verify: (token) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const claims = issued.get(token)
        if (claims === undefined) return Effect.fail(new Unauthorized({ message: "unknown token" }))
        if (claims.exp !== undefined && claims.exp * 1000 <= now) return Effect.fail(new Unauthorized({ message: "token expired" }))
        return Effect.succeed(claims)
      })
  }
})
