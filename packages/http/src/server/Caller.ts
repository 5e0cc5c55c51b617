/**
 * Who may do what: party scoping for the handlers.
 *
 * @since 0.1.0
 */
import { Errors, Ids, Principal } from "@kassa/core"
import * as Effect from "effect/Effect"

const needsApiKey = (message: string) => Effect.fail(new Errors.Unauthorized({ message }))

/**
 * The party of an API-key caller. Access tokens open single resources, not the party's
 * business, so they are refused here.
 *
 * @since 0.1.0
 */
export const merchantParty = Effect.gen(function*() {
  const principal = yield* Principal.CurrentPrincipal
  if (principal._tag !== "ApiKey") return yield* needsApiKey("This operation needs an API key")
  return Ids.PartyID.make(principal.partyID)
})

/**
 * Refuses, as an operation outside its scope, what only the merchant may ask inside an operation
 * an access token opens (such as charging a saved card). Reads nothing.
 *
 * @since 0.1.0
 */
export const merchantOnly = (message: string) =>
  Effect.flatMap(Principal.CurrentPrincipal, (p) => p._tag === "ApiKey" ? Effect.void : needsApiKey(message))

/**
 * The namespace of the externalIDs the caller sends: the party's own for an API key, the
 * resource for an access token.
 *
 * @since 0.1.0
 */
export const externalIdNamespace = Effect.map(Principal.CurrentPrincipal, Principal.namespaceOf)

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
