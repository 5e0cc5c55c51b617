/**
 * createDestination: a bank card of one of the caller's identities, named by a live card token
 * of the party's, in a currency the identity's provider supports and a payment system its
 * withdrawal methods name now (`WithdrawalMethods`). It is stored `Unauthorized` and authorized in the background.
 * Idempotent by `externalID`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation } from "../Errors.js"
import * as NamedIdentity from "../identity/NamedIdentity.js"
import * as Provider from "../identity/Provider.js"
import { canonicalJson } from "../internal/canonical.js"
import { createById } from "../internal/idempotent.js"
import * as Traced from "../internal/traced.js"
import type { DestinationParams, DestinationRecord } from "./Destination.js"
import type { DestinationContext } from "./DestinationContext.js"
import * as DestinationEvents from "./DestinationEvents.js"

/** The idempotency operation of a destination's `externalID`. @since 0.1.0 */
export const OPERATION = "wallet.destination"

/** @since 0.1.0 @category constructors */
export const make = (ctx: DestinationContext) => {
  const { bankCards, destinations, events, identities, load, methods, processing } = ctx
  const named = NamedIdentity.make(identities)
  return Traced.fn("DestinationService.create")(function*(partyID: string, params: DestinationParams) {
    const identity = yield* named.usable(partyID, params.identity)
    const provider = Provider.find(identity.provider)
    if (Option.isNone(provider) || !provider.value.currencies.includes(params.currency)) {
      return yield* InvalidOperation.of("Currency not supported")
    }
    const resource = params.resource
    if (resource.type !== "BankCardDestinationResource") return yield* InvalidOperation.of("Resource type not allowed")
    const card = yield* bankCards.resolve(partyID, resource.token)
    if (!(yield* methods.allows(provider.value, card.paymentSystem))) return yield* InvalidOperation.of("Resource type not allowed")
    const destination = yield* createById(ctx, {
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () =>
        canonicalJson({
          name: params.name,
          identity: params.identity,
          currency: params.currency,
          card: card.vaultToken,
          metadata: params.metadata ?? null
        }),
      load
    }, (id) =>
      Effect.gen(function*() {
        const destination: DestinationRecord = {
          id,
          partyID,
          identityID: identity.id,
          name: params.name,
          currency: params.currency,
          resource: {
            type: "BankCardDestinationResource",
            token: resource.token,
            bin: card.bin,
            lastDigits: card.lastDigits,
            paymentSystem: card.paymentSystem
          },
          vaultToken: card.vaultToken,
          status: "Unauthorized",
          isBlocked: false,
          ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
          ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
          createdAt: new Date(yield* Clock.currentTimeMillis),
          version: 1
        }
        yield* destinations.insert(destination)
        yield* events.append(DestinationEvents.created(destination))
        yield* processing.schedule(id)
        return destination
      }))
    if (destination.status === "Unauthorized") yield* processing.kick(destination.id)
    return destination
  })
}
