/**
 * The deterministic test payout provider: what it answers depends on the card number only (and,
 * for one card, on the attempt), so tests and clients of the test environment know each outcome
 * in advance. Every other card is paid out. The README's "Test payout provider" table is this one.
 *
 * | card | destination | payout |
 * |---|---|---|
 * | 4242424242424242, 5555555555554444, 2200000000000004 | Authorized | Succeeded |
 * | 4000000100000019 | Authorized | Failed `authorization_failed` > `destination_rejected` > `bank_card_rejected` > `card_number_invalid` |
 * | 4000000100000027 | Authorized | Failed `authorization_failed` > `destination_rejected` > `bank_card_rejected` > `card_expired` |
 * | 4000000100000035 | Authorized | Failed `authorization_failed` > `account_blocked` |
 * | 4000000100000043 | Authorized | Failed `authorization_failed` > `provider_limit_exceeded` > `amount` |
 * | 4000000100000050 | Authorized | unavailable on the first attempt (`temporarily_unavailable`), then Succeeded |
 * | 4000000100000068 | Authorized | answers after `SLOW_MS`, Succeeded |
 * | 4000000100000076 | stays Unauthorized | — |
 * | 4000000100000084 | Authorized | Failed `authorization_failed` > `security_policy_violated` |
 * | 4000000100000092 | Authorized | unavailable on every attempt: Failed `authorization_failed` > `temporarily_unavailable` once attempts run out |
 * | 4000020000000000 | Authorized | its BIN 400002 names no issuer: createQuote and createWithdrawal answer 422 "Unknown card issuer" |
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { SubFailure } from "../movement/Movement.js"
import { PayoutProvider, type PayoutResult } from "../ports/PayoutProvider.js"

/** How long the slow card's payout takes. @since 0.1.0 */
export const SLOW_MS = 5_000

const failed = (...codes: ReadonlyArray<string>): PayoutResult => ({
  _tag: "Failed",
  failure: codes.reduceRight<SubFailure | undefined>((subError, code) => ({ code, ...(subError === undefined ? {} : { subError }) }), undefined)!
})

const failures: Readonly<Record<string, PayoutResult>> = {
  "4000000100000019": failed("authorization_failed", "destination_rejected", "bank_card_rejected", "card_number_invalid"),
  "4000000100000027": failed("authorization_failed", "destination_rejected", "bank_card_rejected", "card_expired"),
  "4000000100000035": failed("authorization_failed", "account_blocked"),
  "4000000100000043": failed("authorization_failed", "provider_limit_exceeded", "amount"),
  "4000000100000084": failed("authorization_failed", "security_policy_violated")
}

/** The card that fails once, the slow one, the unauthorized one and the always unavailable one. @since 0.1.0 */
export const cards = {
  failsOnce: "4000000100000050",
  slow: "4000000100000068",
  unauthorized: "4000000100000076",
  unavailable: "4000000100000092",
  unknownIssuer: "4000020000000000"
} as const

/** The BIN whose issuer the provider does not know (of `cards.unknownIssuer`). @since 0.1.0 */
export const UNKNOWN_ISSUER_BIN = "400002"

/** @since 0.1.0 @category constructors */
export const make: PayoutProvider["Type"] = {
  authorize: (card) => Effect.succeed(card.cardNumber !== cards.unauthorized),
  knowsIssuer: (bin) => Effect.succeed(bin !== UNKNOWN_ISSUER_BIN),
  payout: ({ attempt, card }) => {
    const pan = card.cardNumber
    if (pan === cards.unavailable || (pan === cards.failsOnce && attempt === 1)) return Effect.succeed({ _tag: "Unavailable" })
    if (pan === cards.slow) return Effect.as(Effect.sleep(SLOW_MS), { _tag: "Succeeded" })
    return Effect.succeed(failures[pan] ?? { _tag: "Succeeded" })
  }
}

/** @since 0.1.0 @category layers */
export const layer: Layer.Layer<PayoutProvider> = Layer.succeed(PayoutProvider, make)
