/**
 * The payout provider: who checks a destination card and pays withdrawals out to it. Kassa ships
 * a deterministic test provider keyed by the card (`TestPayoutProvider`); a real one plugs in
 * here, as the acquirer does for payments.
 *
 * Every payout names its withdrawal (`operationID`) and attempt, so the provider can answer a
 * repeated call with its first answer: a crash between the call and the write of its outcome is
 * safe to retry.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { SubFailure } from "../movement/Movement.js"
import type { CardData } from "./CardVault.js"

/** @since 0.1.0 @category models */
export interface PayoutRequest {
  readonly operationID: string
  /** 1 for the first try; a retry after `Unavailable` comes with the next number. */
  readonly attempt: number
  readonly card: CardData
  readonly amount: number
  readonly currency: string
}

/** @since 0.1.0 @category models */
export type PayoutResult =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Failed"; readonly failure: SubFailure }
  /** Try again later (`authorization_failed` > `temporarily_unavailable`). */
  | { readonly _tag: "Unavailable" }

/** @since 0.1.0 @category tags */
export class PayoutProvider extends Context.Tag("kassa/PayoutProvider")<PayoutProvider, {
  /** Whether withdrawals may go to the card (a destination's authorization). */
  readonly authorize: (card: CardData) => Effect.Effect<boolean>
  /**
   * Whether the provider's BIN data names the issuer of cards with this BIN: quotes and
   * withdrawals to a card it does not are refused "Unknown card issuer".
   */
  readonly knowsIssuer: (bin: string) => Effect.Effect<boolean>
  readonly payout: (request: PayoutRequest) => Effect.Effect<PayoutResult>
}>() {}
