/**
 * The payer's time to answer a 3-D Secure challenge: an abandoned challenge fails the payment.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "../../Ref.js"
import type { Timer } from "../../ports/Timers.js"
import type { Apply } from "../ApplyCommand.js"

/** @since 0.1.0 */
export const KIND = "payment.interaction"

/** @since 0.1.0 @category constructors */
export const handler = (apply: Apply) => (timer: Timer) =>
  Effect.suspend(() => {
    const { invoiceID, paymentID } = Ref.Payment.decode(timer.subject)
    return apply(invoiceID, paymentID, { _tag: "Declined", error: { code: "preauthorization_failed" } }).pipe(Effect.ignore)
  })
