/**
 * Storage of card tokens for withdrawal destinations (the card-token interface): what a token
 * stands for, bound to the party that made it and valid until a moment. The card itself is in
 * the vault; this holds the vault's token and what may be shown of the card.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export interface BankCardTokenRecord {
  readonly token: string
  readonly partyID: string
  /** The vault's token of the card. */
  readonly vaultToken: string
  readonly bin: string
  readonly lastDigits: string
  readonly paymentSystem: string
  /** The vault session holding the CVV, when one was given. */
  readonly authData: string | undefined
  readonly createdAt: Date
  readonly validUntil: Date
}

/** @since 0.1.0 @category tags */
export class BankCardTokenRepository extends Context.Tag("kassa/BankCardTokenRepository")<BankCardTokenRepository, {
  readonly insert: (record: BankCardTokenRecord) => Effect.Effect<void>
  readonly findByToken: (token: string) => Effect.Effect<Option.Option<BankCardTokenRecord>>
}>() {}
