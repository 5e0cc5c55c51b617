/**
 * startIdentityChallenge: proofs handed in to raise the identity's level. The machine's `start`
 * decides, on the identity as this transaction reads it and its pending challenge; the identity's
 * version is bumped so two concurrent starts cannot both see none pending.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { ChallengeParams, ChallengeRecord } from "./Challenge.js"
import type * as ChallengeProcessing from "./ChallengeProcessing.js"
import { documentOf, start } from "./ChallengeMachine.js"
import type { IdentityContext } from "./IdentityContext.js"

type Processing = Effect.Effect.Success<ReturnType<typeof ChallengeProcessing.make>>

/** @since 0.1.0 @category constructors */
export const make = (ctx: IdentityContext, processing: Processing) => {
  const { find, identities, ids, load, tx } = ctx
  return Traced.fn("IdentityService.startChallenge")(function*(partyID: string, identityID: string, params: ChallengeParams) {
    const known = yield* find(partyID, identityID)
    if (Option.isNone(known)) return yield* NotFound.of("Identity", identityID)
    const id = yield* ids.next
    return yield* Optimistic.command(tx.withTransaction, {
      read: load(identityID),
      update: identities.update,
      what: `identity ${identityID}`
    }, ({ current, save }) =>
      Effect.gen(function*() {
        const pending = (yield* identities.challengesOf(identityID)).find((c) => c.status === "Pending")
        const started = start(current, Option.fromNullable(pending), params)
        if (Either.isLeft(started)) return yield* started.left
        yield* save(current)
        const at = new Date(yield* Clock.currentTimeMillis)
        const challenge: ChallengeRecord = {
          id,
          identityID,
          partyID,
          type: params.type,
          proofs: params.proofs.map((p) => ({ type: documentOf(p.token)!, token: p.token })),
          status: "Pending",
          events: [{ eventID: 1, occuredAt: at, status: "Pending" }],
          createdAt: at,
          version: 1
        }
        yield* identities.insertChallenge(challenge)
        yield* processing.schedule(challenge)
        return challenge
      }))
  })
}
