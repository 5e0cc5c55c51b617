/**
 * Card tokens for withdrawal destinations (the card-token interface): a card in, a token out that
 * lives 64 minutes and stands for the vaulted card; the number never leaves the vault, the CVV
 * goes to a vault session named by `authData`. A token reads as not found once expired or from
 * another party.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { InvalidParameter, NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { type BankCardTokenRecord, BankCardTokenRepository } from "../ports/BankCardTokenRepository.js"
import { CardVault } from "../ports/CardVault.js"
import { Ids } from "../ports/Ids.js"
import { Transactions } from "../ports/Transactions.js"
import { type BankCardInput, check } from "./BankCardRules.js"

/** A card token lives 64 minutes (the reference platform's token lifetime). @since 0.1.0 */
export const TOKEN_LIFETIME_MS = 64 * 60_000

/** What a token shows of its card. @since 0.1.0 @category models */
export interface SecuredBankCard {
  readonly token: string
  readonly bin: string
  readonly lastDigits: string
  readonly paymentSystem: string
  readonly validUntil: Date
}

/** `store`'s answer: `authData` names the CVV's vault session, when a CVV was given. @since 0.1.0 @category models */
export interface StoredBankCard extends SecuredBankCard {
  readonly authData: string | undefined
}

const secured = (r: BankCardTokenRecord): SecuredBankCard => ({
  token: r.token,
  bin: r.bin,
  lastDigits: r.lastDigits,
  paymentSystem: r.paymentSystem,
  validUntil: r.validUntil
})

/** What builds the service: `BankCards.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const vault = yield* CardVault
  const tokens = yield* BankCardTokenRepository
  const ids = yield* Ids
  const tx = yield* Transactions

  /** The party's live token, if `token` is one. */
  const live = (partyID: string, token: string) =>
    Effect.gen(function*() {
      const found = yield* tokens.findByToken(token)
      const now = yield* Clock.currentTimeMillis
      return Option.filter(found, (r) => r.partyID === partyID && r.validUntil.getTime() > now)
    })

  const store = Traced.fn("BankCards.store")(function*(partyID: string, input: BankCardInput) {
    const now = new Date(yield* Clock.currentTimeMillis)
    const checked = check(input, now)
    if (Either.isLeft(checked)) return yield* checked.left
    const { card, details, paymentSystem } = checked.right
    const validUntil = new Date(now.getTime() + TOKEN_LIFETIME_MS)
    const token = `bc.${yield* ids.next}${yield* ids.next}`
    // The vault's card and session and the token naming them go as one write.
    const record = yield* tx.withTransaction(Effect.gen(function*() {
      const { card: stored, session } = input.cvv === undefined
        ? { card: yield* vault.putCard(card), session: undefined }
        : yield* vault.putCardAndSession(card, { cvv: input.cvv }, validUntil)
      const record: BankCardTokenRecord = {
        token,
        partyID,
        vaultToken: stored.token,
        bin: details.bin,
        lastDigits: details.last4,
        paymentSystem,
        authData: session,
        createdAt: now,
        validUntil
      }
      yield* tokens.insert(record)
      return record
    }))
    const answer: StoredBankCard = { ...secured(record), authData: record.authData }
    return answer
  })

  /** `getBankCard`: the party's live token, else not found. */
  const get = Traced.fn("BankCards.get")(function*(partyID: string, token: string) {
    const found = yield* live(partyID, token)
    if (Option.isNone(found)) return yield* NotFound.of("Bank card", "token")
    return secured(found.value)
  })

  /**
   * What a destination's `BankCardDestinationResource` token stands for (the vault's token
   * with it): `InvalidResourceToken` unless it is the party's and live.
   */
  const resolve = Traced.fn("BankCards.resolve")(function*(partyID: string, token: string) {
    const found = yield* live(partyID, token)
    if (Option.isNone(found)) {
      return yield* InvalidParameter.of("InvalidResourceToken", "resource", "Specified resource token is invalid")
    }
    return found.value
  })

  return { store, get, resolve } as const
})

/** @since 0.1.0 @category services */
export class BankCards extends Effect.Service<BankCards>()("kassa/BankCards", {
  effect: make
}) {}
