/**
 * The recovery timer: resumes a payment's work with the acquirer a crash or a transient failure
 * interrupted. It moves itself forward first, by the recovery backoff, so the work is retried again
 * if it stalls, then runs it in the background. A payment still being authorised is never left
 * waiting past its processing deadline: the timer is then due at the deadline, where the work
 * fails the payment.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Recovery from "../../Recovery.js"
import * as Ref from "../../Ref.js"
import type { Timer } from "../../ports/Timers.js"
import type { PaymentRecord } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { Kick } from "./Advance.js"

/** @since 0.1.0 */
export const KIND = "payment.advance"

/** When the payment's work must end, if it has such a moment (its authorisation's deadline). @since 0.1.0 */
export const endOf = (p: Pick<PaymentRecord, "activity" | "processingDeadline">): number | undefined =>
  p.activity === "processing" ? p.processingDeadline?.getTime() : undefined

/** The timer's first setting, with the payment's creation or its move to capture or cancel. @since 0.1.0 */
export const first = (
  settings: Recovery.Backoff,
  p: Pick<PaymentRecord, "invoiceID" | "id" | "activity" | "processingDeadline">,
  at: Date
): Timer => ({
  kind: KIND,
  subject: Ref.Payment.encode({ invoiceID: p.invoiceID, paymentID: p.id }),
  dueAt: new Date(Recovery.dueBy(at.getTime() + settings.recoveryDelayMs, at.getTime(), endOf(p))),
  payload: null
})

/** @since 0.1.0 @category constructors */
export const handler = ({ load, settings, timers }: PaymentContext, kick: Kick) => (timer: Timer) =>
  Effect.gen(function*() {
    const { invoiceID, paymentID } = Ref.Payment.decode(timer.subject)
    const p = yield* load(invoiceID, paymentID).pipe(Effect.option)
    const end = Option.getOrUndefined(Option.flatMapNullable(p, endOf))
    yield* timers.schedule(yield* Recovery.next(settings, timer, yield* Clock.currentTimeMillis, end))
    yield* kick(invoiceID, paymentID)
  })
