/**
 * The payer's side of a binding's 3-D Secure: the challenge page reads the challenge while it
 * waits, and the payer's answer completes it; the acquirer decides the outcome.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { type BindingProcessing, operationOf } from "./BindingProcessing.js"
import type { CustomerContext } from "./CustomerContext.js"

/** @since 0.1.0 @category constructors */
export const make = ({ acquirer, customers, interactionOf, loadBinding }: CustomerContext, processing: BindingProcessing) => {
  /** The 3-D Secure challenge of a binding a payer opened, if it is still waiting. */
  const challenge = Traced.fn("CustomerService.challenge")(function*(interactionID: string) {
    const b = yield* customers.findBindingByInteraction(interactionID)
    if (Option.isNone(b) || b.value.status !== "pending" || b.value.interactionCompleted === true) {
      return yield* NotFound.of("Challenge", interactionID)
    }
    return b.value
  })

  /**
   * Of concurrent answers the first completes it (`decided`) and calls the acquirer; the others
   * call nothing and answer the binding as it stands, as do answers to a challenge already over.
   */
  const completeChallenge = Traced.fn("CustomerService.completeChallenge")(function*(interactionID: string, passed: boolean) {
    const found = yield* customers.findBindingByInteraction(interactionID)
    if (Option.isNone(found)) return yield* NotFound.of("Challenge", interactionID)
    const b = found.value
    const completed = yield* processing.transition(b.customerID, b.id, {
      _tag: "InteractionCompleted",
      userInteraction: interactionOf(interactionID)
    })
    if (!completed.decided) return completed
    const result = yield* acquirer.completeInteraction(operationOf(b), passed)
    yield* processing.applyResult(b, result)
    return { binding: yield* loadBinding(b.customerID, b.id), decided: true }
  })

  return { challenge, completeChallenge } as const
}
