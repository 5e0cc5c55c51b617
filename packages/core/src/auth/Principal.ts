/**
 * Who is calling: a party's API key, an access token opening one resource, or the operator.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import { PARTY_NAMESPACE } from "../ports/Idempotency.js"

/** The resources an access token can open. @since 0.1.0 @category models */
export type ResourceType = "invoice" | "invoiceTemplate" | "customer"

/** @since 0.1.0 @category models */
export type Principal = Data.TaggedEnum<{
  ApiKey: { readonly partyID: string; readonly keyID: string }
  AccessToken: { readonly partyID: string; readonly resource: ResourceType; readonly resourceID: string }
  Operator: { readonly keyID: string }
}>

/** @since 0.1.0 @category constructors */
export const Principal = Data.taggedEnum<Principal>()

/** The principal of the current request. @since 0.1.0 @category tags */
export class CurrentPrincipal extends Context.Tag("kassa/CurrentPrincipal")<CurrentPrincipal, Principal>() {}

/** The party a merchant principal acts for. @since 0.1.0 */
export const partyOf = (p: Principal): string | undefined =>
  p._tag === "Operator" ? undefined : p.partyID

/**
 * The namespace of the externalIDs a principal sends: the party's own for its API keys; for an
 * access token, the resource it opens. A token (a template's is public) can then neither take an
 * externalID from the merchant nor show up in the merchant's look-ups by externalID.
 *
 * @since 0.1.0
 */
export const namespaceOf = (p: Principal): string =>
  p._tag === "AccessToken" ? `${p.resource}/${p.resourceID}` : PARTY_NAMESPACE
