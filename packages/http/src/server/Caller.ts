/**
 * Who may do what: party scoping for the handlers.
 *
 * @since 0.1.0
 */
import { Errors, Ids, Principal } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

const needsApiKey = (message: string) => Effect.fail(new Errors.Unauthorized({ message }))

/**
 * `f` of the caller's principal, read off the fiber's context in the step that runs `f`: the
 * principal as an effect, then `f` after it, cost every request five steps more.
 */
const withPrincipal = <A, E, R>(
  f: (principal: Principal.Principal) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Principal.CurrentPrincipal> =>
  Effect.withFiberRuntime((fiber) => f(Context.unsafeGet(fiber.currentContext as Context.Context<Principal.CurrentPrincipal>, Principal.CurrentPrincipal)))

/**
 * `f` of the party of an API-key caller. Access tokens open single resources, not the party's
 * business, so they are refused here.
 *
 * @since 0.1.0
 */
export const withMerchantParty = <A, E, R>(
  f: (party: Ids.PartyID) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | Errors.Unauthorized, R | Principal.CurrentPrincipal> =>
  withPrincipal((principal): Effect.Effect<A, E | Errors.Unauthorized, R> =>
    principal._tag === "ApiKey" ? f(Ids.PartyID.make(principal.partyID)) : needsApiKey("This operation needs an API key")
  )

/**
 * The party of an API-key caller (`withMerchantParty`).
 *
 * @since 0.1.0
 */
export const merchantParty = withMerchantParty(Effect.succeed)

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
 * `f` of the party on whose behalf a caller reaches one resource: an API key reaches every resource
 * of its party; an access token only the resource it names. Anything else reads as not found
 * (the reference platform masks forbidden reads the same way).
 *
 * @since 0.1.0
 */
export const withResourceParty = <A, E, R>(
  resource: Principal.ResourceType,
  id: string,
  what: string,
  f: (party: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | Errors.NotFound, R | Principal.CurrentPrincipal> =>
  withPrincipal((principal): Effect.Effect<A, E | Errors.NotFound, R> => {
    if (principal._tag === "ApiKey") return f(principal.partyID)
    if (principal._tag === "AccessToken" && principal.resource === resource && principal.resourceID === id) {
      return f(principal.partyID)
    }
    return Effect.fail(Errors.NotFound.of(what, id))
  })

/**
 * The party on whose behalf a caller reaches one resource (`withResourceParty`).
 *
 * @since 0.1.0
 */
export const resourceParty = (resource: Principal.ResourceType, id: string, what: string) =>
  withResourceParty(resource, id, what, Effect.succeed)
