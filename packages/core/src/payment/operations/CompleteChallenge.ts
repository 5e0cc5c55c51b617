/**
 * The payer's side of 3-D Secure: the challenge page reads the challenge while it waits, and the
 * payer's answer completes it. The acquirer decides the outcome and the payment goes on.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import { NotFound } from "../../Errors.js"
import * as Traced from "../../internal/traced.js"
import type { ApplyCommand } from "../ApplyCommand.js"
import type { PaymentContext } from "../PaymentContext.js"
import { type Kick, operationOf, type Processing } from "../processing/Advance.js"

/** @since 0.1.0 @category constructors */
export const make = (
  { acquirer, interactionOf, load, payments }: PaymentContext,
  { decideAndApply }: ApplyCommand,
  { applyAuthorization }: Processing,
  kick: Kick
) => {
  /** The 3-D Secure challenge a payer opened, if it is still waiting. */
  const challenge = Traced.fn("PaymentService.challenge")(function*(interactionID: string) {
    const p = yield* payments.findByInteraction(interactionID)
    if (Option.isNone(p) || p.value.activity !== "interaction") return yield* NotFound.of("Challenge", interactionID)
    return p.value
  })

  /**
   * Of concurrent answers to one challenge the first completes it (`decided`); the others call
   * nothing and answer the payment as it stands, as do answers to a challenge already over.
   */
  const completeChallenge = Traced.fn("PaymentService.completeChallenge")(function*(interactionID: string, passed: boolean) {
    const found = yield* payments.findByInteraction(interactionID)
    if (Option.isNone(found)) return yield* NotFound.of("Challenge", interactionID)
    const p = found.value
    if (p.activity !== "interaction") return { payment: p, decided: false }
    const completed = yield* decideAndApply(p.invoiceID, p.id, {
      _tag: "InteractionCompleted",
      userInteraction: interactionOf(interactionID)
    }, p)
    if (!completed.changed) return { payment: completed.payment, decided: false }
    const result = yield* acquirer.completeInteraction(operationOf(p), passed)
    yield* kick(p.invoiceID, p.id, yield* applyAuthorization(completed.payment, result))
    return { payment: yield* load(p.invoiceID, p.id), decided: true }
  })

  return { challenge, completeChallenge } as const
}
