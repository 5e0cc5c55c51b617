/**
 * The deterministic test acquirer behind the `Acquirer` port: the outcome of a payment depends
 * only on the card number (see `cards`, documented in `TEST_CARDS.md`), so merchants can rehearse
 * every answer of the merchant error tree in test mode.
 *
 * It is in-memory: the answers it gave per operation (for idempotency), pending 3-D Secure
 * challenges and the recurrent tokens it issued live in the service and are lost with it. A real
 * provider keeps this on its side.
 *
 * It never logs card numbers and never puts them in a message.
 *
 * @since 0.1.0
 */
import type { AuthorizeAnswer, AuthorizeRequest, AuthorizeResult, OperationResult, OperationStatus, Transaction } from "@kassa/core/ports/Acquirer"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import * as PaymentError from "@kassa/core/payment/PaymentError"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"

/**
 * What the test acquirer answers for a card.
 *
 * - `Authorized`: authorised at once.
 * - `Declined`: declined with the error at `error` (a path of the merchant error tree).
 * - `Slow`: authorised after `slowDelay` (default 5 seconds), unless the request's deadline
 *   comes first: then `DeadlineReached` at the deadline, nothing authorised.
 * - `ThreeDSecure`: `InteractionRequired`; `completeInteraction(id, true)` authorises,
 *   `false` declines with `preauthorization_failed`.
 * - `RefundDeclined`: authorised, but every refund of the payment is declined.
 *
 * @since 0.1.0
 * @category models
 */
export type CardOutcome =
  | { readonly _tag: "Authorized" }
  | { readonly _tag: "Declined"; readonly error: ReadonlyArray<string> }
  | { readonly _tag: "Slow" }
  | { readonly _tag: "ThreeDSecure" }
  | { readonly _tag: "RefundDeclined" }

/** @since 0.1.0 @category models */
export interface TestCard {
  readonly cardNumber: string
  readonly paymentSystem: string
  readonly outcome: CardOutcome
}

/** @since 0.1.0 @category models */
export interface Options {
  /** How long the slow card takes to authorise. Default 5 seconds. */
  readonly slowDelay?: Duration.DurationInput | undefined
}

