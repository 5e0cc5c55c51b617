/**
 * The identity challenge's state machine, as pure functions.
 *
 * - `start` decides whether an identity may start a challenge of a type with these proofs:
 *   the type must be one its class knows and one its current level offers, no other challenge
 *   may be pending, every proof must be known and the required proof types all present.
 * - `decide` moves a challenge along `legalMoves` (Pending → Completed, Failed or Cancelled);
 *   a command to a settled challenge changes nothing.
 * - Proofs are test documents, named by their tokens (there is no document store): `documentOf`
 *   reads a token starting with `passport` as a domestic passport and one starting with `snils`
 *   as a retiree insurance certificate; any other token names no document ("Proof not found").
 *   `verdictOf` is the test review: a token containing `fail` fails the challenge, one containing
 *   `hold` leaves it to the operator; otherwise it completes.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { Conflict, InvalidOperation, type InvalidOperationMessage } from "../Errors.js"
import type { ChallengeParams, ChallengeStatus } from "./Challenge.js"
import * as Provider from "./Provider.js"

/** @since 0.1.0 @category models */
export interface ChallengeState {
  readonly status: ChallengeStatus
  readonly failureReason?: string | undefined
  readonly validUntil?: Date | undefined
}

/** @since 0.1.0 @category models */
export type ChallengeCommand = Data.TaggedEnum<{
  Complete: { readonly validUntil: Date }
  Fail: { readonly reason: string }
  Cancel: {}
}>

/** @since 0.1.0 @category constructors */
export const ChallengeCommand = Data.taggedEnum<ChallengeCommand>()

/** The statuses each status may move to. @since 0.1.0 */
export const legalMoves: Readonly<Record<ChallengeStatus, ReadonlyArray<ChallengeStatus>>> = {
  Pending: ["Completed", "Failed", "Cancelled"],
  Completed: [],
  Failed: [],
  Cancelled: []
}

/** @since 0.1.0 @category models */
export interface Decision {
  readonly state: ChallengeState
  /** Whether the status moved (one event to record). */
  readonly moved: boolean
}

/** @since 0.1.0 */
export const decide = (state: ChallengeState, command: ChallengeCommand): Decision => {
  if (state.status !== "Pending") return { state, moved: false }
  switch (command._tag) {
    case "Complete":
      return { state: { status: "Completed", validUntil: command.validUntil }, moved: true }
    case "Fail":
      return { state: { status: "Failed", failureReason: command.reason }, moved: true }
    case "Cancel":
      return { state: { status: "Cancelled" }, moved: true }
  }
}

/** The identity a challenge is decided against. @since 0.1.0 @category models */
export interface ChallengedIdentity {
  readonly provider: string
  readonly class: string
  readonly level: string
}

/** What a started challenge will raise the identity to. @since 0.1.0 @category models */
export interface Started {
  readonly raisesTo: string
}

/** How the test review settles a challenge's proofs. @since 0.1.0 @category models */
export type Verdict = "complete" | "fail" | "hold"

const tokenSays = (token: string, word: string) => token.toLowerCase().includes(word)

/** The document a proof's token names, if any. @since 0.1.0 */
export const documentOf = (token: string): Provider.ProofType | undefined => {
  const t = token.toLowerCase()
  return t.startsWith("passport") ? "RUSDomesticPassport" : t.startsWith("snils") ? "RUSRetireeInsuranceCertificate" : undefined
}

/** @since 0.1.0 */
export const verdictOf = (params: Pick<ChallengeParams, "proofs">): Verdict =>
  params.proofs.some((p) => tokenSays(p.token, "fail"))
    ? "fail"
    : params.proofs.some((p) => tokenSays(p.token, "hold"))
    ? "hold"
    : "complete"

/** @since 0.1.0 */
export const start = (
  identity: ChallengedIdentity,
  pending: Option.Option<{ readonly id: string }>,
  params: ChallengeParams
): Either.Either<Started, InvalidOperation | Conflict> => {
  const refuse = (message: InvalidOperationMessage) => Either.left(InvalidOperation.of(message))
  const cls = Option.flatMap(Provider.find(identity.provider), (p) => Provider.findClass(p, identity.class))
  if (Option.isNone(cls)) return refuse("No such challenge type")
  const type = Provider.challengeTypes(cls.value).find((t) => t.id === params.type)
  if (type === undefined) return refuse("No such challenge type")
  const level = Provider.findLevel(cls.value, identity.level)
  const next = Provider.nextLevel(cls.value, identity.level)
  if (Option.isNone(level) || Option.isNone(next) || !level.value.challenges.some((t) => t.id === type.id)) {
    return refuse("Illegal identification type for current identity level")
  }
  if (Option.isSome(pending)) {
    return Either.left(new Conflict({ id: pending.value.id, message: "Another challenge of this identity is pending" }))
  }
  const documents = params.proofs.map((p) => documentOf(p.token))
  if (documents.some((d) => d === undefined)) return refuse("Proof not found")
  const given = new Set(documents)
  if (!type.requiredProofs.every((t) => given.has(t))) return refuse("Insufficient proof")
  return Either.right({ raisesTo: next.value.id })
}
