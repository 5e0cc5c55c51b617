/**
 * The timers a payment's transition starts and ends, in its transaction: a crash cannot leave a
 * challenge without its timeout, a finished payment with a pending timer, nor a capture or cancel
 * without the timer that resumes it.
 *
 * @since 0.1.0
 */
import type * as Recovery from "../../Recovery.js"
import * as Ref from "../../Ref.js"
import type { Timer } from "../../ports/Timers.js"
import type { PaymentRecord } from "../Payment.js"
import * as AdvanceTimer from "./AdvanceTimer.js"
import * as HoldTimer from "./HoldTimer.js"
import * as InteractionTimer from "./InteractionTimer.js"

/** @since 0.1.0 @category models */
export interface TimerChanges {
  readonly scheduled: ReadonlyArray<Timer>
  readonly ended: ReadonlyArray<Pick<Timer, "kind" | "subject">>
}

/** @since 0.1.0 */
export const ofTransition = (
  before: PaymentRecord,
  after: PaymentRecord,
  at: Date,
  settings: Recovery.Backoff & { readonly interactionTimeoutMs: number }
): TimerChanges => {
  const subject = Ref.Payment.encode({ invoiceID: after.invoiceID, paymentID: after.id })
  const due = (kind: string, delayMs: number): Timer => ({ kind, subject, dueAt: new Date(at.getTime() + delayMs), payload: null })
  const scheduled: Array<Timer> = []
  if (after.activity === "interaction" && before.activity !== "interaction") {
    scheduled.push(due(InteractionTimer.KIND, settings.interactionTimeoutMs))
  }
  if (after.activity === "capturing" || after.activity === "cancelling") scheduled.push(AdvanceTimer.first(settings, after, at))
  const ended = [
    ...(after.activity === "done" ? [AdvanceTimer.KIND, HoldTimer.KIND] : []),
    ...(before.activity === "interaction" && after.activity !== "interaction" ? [InteractionTimer.KIND] : [])
  ].map((kind) => ({ kind, subject }))
  return { scheduled, ended }
}
