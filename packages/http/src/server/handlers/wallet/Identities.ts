/**
 * Handlers of the wallet interface's identities and identity challenges.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Challenge, Identity, IdentityService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { located } from "../../wallet/Location.js"
import { cursorOf, merchantParty } from "../../wallet/WalletCaller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletIdentities", (handlers) =>
  Effect.gen(function*() {
    const identities = yield* IdentityService.IdentityService
    return handlers
      .handle("listIdentities", ({ urlParams }) =>
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
        }))
      .handle("createIdentity", ({ payload }) =>
        located("/wallet/v0/identities")(
          Effect.flatMap(merchantParty, (party) => identities.create(party, payload)).pipe(Effect.map(Identity.toIdentity)),
          (i) => i.id
        ))
      .handle("getIdentity", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => identities.get(party, path.identityID)).pipe(Effect.map(Identity.toIdentity)))
      .handle("getWithdrawalMethods", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => identities.getWithdrawalMethods(party, path.identityID)))
      .handle("listIdentityChallenges", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) => identities.challenges(party, path.identityID, urlParams.status)).pipe(
          Effect.map((list) => list.map(Challenge.toChallenge))
        ))
      .handle("startIdentityChallenge", ({ path, payload }) =>
        located(`/wallet/v0/identities/${encodeURIComponent(path.identityID)}/challenges`)(
          Effect.flatMap(merchantParty, (party) => identities.startChallenge(party, path.identityID, payload)).pipe(
            Effect.map(Challenge.toChallenge)
          ),
          (c) => c.id
        ))
      .handle("getIdentityChallenge", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => identities.challenge(party, path.identityID, path.challengeID)).pipe(
          Effect.map(Challenge.toChallenge)
        ))
      .handle("pollIdentityChallengeEvents", ({ path, urlParams }) =>
        Effect.flatMap(
          merchantParty,
          (party) => identities.challengeEvents(party, path.identityID, path.challengeID, urlParams.limit, urlParams.eventCursor ?? 0)
        ).pipe(Effect.map((events) => events.map(Challenge.toChallengeEvent))))
      .handle("getIdentityChallengeEvent", ({ path }) =>
        Effect.flatMap(
          merchantParty,
          (party) => identities.challengeEvent(party, path.identityID, path.challengeID, path.eventID)
        ).pipe(Effect.map(Challenge.toChallengeEvent)))
  }))
