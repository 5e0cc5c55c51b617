/**
 * Access tokens: JWTs with a numeric `exp` that open one resource (an invoice, an invoice
 * template, a customer) for its party.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Traced from "../internal/traced.js"
import { Ids } from "../ports/Ids.js"
import { Jwt } from "../ports/Jwt.js"
import type { ResourceType } from "./Principal.js"

/** An invoice access token lives 3 days. @since 0.1.0 */
export const INVOICE_TOKEN_DAYS = 3

/** What builds the service: `AccessTokens.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const tokens = yield* Jwt
  const ids = yield* Ids
  /** Answers the token in the interface's `AccessToken` shape, `{payload}`. */
  const issue = Traced.fn("AccessTokens.issue")(
    function*(partyID: string, resource: ResourceType, resourceID: string, lifetimeDays: number) {
      const now = yield* Clock.currentTimeMillis
      const payload = yield* tokens.issue(
        { kind: "access", sub: partyID, jti: yield* ids.next, resource, resourceID },
        new Date(now + lifetimeDays * 86_400_000)
      )
      return { payload }
    }
  )
  return { issue } as const
})

/** @since 0.1.0 @category services */
export class AccessTokens extends Effect.Service<AccessTokens>()("kassa/AccessTokens", {
  effect: make
}) {}
