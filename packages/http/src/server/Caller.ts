/**
 * Who may do what: party scoping for the handlers.
 *
 * @since 0.1.0
 */
import { Errors, Ids, Principal } from "@kassa/core"
import * as Effect from "effect/Effect"

/**
 * The party of an API-key caller. Access tokens open single resources, not the party's
 * business, so they are refused here.
 *
 * @since 0.1.0
 */
export const merchantParty = Effect.gen(function*() {
  const principal = yield* Principal.CurrentPrincipal
  if (principal._tag !== "ApiKey") {
    return yield* new Errors.Unauthorized({ message: "This operation needs an API key" })
  }
  return Ids.PartyID.make(principal.partyID)
})

/**
 * The caller's party when the path names it; another party is answered as not found, never
 * as forbidden, so ids of other parties cannot be probed.
 *
 * @since 0.1.0
 */
export const namedParty = (partyID: string) =>
  Effect.flatMap(merchantParty, (own) =>
    own === partyID ? Effect.succeed(own) : Effect.fail(Errors.NotFound.of("Party", partyID)))

/** Any authenticated caller (reference data). @since 0.1.0 */
export const anyCaller = Effect.asVoid(Principal.CurrentPrincipal)

/**
 * The party on whose behalf a caller reaches one resource: an API key reaches every resource
 * of its party; an access token only the resource it names. Anything else reads as not found
 * (the reference platform masks forbidden reads the same way).
 *
 * @since 0.1.0
 */
export const resourceParty = (resource: Principal.ResourceType, id: string, what: string) =>
  Effect.flatMap(Principal.CurrentPrincipal, (principal) => {
    if (principal._tag === "ApiKey") return Effect.succeed(principal.partyID)
    if (principal._tag === "AccessToken" && principal.resource === resource && principal.resourceID === id) {
      return Effect.succeed(principal.partyID)
    }
    return Effect.fail(Errors.NotFound.of(what, id))
  })
