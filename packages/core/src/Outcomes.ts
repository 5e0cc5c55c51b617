/**
 * Counters of what payments and refunds come to, in Effect's metric registry (the server shows
 * them at `/metrics`). Counted once a change is committed.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"

/** Payments reaching a status, tagged `status`. @since 0.1.0 */
export const payments = Metric.counter("kassa_payments_total", {
  description: "Payments reaching a status (processed, captured, cancelled, refunded, failed, …).",
  incremental: true
})

/** Refunds settled, tagged `status` (succeeded, failed). @since 0.1.0 */
export const refunds = Metric.counter("kassa_refunds_total", {
  description: "Refunds settled by outcome (succeeded, failed).",
  incremental: true
})

/** Adds one to `counter` for `status`. @since 0.1.0 */
export const count = (counter: Metric.Metric.Counter<number>, status: string) =>
  Metric.increment(Metric.tagged(counter, "status", status))
