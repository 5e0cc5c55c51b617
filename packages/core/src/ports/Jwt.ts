/**
 * JWTs: API keys, operator tokens and access tokens, signed and verified. The adapter owns the keys.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ResourceType } from "../auth/Principal.js"
import type { Unauthorized } from "../Errors.js"

/** The claims Kassa puts in its tokens. @since 0.1.0 @category models */
export type TokenClaims =
  | { readonly kind: "api-key"; readonly sub: string; readonly jti: string }
  | { readonly kind: "operator"; readonly sub: "operator"; readonly jti: string }
  | {
    readonly kind: "access"
    readonly sub: string
    readonly jti: string
    readonly resource: ResourceType
    readonly resourceID: string
  }
  | {
    /** A right to spend up to `amount` of `currency` from the wallet until the token expires. */
    readonly kind: "wallet-grant"
    readonly sub: string
    readonly jti: string
    readonly walletID: string
    readonly amount: number
    readonly currency: string
  }
  | {
    /** A right to withdraw to the destination until the token expires. */
    readonly kind: "destination-grant"
    readonly sub: string
    readonly jti: string
    readonly destinationID: string
  }
  | {
    /** A withdrawal quote: what `cashFrom` of the wallet pays out as `cashTo`, bound to the party, wallet and destination. */
    readonly kind: "withdrawal-quote"
    readonly sub: string
    readonly jti: string
    readonly walletID: string
    readonly destinationID?: string | undefined
    readonly cashFrom: { readonly amount: number; readonly currency: string }
    readonly cashTo: { readonly amount: number; readonly currency: string }
  }
  | {
    /** A download link of a report's file, until the token expires. */
    readonly kind: "file-download"
    readonly sub: string
    readonly jti: string
    readonly fileID: string
  }

/** Verified claims with their times (seconds since the epoch). @since 0.1.0 @category models */
export type VerifiedClaims = TokenClaims & { readonly iat: number; readonly exp?: number | undefined }

/** @since 0.1.0 @category tags */
export class Jwt extends Context.Tag("kassa/Jwt")<Jwt, {
  /** Signs `claims`; with `expiresAt` the token carries a numeric `exp`. */
  readonly issue: (claims: TokenClaims, expiresAt?: Date) => Effect.Effect<string>
  /** Verifies signature, algorithm, key id and expiry against the clock. */
  readonly verify: (token: string) => Effect.Effect<VerifiedClaims, Unauthorized>
}>() {}
