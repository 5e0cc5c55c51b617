/**
 * Handlers of the wallet interface's identities and identity challenges.
 *
 * @since 0.1.0
 */
import { Challenge, Identity, IdentityService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The WalletIdentities group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const identities = yield* IdentityService.IdentityService
  return Group.handlers(KassaApi, "WalletIdentities")({
    listIdentities: ({ urlParams }) =>
      Effect.gen(function*() {
        const party = yield* merchantParty
        return yield* identities.list(party, {
          partyID: urlParams.partyID,
          providerID: urlParams.providerID,
          classID: urlParams.class,
          levelID: urlParams.level,
          limit: urlParams.limit,
          after: yield* cursorOf(urlParams.continuationToken)
        })
      }),
    createIdentity: ({ payload }) =>
      located("/wallet/v0/identities")(
        Effect.flatMap(merchantParty, (party) => identities.create(party, payload)).pipe(Effect.map(Identity.toIdentity)),
        (i) => i.id
      ),
    getIdentity: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => identities.get(party, path.identityID)).pipe(Effect.map(Identity.toIdentity)),
    getWithdrawalMethods: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => identities.getWithdrawalMethods(party, path.identityID)),
    listIdentityChallenges: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) => identities.challenges(party, path.identityID, urlParams.status)).pipe(
        Effect.map((list) => list.map(Challenge.toChallenge))
      ),
    startIdentityChallenge: ({ path, payload }) =>
      located(`/wallet/v0/identities/${encodeURIComponent(path.identityID)}/challenges`)(
        Effect.flatMap(merchantParty, (party) => identities.startChallenge(party, path.identityID, payload)).pipe(
          Effect.map(Challenge.toChallenge)
        ),
        (c) => c.id
      ),
    getIdentityChallenge: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => identities.challenge(party, path.identityID, path.challengeID)).pipe(
        Effect.map(Challenge.toChallenge)
      ),
    pollIdentityChallengeEvents: ({ path, urlParams }) =>
      Effect.flatMap(
        merchantParty,
        (party) => identities.challengeEvents(party, path.identityID, path.challengeID, urlParams.limit, urlParams.eventCursor ?? 0)
      ).pipe(Effect.map((events) => events.map(Challenge.toChallengeEvent))),
    getIdentityChallengeEvent: ({ path }) =>
      Effect.flatMap(
        merchantParty,
        (party) => identities.challengeEvent(party, path.identityID, path.challengeID, path.eventID)
      ).pipe(Effect.map(Challenge.toChallengeEvent))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WalletIdentities", handlers)