/** Whether a string of digits passes the Luhn check. @since 0.1.0 */
export const isLuhnValid = (cardNumber: string): boolean => {
  if (!/^\d{12,19}$/.test(cardNumber)) return false
  let sum = 0
  for (let i = 0; i < cardNumber.length; i++) {
    let d = cardNumber.charCodeAt(cardNumber.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

const authorized: CardOutcome = { _tag: "Authorized" }
const declined = (...error: ReadonlyArray<string>): CardOutcome => ({ _tag: "Declined", error })
const visa = (cardNumber: string, outcome: CardOutcome): TestCard => ({ cardNumber, paymentSystem: "visa", outcome })

/**
 * The test cards. Any other Luhn-valid number is authorised; a number failing the Luhn check is
 * declined with `authorization_failed > payment_tool_rejected > bank_card_rejected >
 * card_number_invalid`. Expiry date, card holder and CVV are not checked.
 *
 * @since 0.1.0
 */
export const cards: ReadonlyArray<TestCard> = [
  visa("4242424242424242", authorized),
  { cardNumber: "5555555555554444", paymentSystem: "mastercard", outcome: authorized },
  { cardNumber: "2200000000000004", paymentSystem: "nspkmir", outcome: authorized },
  visa("4000000000000101", { _tag: "Slow" }),
  visa("4000000000003220", { _tag: "ThreeDSecure" }),
  visa("4000000000000077", { _tag: "RefundDeclined" }),
  visa("4000000000000002", declined("authorization_failed", "rejected_by_issuer")),
  visa("4000000000009995", declined("authorization_failed", "insufficient_funds")),
  visa(
    "4000000000000127",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "cvv_invalid")
  ),
  visa("4000000000001018", declined("timeout")),
  visa("4000000000001026", declined("rejected_by_inspector")),
  visa("4000000000001034", declined("preauthorization_failed")),
  visa("4000000000001042", declined("authorization_failed", "unknown")),
  visa("4000000000001059", declined("authorization_failed", "merchant_blocked")),
  visa("4000000000001067", declined("authorization_failed", "operation_blocked")),
  visa("4000000000001075", declined("authorization_failed", "account_not_found")),
  visa("4000000000001083", declined("authorization_failed", "account_blocked")),
  visa("4000000000001091", declined("authorization_failed", "account_stolen")),
  visa("4000000000001109", declined("authorization_failed", "account_limit_exceeded", "unknown")),
  visa("4000000000001117", declined("authorization_failed", "account_limit_exceeded", "amount")),
  visa("4000000000001125", declined("authorization_failed", "account_limit_exceeded", "number")),
  visa("4000000000001133", declined("authorization_failed", "provider_limit_exceeded", "unknown")),
  visa("4000000000001141", declined("authorization_failed", "provider_limit_exceeded", "amount")),
  visa("4000000000001158", declined("authorization_failed", "provider_limit_exceeded", "number")),
  visa("4000000000001166", declined("authorization_failed", "payment_tool_rejected", "unknown")),
  visa(
    "4000000000001174",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "unknown")
  ),
  visa(
    "4000000000001182",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_number_invalid")
  ),
  visa(
    "4000000000001190",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_expired")
  ),
  visa(
    "4000000000001208",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_holder_invalid")
  ),
  visa(
    "4000000000001216",
    declined("authorization_failed", "payment_tool_rejected", "bank_card_rejected", "issuer_not_found")
  ),
  visa("4000000000001224", declined("authorization_failed", "security_policy_violated")),
  visa("4000000000001232", declined("authorization_failed", "temporarily_unavailable"))
]

const byNumber: ReadonlyMap<string, CardOutcome> = new Map(cards.map((c) => [c.cardNumber, c.outcome]))

/** The error code of a declined refund. @since 0.1.0 */
export const refundDeclinedCode = "refund_declined"

/** The message of a refund declined for its amount (last two digits 99). @since 0.1.0 */
export const refundAmountMessage = "Declined by the test acquirer: amounts ending in 99 are refused"

/** The message of a refund declined for its card (4000000000000077). @since 0.1.0 */
export const refundCardMessage = "Declined by the test acquirer: refunds of payments by this test card are refused"

const digest = (purpose: string, id: string): Buffer =>
  createHash("sha256").update(`kassa-test-acquirer/${purpose}/${id}`).digest()

/** The transaction of an operation: always the same for the same `operationID`. @since 0.1.0 */
export const transactionOf = (operationID: string): Transaction => {
  const hash = digest("transaction", operationID)
  const hex = hash.toString("hex")
  return {
    id: `test-${hex.slice(0, 20)}`,
    rrn: (BigInt(`0x${hex.slice(20, 40)}`) % 10n ** 12n).toString().padStart(12, "0"),
    approvalCode: (hash.readUInt32BE(24) % 1_000_000).toString().padStart(6, "0")
  }
}

const declinedResult = (path: ReadonlyArray<string>, reason = path.join(" > ")): AuthorizeResult => ({
  _tag: "Declined",
  error: PaymentError.of(...path),
  message: `Declined by the test acquirer: ${reason}`
})

interface Operation {
  /** The answer to a repeated `authorize` (the final one once a challenge is completed). */
  result: AuthorizeResult
  /** Set while a 3-D Secure challenge waits for `completeInteraction`. */
  pending: AuthorizeRequest | undefined
  readonly refundsDeclined: boolean
}

/**
 * A fresh test acquirer with its own memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Context.Tag.Service<Acquirer> => {
  const slowDelay = Duration.decode(options.slowDelay ?? "5 seconds")
  const operations = new Map<string, Operation>()
  /** Issued recurrent tokens, with whether refunds of their payments are declined. */
  const tokens = new Map<string, boolean>()
  const results = new Map<string, OperationResult>()

  const authorizedResult = (request: AuthorizeRequest, refundsDeclined: boolean): AuthorizeResult => {
    const transaction = transactionOf(request.operationID)
    if (!request.makeRecurrent) return { _tag: "Authorized", transaction }
    const recurrentToken = `rt-test-${digest("recurrent", request.operationID).toString("hex").slice(0, 32)}`
    tokens.set(recurrentToken, refundsDeclined)
    return { _tag: "Authorized", transaction, recurrentToken }
  }

  /** Keeps the first answer to an operation and answers it. */
  const remember = (operationID: string, operation: Operation): AuthorizeResult => {
    const first = operations.get(operationID)
    if (first !== undefined) return first.result
    operations.set(operationID, operation)
    return operation.result
  }

  const settle = (request: AuthorizeRequest, result: AuthorizeResult, refundsDeclined = false) =>
    remember(request.operationID, { result, pending: undefined, refundsDeclined })

  const deadlineReached: AuthorizeAnswer = { _tag: "DeadlineReached" }

  /** The slow card's answer: after `slowDelay`, or at the request's deadline when that comes first. */
  const slow = (request: AuthorizeRequest): Effect.Effect<AuthorizeAnswer> => {
    const answer = Effect.zipRight(Effect.sleep(slowDelay), Effect.sync(() => settle(request, authorizedResult(request, false))))
    const deadline = request.deadline?.getTime()
    if (deadline === undefined) return answer
    return Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<AuthorizeAnswer> =>
      deadline - now <= Duration.toMillis(slowDelay)
        ? Effect.as(Effect.sleep(Math.max(0, deadline - now)), deadlineReached)
        : answer)
  }

  const decideCard = (request: AuthorizeRequest, cardNumber: string): Effect.Effect<AuthorizeAnswer> => {
    const outcome = byNumber.get(cardNumber) ?? (isLuhnValid(cardNumber) ? authorized : undefined)
    if (outcome === undefined) {
      return Effect.sync(() =>
        settle(
          request,
          declinedResult(["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_number_invalid"])
        )
      )
    }
    switch (outcome._tag) {
      case "Authorized":
        return Effect.sync(() => settle(request, authorizedResult(request, false)))
      case "RefundDeclined":
        return Effect.sync(() => settle(request, authorizedResult(request, true), true))
      case "Declined":
        return Effect.sync(() => settle(request, declinedResult(outcome.error)))
      case "Slow":
        return slow(request)
      case "ThreeDSecure":
        return Effect.sync(() =>
          remember(request.operationID, {
            result: {
              _tag: "InteractionRequired",
              challenge: `3ds-test-${digest("challenge", request.operationID).toString("base64url").slice(0, 32)}`
            },
            pending: request,
            refundsDeclined: false
          })
        )
    }
  }

  const decide = (request: AuthorizeRequest): Effect.Effect<AuthorizeAnswer> => {
    const tool = request.tool
    switch (tool.type) {
      case "BankCard":
        return decideCard(request, tool.card.cardNumber)
      case "Recurrent":
        return Effect.sync(() => {
          const refundsDeclined = tokens.get(tool.recurrentToken)
          return refundsDeclined === undefined
            ? settle(request, declinedResult(["authorization_failed", "unknown"], "unknown recurrent token"))
            : settle(request, authorizedResult(request, refundsDeclined), refundsDeclined)
        })
      case "PaymentTerminal":
      case "DigitalWallet":
      case "CryptoWallet":
      case "MobileCommerce":
        return Effect.sync(() => settle(request, authorizedResult(request, false)))
    }
  }

  /** The first answer to an operation that is not an authorisation. */
  const once = (key: string, answer: () => OperationResult): Effect.Effect<OperationResult> =>
    Effect.sync(() => {
      const first = results.get(key)
      if (first !== undefined) return first
      const result = answer()
      results.set(key, result)
      return result
    })

  const done: OperationResult = { _tag: "Done" }

  return {
    authorize: (request) =>
      Effect.suspend(() => {
        const known = operations.get(request.operationID)
        return known !== undefined ? Effect.succeed(known.result) : decide(request)
      }),

    completeInteraction: (operationID, passed) =>
      Effect.sync(() => {
        const operation = operations.get(operationID)
        if (operation === undefined) {
          return declinedResult(["preauthorization_failed"], "no 3-D Secure challenge for this operation")
        }
        if (operation.pending !== undefined) {
          operation.result = passed
            ? authorizedResult(operation.pending, operation.refundsDeclined)
            : declinedResult(["preauthorization_failed"], "3-D Secure challenge failed")
          operation.pending = undefined
        }
        return operation.result
      }),

    // Captures and cancels always succeed, also for operations this instance does not remember
    // (after a restart of an in-memory acquirer).
    capture: (operationID) => once(JSON.stringify(["capture", operationID]), () => done),

    cancel: (operationID) => once(JSON.stringify(["cancel", operationID]), () => done),

    status: (operationID) =>
      Effect.sync((): OperationStatus => {
        const result = operations.get(operationID)?.result
        if (result === undefined || result._tag === "InteractionRequired") return { _tag: "Nothing" }
        if (result._tag === "Declined") return { _tag: "Declined" }
        const { recurrentToken, transaction } = result
        const by = { transaction, ...(recurrentToken === undefined ? {} : { recurrentToken }) }
        if (results.get(JSON.stringify(["capture", operationID]))?._tag === "Done") return { _tag: "Captured", ...by }
        if (results.get(JSON.stringify(["cancel", operationID]))?._tag === "Done") return { _tag: "Cancelled" }
        return { _tag: "Authorized", ...by }
      }),

    refund: (operationID, refundID, amount) =>
      once(JSON.stringify(["refund", operationID, refundID]), () => {
        if (amount % 100 === 99) {
          return { _tag: "Declined", error: { code: refundDeclinedCode }, message: refundAmountMessage }
        }
        if (operations.get(operationID)?.refundsDeclined === true) {
          return { _tag: "Declined", error: { code: refundDeclinedCode }, message: refundCardMessage }
        }
        return done
      })
  }
}

/**
 * The `Acquirer` served by a fresh test acquirer (its memory lives as long as the layer).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Acquirer> = Layer.sync(Acquirer, () => make())

/** @since 0.1.0 @category layers */
export const layerWith = (options: Options): Layer.Layer<Acquirer> => Layer.sync(Acquirer, () => make(options))
