/**
 * Bank cards: the checks a card number, expiry date, CVV and holder name must pass before the
 * vault keeps them, the payment system of a number, and the masks shown in place of a number.
 * Pure: no I/O.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type { CardData } from "../ports/CardVault.js"

/** The payment systems of the specification's enum. @since 0.1.0 @category models */
export type PaymentSystem =
  | "visa"
  | "mastercard"
  | "visaelectron"
  | "maestro"
  | "forbrugsforeningen"
  | "dankort"
  | "amex"
  | "dinersclub"
  | "discover"
  | "unionpay"
  | "jcb"
  | "nspkmir"
  | "elo"
  | "rupay"

/** @since 0.1.0 */
export const paymentSystems: ReadonlyArray<PaymentSystem> = [
  "visa",
  "mastercard",
  "visaelectron",
  "maestro",
  "forbrugsforeningen",
  "dankort",
  "amex",
  "dinersclub",
  "discover",
  "unionpay",
  "jcb",
  "nspkmir",
  "elo",
  "rupay"
]

/** The Luhn (mod 10) checksum of a string of digits. @since 0.1.0 */
export const luhn = (number: string): boolean => {
  if (!/^\d+$/.test(number)) return false
  let sum = 0
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** The digit that, appended to `payload`, makes it pass `luhn`. @since 0.1.0 */
export const checkDigit = (payload: string): string => {
  for (let d = 0; d <= 9; d++) {
    if (luhn(payload + d)) return String(d)
  }
  throw new Error("checkDigit: payload must be digits")
}

/** A range of number prefixes, both bounds of one length. */
interface BinRange {
  readonly from: string
  readonly to: string
  readonly system: PaymentSystem
}

const range = (system: PaymentSystem, from: string, to: string = from): BinRange => ({ from, to, system })

/**
 * The BIN table. Ranges overlap on purpose (Visa Electron inside Visa, Elo and RuPay inside
 * Discover, ...): the longest matching prefix wins.
 */
const BINS: ReadonlyArray<BinRange> = [
  range("visa", "4"),
  ...["4026", "417500", "4508", "4844", "4913", "4917"].map((p) => range("visaelectron", p)),
  range("mastercard", "51", "55"),
  range("mastercard", "2221", "2720"),
  ...["5018", "5020", "5038", "5893", "6304", "6759"].map((p) => range("maestro", p)),
  range("maestro", "6761", "6763"),
  range("amex", "34"),
  range("amex", "37"),
  range("dinersclub", "300", "305"),
  ...["36", "38", "39"].map((p) => range("dinersclub", p)),
  range("discover", "6011"),
  range("discover", "644", "649"),
  range("discover", "65"),
  range("jcb", "3528", "3589"),
  range("unionpay", "62"),
  range("nspkmir", "2200", "2204"),
  range("dankort", "5019"),
  range("forbrugsforeningen", "600722"),
  ...["401178", "401179", "431274", "438935", "451416", "457393", "457631", "457632", "504175", "627780", "636297", "636368"]
    .map((p) => range("elo", p)),
  range("elo", "506699", "506778"),
  range("elo", "509000", "509999"),
  range("elo", "650031", "650033"),
  range("elo", "650035", "650051"),
  range("elo", "650405", "650439"),
  range("elo", "650485", "650538"),
  range("elo", "650541", "650598"),
  range("elo", "650700", "650718"),
  range("elo", "650720", "650727"),
  range("elo", "650901", "650920"),
  range("elo", "651652", "651679"),
  range("elo", "655000", "655019"),
  range("elo", "655021", "655058"),
  range("rupay", "508500", "508999"),
  range("rupay", "606985", "607984"),
  range("rupay", "608001", "608500"),
  range("rupay", "652150", "653149")
]

/** The payment system of a card number by its BIN, or undefined when unknown. @since 0.1.0 */
export const paymentSystemOf = (number: string): PaymentSystem | undefined => {
  if (!/^\d+$/.test(number)) return undefined
  let best: BinRange | undefined
  for (const r of BINS) {
    if (number.length < r.from.length || (best !== undefined && best.from.length >= r.from.length)) continue
    const prefix = number.slice(0, r.from.length)
    if (prefix >= r.from && prefix <= r.to) best = r
  }
  return best?.system
}

const lengths: Readonly<Record<PaymentSystem, ReadonlyArray<number>>> = {
  visa: [13, 16, 19],
  visaelectron: [16],
  mastercard: [16],
  maestro: [12, 13, 14, 15, 16, 17, 18, 19],
  forbrugsforeningen: [16],
  dankort: [16],
  amex: [15],
  dinersclub: [14, 16, 19],
  discover: [16, 19],
  unionpay: [14, 15, 16, 17, 18, 19],
  jcb: [16, 17, 18, 19],
  nspkmir: [16, 17, 18, 19],
  elo: [16],
  rupay: [16]
}

/** The number lengths a payment system issues. @since 0.1.0 */
export const allowedLengths = (system: string): ReadonlyArray<number> =>
  Object.hasOwn(lengths, system) ? lengths[system as PaymentSystem] : []

/** Whether the system issues numbers of this length. @since 0.1.0 */
export const validLength = (system: string, number: string): boolean => allowedLengths(system).includes(number.length)

/** The CVV length of a payment system: 4 for American Express, else 3. @since 0.1.0 */
export const cvvLength = (system: string): number => (system === "amex" ? 4 : 3)

/** @since 0.1.0 @category models */
export interface ExpDate {
  /** 1..12 */
  readonly expMonth: number
  /** four digits */
  readonly expYear: number
}

/** Reads `MM/YY` (as 20YY) or `MM/YYYY`. @since 0.1.0 */
export const parseExpDate = (expDate: string): ExpDate | undefined => {
  const match = /^(\d{2})\/(\d{2}|\d{4})$/.exec(expDate)
  if (match === null) return undefined
  const expMonth = Number(match[1])
  if (expMonth < 1 || expMonth > 12) return undefined
  const expYear = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2])
  return { expMonth, expYear }
}

