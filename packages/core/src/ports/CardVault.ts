/**
 * The card vault: card data encrypted at rest, and short-lived payment sessions holding the
 * CVV until authorisation is done. Nothing else in Kassa ever holds a card number.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** A card as the vault keeps it. @since 0.1.0 @category models */
export interface CardData {
  readonly cardNumber: string
  /** 1..12 */
  readonly expMonth: number
  /** four digits */
  readonly expYear: number
  readonly cardHolder?: string | undefined
}

/** What the vault answers for a stored card: never the number. @since 0.1.0 @category models */
export interface StoredCard {
  /** Opaque, random; the same card number always gets the same token. */
  readonly token: string
  readonly bin: string
  readonly last4: string
}

/** The secret part of a payment session. @since 0.1.0 @category models */
export interface SessionSecret {
  readonly cvv?: string | undefined
}

/** @since 0.1.0 @category tags */
export class CardVault extends Context.Tag("kassa/CardVault")<CardVault, {
  readonly putCard: (card: CardData) => Effect.Effect<StoredCard>
  readonly getCard: (token: string) => Effect.Effect<Option.Option<CardData>>
  /** Stores a session secret that expires at `expiresAt`; answers the session id. */
  readonly putSession: (secret: SessionSecret, expiresAt: Date) => Effect.Effect<string>
  /** `putCard` and `putSession` at once: what a tokenisation with a CVV stores, in one read. */
  readonly putCardAndSession: (
    card: CardData,
    secret: SessionSecret,
    expiresAt: Date
  ) => Effect.Effect<{ readonly card: StoredCard; readonly session: string }>
  /** The secret, unless expired or erased. */
  readonly getSession: (id: string) => Effect.Effect<Option.Option<SessionSecret>>
  /**
   * The card and, when `session` is given, its secret unless expired or erased: what an
   * authorisation needs, in one read.
   */
  readonly getCardAndSession: (
    token: string,
    session: string | undefined
  ) => Effect.Effect<Option.Option<{ readonly card: CardData; readonly secret: Option.Option<SessionSecret> }>>
  /** Erases the secret (after authorisation). */
  readonly deleteSession: (id: string) => Effect.Effect<void>
  /** Starts encrypting with a new data key; older keys keep decrypting. */
  readonly rotateKey: Effect.Effect<void>
}>() {}
