/**
 * The identity challenge: proofs handed in to raise an identity's level, decided later.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category schemas */
export const ChallengeStatus = Schema.Literal("Pending", "Completed", "Failed", "Cancelled")
/** @since 0.1.0 */
export type ChallengeStatus = typeof ChallengeStatus.Type

/** @since 0.1.0 @category schemas */
export const Proof = Schema.Struct({
  type: Schema.optional(Schema.Literal("RUSDomesticPassport", "RUSRetireeInsuranceCertificate")),
  token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))
})
/** @since 0.1.0 */
export type Proof = typeof Proof.Type

/** startIdentityChallenge's body. @since 0.1.0 @category schemas */
export const ChallengeParams = Schema.Struct({
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40)),
  proofs: Schema.Array(Proof)
}).annotations({ identifier: "IdentityChallengeParams" })
/** @since 0.1.0 */
export type ChallengeParams = typeof ChallengeParams.Type

/** One status change of a challenge: its events, numbered from 1. @since 0.1.0 @category models */
export interface ChallengeEvent {
  readonly eventID: number
  readonly occuredAt: Date
  readonly status: ChallengeStatus
  readonly failureReason?: string | undefined
}

/** The challenge as stored. @since 0.1.0 @category models */
export interface ChallengeRecord {
  readonly id: string
  readonly identityID: string
  readonly partyID: string
  readonly type: string
  readonly proofs: ReadonlyArray<Proof>
  readonly status: ChallengeStatus
  readonly failureReason?: string | undefined
  /** Until when a completed challenge's level holds. */
  readonly validUntil?: Date | undefined
  readonly events: ReadonlyArray<ChallengeEvent>
  readonly createdAt: Date
  readonly version: number
}

/** The challenge as the RBK revision shows it. @since 0.1.0 */
export const toChallenge = (c: ChallengeRecord) => ({
  id: c.id,
  createdAt: c.createdAt,
  type: c.type,
  proofs: c.proofs,
  status: c.status,
  ...(c.validUntil === undefined ? {} : { validUntil: c.validUntil }),
  ...(c.failureReason === undefined ? {} : { failureReason: c.failureReason })
})

/** An event as `pollIdentityChallengeEvents` shows it. @since 0.1.0 */
export const toChallengeEvent = (e: ChallengeEvent) => ({
  eventID: e.eventID,
  occuredAt: e.occuredAt,
  changes: [{
    type: "IdentityChallengeStatusChanged" as const,
    status: e.status,
    ...(e.failureReason === undefined ? {} : { failureReason: e.failureReason })
  }]
})
