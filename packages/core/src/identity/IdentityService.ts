/**
 * The identity's facade for handlers and embedders: the providers' reference data, identities
 * (`CreateIdentity`), their challenges (`StartChallenge`, reviewed by `ChallengeProcessing`) and
 * the operator's decision on a pending challenge, and the operator's changes to a provider's
 * payment systems (`WithdrawalMethods`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvalidOperation, NotFound } from "../Errors.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import * as Page from "../Page.js"
import * as Ref from "../Ref.js"
import * as ChallengeProcessing from "./ChallengeProcessing.js"
import { ChallengeCommand } from "./ChallengeMachine.js"
import * as CreateIdentity from "./CreateIdentity.js"
import { type IdentityRecord, toIdentity } from "./Identity.js"
import * as IdentityContext from "./IdentityContext.js"
import * as Provider from "./Provider.js"
import * as StartChallenge from "./StartChallenge.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateIdentity.js"
/** @since 0.1.0 */
export { REVIEW_DELAY_MS, REVIEW_TIMER } from "./ChallengeProcessing.js"

/** The page size of `listIdentities`, whose older revision takes no `limit`. @since 0.1.0 */
export const DEFAULT_LIMIT = 1000

/** The operator's decision on a pending challenge. @since 0.1.0 @category models */
export type Decision = "complete" | "fail" | "cancel"

/** @since 0.1.0 @category models */
export interface ListParams {
  readonly partyID?: string | undefined
  readonly providerID?: string | undefined
  readonly classID?: string | undefined
  readonly levelID?: string | undefined
  readonly limit?: number | undefined
  readonly after?: Page.Cursor | undefined
}

/** What builds the service: `IdentityService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* IdentityContext.make
  const { externalIDs, find, identities } = ctx
  const processing = yield* ChallengeProcessing.make(ctx)

  const get = Traced.fn("IdentityService.get")(function*(partyID: string, id: string) {
    const found = yield* find(partyID, id)
    if (Option.isNone(found)) return yield* NotFound.of("Identity", id)
    return found.value
  })

  const getByExternalID = Traced.fn("IdentityService.getByExternalID")(function*(partyID: string, externalID: string) {
    const ref = yield* externalIDs.find(Ref.Id, partyID, CreateIdentity.OPERATION, externalID, "Identity")
    return yield* get(partyID, ref.id)
  })

  /** The caller's identities; another party's `partyID` filter finds none. */
  const list = Traced.fn("IdentityService.list")(function*(partyID: string, params: ListParams) {
    const limit = params.limit ?? DEFAULT_LIMIT
    if (params.partyID !== undefined && params.partyID !== partyID) return { result: [] } as Page.Page<ReturnType<typeof toIdentity>>
    const rows = yield* identities.list(
      { partyID, providerID: params.providerID, classID: params.classID, levelID: params.levelID },
      { limit, after: params.after }
    )
    return Page.of(rows, limit, toIdentity)
  })

  const getWithdrawalMethods = Traced.fn("IdentityService.getWithdrawalMethods")(function*(partyID: string, id: string) {
    const found = yield* find(partyID, id)
    if (Option.isNone(found)) return yield* InvalidOperation.of("No such identity")
    const provider = Provider.find(found.value.provider)
    return { methods: Option.isNone(provider) ? [] : yield* ctx.methods.of(provider.value) }
  })

  const challenge = Traced.fn("IdentityService.getChallenge")(function*(partyID: string, identityID: string, id: string) {
    yield* get(partyID, identityID)
    return yield* ctx.loadChallenge(identityID, id)
  })

  const challenges = Traced.fn("IdentityService.listChallenges")(function*(partyID: string, identityID: string, status?: string) {
    yield* get(partyID, identityID)
    const all = yield* identities.challengesOf(identityID)
    return status === undefined ? all : all.filter((c) => c.status === status)
  })

  /** The challenge's events after `after` (0: from the first), at most `limit`. */
  const challengeEvents = Traced.fn("IdentityService.challengeEvents")(
    function*(partyID: string, identityID: string, id: string, limit: number, after = 0) {
      const c = yield* challenge(partyID, identityID, id)
      return c.events.filter((e) => e.eventID > after).slice(0, limit)
    }
  )

  const challengeEvent = Traced.fn("IdentityService.challengeEvent")(
    function*(partyID: string, identityID: string, id: string, eventID: number) {
      const c = yield* challenge(partyID, identityID, id)
      const event = c.events.find((e) => e.eventID === eventID)
      if (event === undefined) return yield* NotFound.of("Identity challenge event", eventID)
      return event
    }
  )

  /** The operator completes, fails or cancels a pending challenge (a settled one stays as it is). */
  const decideChallenge = Traced.fn("IdentityService.decideChallenge")(
    function*(identityID: string, id: string, decision: Decision, failureReason = "Rejected by the operator") {
      yield* ctx.loadChallenge(identityID, id)
      const now = yield* Clock.currentTimeMillis
      const command = decision === "complete"
        ? ChallengeCommand.Complete({ validUntil: new Date(now + ChallengeProcessing.VALIDITY_MS) })
        : decision === "fail"
        ? ChallengeCommand.Fail({ reason: failureReason })
        : ChallengeCommand.Cancel()
      return yield* processing.settle(identityID, id, command)
    }
  )

  /** The operator blocks or unblocks an identity. */
  const setBlocked = Traced.fn("IdentityService.setBlocked")(function*(id: string, isBlocked: boolean) {
    return yield* Optimistic.command(ctx.tx.withTransaction, { read: ctx.load(id), update: identities.update, what: `identity ${id}` }, ({
      current,
      save
    }) => save({ ...current, isBlocked } satisfies IdentityRecord))
  })

  const providerOf = (id: string) =>
    Option.match(Provider.find(id), { onNone: () => Effect.fail(NotFound.of("Provider", id)), onSome: Effect.succeed })
  const classOf = (providerID: string, id: string) =>
    Effect.flatMap(providerOf(providerID), (p) =>
      Option.match(Provider.findClass(p, id), { onNone: () => Effect.fail(NotFound.of("Identity class", id)), onSome: Effect.succeed }))
  const levelOf = (providerID: string, classID: string, id: string) =>
    Effect.flatMap(classOf(providerID, classID), (c) =>
      Option.match(Provider.findLevel(c, id), { onNone: () => Effect.fail(NotFound.of("Identity level", id)), onSome: Effect.succeed }))

  return {
    providers: (residence?: string) => Effect.succeed(Provider.list(residence)),
    provider: providerOf,
    identityClasses: (providerID: string) => Effect.map(providerOf(providerID), (p) => p.classes),
    identityClass: classOf,
    identityLevels: (providerID: string, classID: string) => Effect.map(classOf(providerID, classID), (c) => c.levels),
    identityLevel: levelOf,
    create: CreateIdentity.make(ctx),
    get,
    getByExternalID,
    list,
    getWithdrawalMethods,
    startChallenge: StartChallenge.make(ctx, processing),
    challenge,
    challenges,
    challengeEvents,
    challengeEvent,
    decideChallenge,
    setBlocked,
    /** The operator forbids one of a provider's payment systems, or allows it again. */
    setPaymentSystemAllowed: Traced.fn("IdentityService.setPaymentSystemAllowed")(function*(
      providerID: string,
      paymentSystem: string,
      allowed: boolean
    ) {
      return yield* ctx.methods.set(providerID, paymentSystem, allowed)
    })
  } as const
})

/** @since 0.1.0 @category services */
export class IdentityService extends Effect.Service<IdentityService>()("kassa/IdentityService", {
  effect: make
}) {}
