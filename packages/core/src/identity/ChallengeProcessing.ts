/**
 * A challenge's review: a durable timer set when the challenge starts decides it by its proofs
 * (`ChallengeMachine.verdictOf`) after `REVIEW_DELAY_MS`; the operator may decide a pending one
 * sooner. A completed challenge raises its identity to the next level in the same transaction.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Optimistic from "../internal/optimistic.js"
import type { ChallengeRecord } from "./Challenge.js"
import { ChallengeRef, type IdentityContext } from "./IdentityContext.js"
import { ChallengeCommand, decide, verdictOf } from "./ChallengeMachine.js"
import * as Provider from "./Provider.js"
import * as Option from "effect/Option"

/** The timer that reviews a challenge. @since 0.1.0 */
export const REVIEW_TIMER = "identity.challenge.review"
/** How long the test review takes. @since 0.1.0 */
export const REVIEW_DELAY_MS = 60_000
/** How long a completed challenge's level holds. @since 0.1.0 */
export const VALIDITY_MS = 365 * 86_400_000

/** @since 0.1.0 @category constructors */
export const make = (ctx: IdentityContext) =>
  Effect.gen(function*() {
    const { identities, load, loadChallenge, timers, tx } = ctx

    /** Applies `command` to the challenge, and its level to the identity when it completes. */
    const settle = (identityID: string, challengeID: string, command: ChallengeCommand) =>
      Optimistic.command(tx.withTransaction, {
        read: loadChallenge(identityID, challengeID),
        update: identities.updateChallenge,
        what: `identity challenge ${identityID}/${challengeID}`
      }, ({ current: c, save, unchanged }) =>
        Effect.gen(function*() {
          const { moved, state } = decide(c, command)
          if (!moved) {
            yield* unchanged
            return c
          }
          const at = new Date(yield* Clock.currentTimeMillis)
          const saved = yield* save({
            ...c,
            status: state.status,
            failureReason: state.failureReason,
            validUntil: state.validUntil,
            events: [...c.events, {
              eventID: c.events.length + 1,
              occuredAt: at,
              status: state.status,
              ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason })
            }]
          })
          if (state.status === "Completed") {
            const identity = yield* load(identityID)
            const cls = Option.flatMap(Provider.find(identity.provider), (p) => Provider.findClass(p, identity.class))
            const next = Option.flatMap(cls, (k) => Provider.nextLevel(k, identity.level))
            const raised = { ...identity, level: Option.getOrElse(Option.map(next, (l) => l.id), () => identity.level), effectiveChallenge: c.id, version: identity.version + 1 }
            if (!(yield* identities.update(raised, identity.version))) {
              return yield* new Optimistic.VersionConflict({ what: `identity ${identityID}` })
            }
          }
          yield* timers.cancel(REVIEW_TIMER, ChallengeRef.encode({ identityID, challengeID }))
          return saved
        }))

    /** The test review of a challenge's proofs. */
    const review = (c: ChallengeRecord) =>
      Effect.gen(function*() {
        if (c.status !== "Pending") return c
        const verdict = verdictOf(c)
        if (verdict === "hold") return c
        const now = yield* Clock.currentTimeMillis
        return yield* settle(
          c.identityID,
          c.id,
          verdict === "complete"
            ? ChallengeCommand.Complete({ validUntil: new Date(now + VALIDITY_MS) })
            : ChallengeCommand.Fail({ reason: "Proof rejected" })
        )
      })

    yield* timers.register(REVIEW_TIMER, (timer) =>
      Effect.gen(function*() {
        const { challengeID, identityID } = ChallengeRef.decode(timer.subject)
        yield* review(yield* loadChallenge(identityID, challengeID))
      }).pipe(Effect.catchAll((e) => Effect.logWarning("identity challenge review refused", e))))

    /** Sets the review timer of a challenge just started (inside its transaction). */
    const schedule = (c: ChallengeRecord) =>
      timers.schedule({
        kind: REVIEW_TIMER,
        subject: ChallengeRef.encode({ identityID: c.identityID, challengeID: c.id }),
        dueAt: new Date(c.createdAt.getTime() + REVIEW_DELAY_MS),
        payload: null
      })

    return { settle, schedule } as const
  })