/** A card is valid through the last moment of its month, UTC. @since 0.1.0 */
export const isExpired = (exp: ExpDate, now: Date): boolean =>
  now.getTime() >= Date.UTC(exp.expYear, exp.expMonth /* the next month, 0-based */, 1)

/** @since 0.1.0 @category models */
export interface Mask {
  readonly bin: string
  readonly last4: string
  /** `424242******4242` */
  readonly cardNumberMask: string
}

/**
 * The first six and last four digits, and the number with the digits between them starred.
 * Meant for numbers of 12..19 digits; a shorter one is starred whole.
 *
 * @since 0.1.0
 */
export const mask = (number: string): Mask => {
  const bin = number.slice(0, 6)
  const last4 = number.slice(-4)
  const cardNumberMask = number.length > 10
    ? bin + "*".repeat(number.length - 10) + last4
    : "*".repeat(Math.max(1, number.length))
  return { bin, last4, cardNumberMask }
}

/** @since 0.1.0 @category models */
export interface MaskV1 {
  readonly bin: string
  readonly lastDigits: string
}

/** The same digits as `mask`, named as the v1 interface names them. @since 0.1.0 */
export const maskV1 = (number: string): MaskV1 => {
  const { bin, last4 } = mask(number)
  return { bin, lastDigits: last4 }
}

/** @since 0.1.0 @category models */
export interface CardInput {
  readonly cardNumber: string
  /** `MM/YY` or `MM/YYYY` */
  readonly expDate: string
  readonly cvv?: string | undefined
  readonly cardHolder?: string | undefined
}

/** @since 0.1.0 @category models */
export interface ValidCard {
  readonly card: CardData
  readonly paymentSystem: PaymentSystem
  readonly details: Mask
}

const HOLDER = /^[\p{L}\s\p{P}]+$/u

/**
 * Checks a card as entered. The error is a message naming the field; it never repeats the
 * number or the CVV.
 *
 * @since 0.1.0
 */
export const validate = (input: CardInput, now: Date): Either.Either<ValidCard, string> => {
  const { cardNumber } = input
  if (!/^\d{12,19}$/.test(cardNumber)) return Either.left("cardNumber: must be 12 to 19 digits")
  if (!luhn(cardNumber)) return Either.left("cardNumber: invalid checksum")
  const paymentSystem = paymentSystemOf(cardNumber)
  if (paymentSystem === undefined) return Either.left("cardNumber: unsupported card")
  if (!validLength(paymentSystem, cardNumber)) return Either.left(`cardNumber: invalid length for ${paymentSystem}`)
  const exp = parseExpDate(input.expDate)
  if (exp === undefined) return Either.left("expDate: must be MM/YY or MM/YYYY")
  if (isExpired(exp, now)) return Either.left("expDate: card expired")
  if (input.cvv !== undefined) {
    if (!/^\d+$/.test(input.cvv)) return Either.left("cvv: must be digits")
    if (input.cvv.length !== cvvLength(paymentSystem)) return Either.left("cvv: invalid length")
  }
  const holder = input.cardHolder
  if (holder !== undefined) {
    const length = [...holder].length
    if (length < 1 || length > 100 || !HOLDER.test(holder)) {
      return Either.left("cardHolder: must be 1 to 100 letters, spaces or punctuation")
    }
  }
  return Either.right({
    card: { cardNumber, expMonth: exp.expMonth, expYear: exp.expYear, ...(holder === undefined ? {} : { cardHolder: holder }) },
    paymentSystem,
    details: mask(cardNumber)
  })
}
