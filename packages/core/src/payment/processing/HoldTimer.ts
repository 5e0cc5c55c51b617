/**
 * The hold's end: a held payment still waiting is captured or cancelled, as its flow says.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "../../Ref.js"
import type { Timer } from "../../ports/Timers.js"
import type { Apply } from "../ApplyCommand.js"
import type { PaymentContext } from "../PaymentContext.js"
import * as AdvanceTimer from "./AdvanceTimer.js"

/** @since 0.1.0 */
export const KIND = "payment.hold"

/** @since 0.1.0 @category constructors */
export const handler = ({ timers }: PaymentContext, apply: Apply) => (timer: Timer) =>
  Effect.gen(function*() {
    const { invoiceID, paymentID } = Ref.Payment.decode(timer.subject)
    const p = yield* apply(invoiceID, paymentID, { _tag: "HoldExpired" }).pipe(Effect.option)
    // The capture or cancel runs once this transaction has committed: the advance timer, due
    // now, hands it to the scheduler's next pass (work started here would read the old state).
    if (Option.isSome(p)) {
      yield* timers.schedule({
        kind: AdvanceTimer.KIND,
        subject: timer.subject,
        dueAt: new Date(yield* Clock.currentTimeMillis),
        payload: null
      })
    }
  })
