/**
 * The adapters' counters, in Effect's metric registry (the server shows them at `/metrics`):
 * webhook attempts by outcome, discarded webhook queues, card-vault operations.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"

/** Webhook delivery attempts, tagged `outcome` delivered or failed. @since 0.1.0 */
export const webhookAttempts = Metric.counter("kassa_webhook_attempts_total", {
  description: "Webhook delivery attempts by outcome (delivered, failed).",
  incremental: true
})

/** Webhook subjects' queues discarded (last attempt failed, or the webhook was deleted). @since 0.1.0 */
export const webhookDiscarded = Metric.counter("kassa_webhook_discarded_total", {
  description: "Webhook subjects' queues discarded: the last attempt failed, or the webhook was deleted.",
  incremental: true
})

/** Card-vault operations, tagged `operation` and `outcome` (ok, error). @since 0.1.0 */
export const vaultOperations = Metric.counter("kassa_card_vault_operations_total", {
  description: "Card vault operations by operation and outcome (ok, error).",
  incremental: true
})

/** Adds one to `counter` tagged with `tags`. @since 0.1.0 */
export const increment = (counter: Metric.Metric.Counter<number>, tags: Record<string, string> = {}) =>
  Metric.increment(Metric.taggedWithLabels(counter, Object.entries(tags).map(([k, v]) => MetricLabel.make(k, v))))

/**
 * The service with each of its operations (functions answering an Effect, and Effects) counted
 * in `counter` by `operation` and `outcome`.
 *
 * @since 0.1.0
 */
export const countOperations = <S extends object>(counter: Metric.Metric.Counter<number>, service: S): S => {
  const count = <A, E, R>(operation: string, effect: Effect.Effect<A, E, R>) =>
    Effect.onExit(effect, (exit) => increment(counter, { operation, outcome: exit._tag === "Success" ? "ok" : "error" }))
  return Object.fromEntries(Object.entries(service).map(([name, value]) => [
    name,
    Effect.isEffect(value)
      ? count(name, value)
      : typeof value === "function"
      ? (...args: Array<unknown>) => {
        const result = value.apply(service, args)
        return Effect.isEffect(result) ? count(name, result) : result
      }
      : value
  ])) as S
}
