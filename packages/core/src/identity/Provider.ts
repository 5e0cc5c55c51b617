/**
 * The wallet providers, their identity classes and levels: reference data, the same in every
 * deployment. Provider `test` serves class `person`, `live` serves `company`; an identity starts
 * at `anonymous` and challenges raise it to `partial`, then `full`.
 *
 * A challenge type names the proofs it needs; the documents behind the proofs are test data:
 * see `ChallengeMachine.verdictOf` for which tokens complete, fail or never settle.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export type ProofType = "RUSDomesticPassport" | "RUSRetireeInsuranceCertificate"

/** @since 0.1.0 @category models */
export interface ChallengeType {
  readonly id: string
  readonly name: string
  readonly requiredProofs: ReadonlyArray<ProofType>
}

/** @since 0.1.0 @category models */
export interface IdentityLevel {
  readonly id: string
  readonly name: string
  /** The challenges that raise an identity at this level to the next one. */
  readonly challenges: ReadonlyArray<ChallengeType>
}

/** @since 0.1.0 @category models */
export interface IdentityClass {
  readonly id: string
  readonly name: string
  /** In order: the first is where identities start. */
  readonly levels: ReadonlyArray<IdentityLevel>
}

/** @since 0.1.0 @category models */
export interface WithdrawalMethod {
  readonly method: "WithdrawalMethodBankCard"
  readonly paymentSystems: ReadonlyArray<string>
}

/** @since 0.1.0 @category models */
export interface Provider {
  readonly id: string
  readonly name: string
  readonly residences: ReadonlyArray<string>
  readonly classes: ReadonlyArray<IdentityClass>
  /** The class an identity gets when its request names none. */
  readonly defaultClass: string
  /** The currencies its wallets may hold. */
  readonly currencies: ReadonlyArray<string>
  /** The withdrawal methods its identities may use (`getWithdrawalMethods`). */
  readonly withdrawalMethods: ReadonlyArray<WithdrawalMethod>
}

const bankCards: WithdrawalMethod = { method: "WithdrawalMethodBankCard", paymentSystems: ["visa", "mastercard", "nspkmir"] }

const esia: ChallengeType = { id: "esia", name: "Simplified identification", requiredProofs: ["RUSDomesticPassport"] }
const identification: ChallengeType = {
  id: "identification",
  name: "Full identification",
  requiredProofs: ["RUSDomesticPassport", "RUSRetireeInsuranceCertificate"]
}

const levels = (
  anonymous: ReadonlyArray<ChallengeType>,
  partial: ReadonlyArray<ChallengeType>
): ReadonlyArray<IdentityLevel> => [
  { id: "anonymous", name: "Anonymous", challenges: anonymous },
  { id: "partial", name: "Partially identified", challenges: partial },
  { id: "full", name: "Fully identified", challenges: [] }
]

/** @since 0.1.0 */
export const providers: ReadonlyArray<Provider> = [
  {
    id: "test",
    name: "Test provider",
    residences: ["RUS"],
    classes: [{ id: "person", name: "Person", levels: levels([esia], [identification]) }],
    defaultClass: "person",
    currencies: ["RUB", "USD", "EUR"],
    withdrawalMethods: [bankCards]
  },
  {
    id: "live",
    name: "Live provider",
    residences: ["RUS"],
    classes: [{ id: "company", name: "Company", levels: levels([esia], [identification]) }],
    defaultClass: "company",
    currencies: ["RUB"],
    withdrawalMethods: [bankCards]
  }
]

/** Providers serving `residence` (all without one). @since 0.1.0 */
export const list = (residence?: string): ReadonlyArray<Provider> =>
  residence === undefined ? providers : providers.filter((p) => p.residences.includes(residence.toUpperCase()))

/** @since 0.1.0 */
export const find = (id: string): Option.Option<Provider> => Option.fromNullable(providers.find((p) => p.id === id))

/** @since 0.1.0 */
export const findClass = (provider: Provider, id: string): Option.Option<IdentityClass> =>
  Option.fromNullable(provider.classes.find((c) => c.id === id))

/** @since 0.1.0 */
export const findLevel = (cls: IdentityClass, id: string): Option.Option<IdentityLevel> =>
  Option.fromNullable(cls.levels.find((l) => l.id === id))

/** The level after `level` in its class, if any. @since 0.1.0 */
export const nextLevel = (cls: IdentityClass, level: string): Option.Option<IdentityLevel> => {
  const at = cls.levels.findIndex((l) => l.id === level)
  return Option.fromNullable(at < 0 ? undefined : cls.levels[at + 1])
}

/** Every challenge type of the class. @since 0.1.0 */
export const challengeTypes = (cls: IdentityClass): ReadonlyArray<ChallengeType> => {
  const seen = new Map<string, ChallengeType>()
  for (const l of cls.levels) for (const c of l.challenges) seen.set(c.id, c)
  return [...seen.values()]
}

/** The wire's Provider `{id, name, residences}`. @since 0.1.0 */
export const toProvider = (p: Provider) => ({ id: p.id, name: p.name, residences: p.residences })
/** The wire's IdentityClass `{id, name}`. @since 0.1.0 */
export const toIdentityClass = (c: IdentityClass) => ({ id: c.id, name: c.name })
