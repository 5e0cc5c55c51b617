/**
 * What the identity's modules work with, resolved once by the facade.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import { Idempotency } from "../ports/Idempotency.js"
import { IdentityRepository } from "../ports/IdentityRepository.js"
import { Ids } from "../ports/Ids.js"
import { PartyRepository } from "../ports/PartyRepository.js"
import { ProviderTermsRepository } from "../ports/ProviderTermsRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import * as Ref from "../Ref.js"
import * as WithdrawalMethods from "./WithdrawalMethods.js"

/** A challenge: `identityID/challengeID`, as its timer names it. @since 0.1.0 */
export const ChallengeRef = Ref.make("identityID", "challengeID")

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const identities = yield* IdentityRepository
  return {
    identities,
    parties: yield* PartyRepository,
    methods: WithdrawalMethods.make(yield* ProviderTermsRepository),
    ids: yield* Ids,
    timers: yield* Timers,
    tx: yield* Transactions,
    externalIDs: Idempotent.make(yield* Idempotency),
    /** The identity when it is the party's (another party's reads as missing). */
    find: (partyID: string, id: string) =>
      Effect.map(identities.findById(id), Option.filter((i) => i.partyID === partyID)),
    load: (id: string) =>
      Effect.flatMap(identities.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Identity", id)))),
    loadChallenge: (identityID: string, id: string) =>
      Effect.flatMap(
        identities.findChallenge(identityID, id),
        (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Identity challenge", id)))
      )
  }
})

/** @since 0.1.0 @category models */
export type IdentityContext = Effect.Effect.Success<typeof make>
