/**
 * The recovery timer: resumes a payment's work with the acquirer a crash interrupted. It moves
 * itself forward first, so the work is retried again if it stalls, then runs it in the background.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "../../Ref.js"
import type { Timer } from "../../ports/Timers.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { Kick } from "./Advance.js"

/** @since 0.1.0 */
export const KIND = "payment.advance"

/** @since 0.1.0 @category constructors */
export const handler = ({ settings, timers }: PaymentContext, kick: Kick) => (timer: Timer) =>
  Effect.gen(function*() {
    const { invoiceID, paymentID } = Ref.Payment.decode(timer.subject)
    yield* timers.schedule({ ...timer, dueAt: new Date((yield* Clock.currentTimeMillis) + settings.recoveryDelayMs) })
    yield* kick(invoiceID, paymentID)
  })
