/**
 * createIdentity: an identity of the caller's party with a provider and a class (the provider's
 * default when the request names none), starting at the class's first level. Idempotent by
 * `externalID`. Refused "Party inaccessible" for another party's `partyID`, "Party does not
 * exist" when the caller's party was never onboarded, "Identity inaccessible" while the party is
 * blocked or suspended.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation } from "../Errors.js"
import { PartyID } from "../Ids.js"
import { canonicalJson } from "../internal/canonical.js"
import { createById } from "../internal/idempotent.js"
import * as Traced from "../internal/traced.js"
import type { IdentityParams, IdentityRecord } from "./Identity.js"
import type { IdentityContext } from "./IdentityContext.js"
import * as Provider from "./Provider.js"

/** The idempotency operation of an identity's `externalID`. @since 0.1.0 */
export const OPERATION = "wallet.identity"

/** @since 0.1.0 @category constructors */
export const make = (ctx: IdentityContext) => {
  const { identities, load, parties } = ctx
  return Traced.fn("IdentityService.create")(function*(partyID: string, params: IdentityParams) {
    if (params.partyID !== undefined && params.partyID !== partyID) return yield* InvalidOperation.of("Party inaccessible")
    const party = yield* parties.findById(PartyID.make(partyID))
    if (Option.isNone(party)) return yield* InvalidOperation.of("Party does not exist")
    // The reference answers a blocked or suspended party with the identity's word, keeping
    // "Party inaccessible" for a `partyID` the caller may not act for.
    if (party.value.isBlocked || party.value.isSuspended) return yield* InvalidOperation.of("Identity inaccessible")
    const provider = Provider.find(params.provider)
    if (Option.isNone(provider)) return yield* InvalidOperation.of("No such provider")
    const cls = Provider.findClass(provider.value, params.class ?? provider.value.defaultClass)
    if (Option.isNone(cls)) return yield* InvalidOperation.of("No such identity class")
    return yield* createById(ctx, {
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () =>
        canonicalJson({ name: params.name, provider: provider.value.id, class: cls.value.id, metadata: params.metadata ?? null }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const identity: IdentityRecord = {
          id,
          partyID,
          name: params.name,
          provider: provider.value.id,
          class: cls.value.id,
          level: cls.value.levels[0]!.id,
          isBlocked: false,
          ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          createdAt: new Date(yield* Clock.currentTimeMillis),
          version: 1
        }
        yield* identities.insert(identity)
        return identity
      }))
  })
}
