/**
 * What the card-token interface keeps of a card: a number that passes Luhn, of a payment system
 * Kassa knows by its BIN and of a length that system issues, with an expiry not yet past and,
 * when given, a CVV of the system's length. Refusals are the interface's two 422 messages; they
 * never repeat the number or the CVV.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import { InvalidBankCard } from "../Errors.js"
import * as Card from "../payment/Card.js"

/** A card as `storeBankCard` takes it: only the number is required by the wire. @since 0.1.0 @category models */
export interface BankCardInput {
  readonly cardNumber: string
  /** `MM/YY` or `MM/YYYY` */
  readonly expDate?: string | undefined
  readonly cardHolder?: string | undefined
  readonly cvv?: string | undefined
}

/**
 * Checks a card. The vault keeps an expiry with every card, so a card without one is refused as
 * invalid data.
 *
 * @since 0.1.0
 */
export const check = (input: BankCardInput, now: Date): Either.Either<Card.ValidCard, InvalidBankCard> => {
  if (input.expDate === undefined) return Either.left(new InvalidBankCard({ message: "Card data is invalid" }))
  return Either.mapLeft(
    Card.validate({ ...input, expDate: input.expDate }, now),
    (problem) =>
      new InvalidBankCard({ message: problem === "cardNumber: unsupported card" ? "Unsupported card" : "Card data is invalid" })
  )
}
