/**
 * The server's Prometheus metrics: requests by operation and status (`RequestMetrics`), and in
 * prom-client's registry the process and runtime (RSS, heap, event-loop lag, GC), and at each
 * scrape the gauges read then (database pool, webhook queue, timers) and the counters kept in
 * Effect's metric registry (webhook attempts, card-vault operations).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as MetricState from "effect/MetricState"
import * as Prometheus from "prom-client"
import * as RequestMetrics from "./RequestMetrics.js"

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Values a scrape reads, by gauge. @since 0.1.0 @category models */
export interface ScrapeValues {
  readonly poolConnections?: { readonly inUse: number; readonly idle: number; readonly waiting: number } | undefined
  readonly webhookBacklog: { readonly outbox: number; readonly subjects: number }
  readonly webhookOldestSeconds: { readonly outbox: number; readonly subjects: number }
  readonly timersDue: number
  readonly timersOldestLagSeconds: number
}

/** @since 0.1.0 @category models */
export interface MetricsRegistry {
  readonly record: (operation: string, status: number, seconds: number) => void
  /** The exposition text, with the values read for this scrape. */
  readonly render: (values: ScrapeValues) => Promise<string>
  readonly contentType: string
}

/** @since 0.1.0 @category tags */
export class Metrics extends Context.Tag("kassa/http/Metrics")<Metrics, MetricsRegistry>() {}

/**
 * Effect's counters and gauges named `kassa_*`, copied into the registry at each scrape.
 */
const fromEffect = (registry: Prometheus.Registry) => {
  const mirrors = new Map<string, Prometheus.Counter | Prometheus.Gauge>()
  return () => {
    for (const pair of Metric.unsafeSnapshot()) {
      const name = pair.metricKey.name
      if (!name.startsWith("kassa_")) continue
      const state = pair.metricState
      const labels = Object.fromEntries(pair.metricKey.tags.map((t) => [t.key, t.value]))
      let mirror = mirrors.get(name)
      if (mirror === undefined) {
        const config = {
          name,
          help: pair.metricKey.description._tag === "Some" ? pair.metricKey.description.value : name,
          labelNames: Object.keys(labels),
          registers: [registry]
        }
        mirror = MetricState.isCounterState(state) ? new Prometheus.Counter(config) : new Prometheus.Gauge(config)
        mirrors.set(name, mirror)
      }
      const value = MetricState.isCounterState(state)
        ? Number(state.count)
        : MetricState.isGaugeState(state)
        ? Number(state.value)
        : undefined
      if (value === undefined) continue
      if (mirror instanceof Prometheus.Counter) {
        mirror.remove(labels)
        mirror.inc(labels, value)
      } else {
        mirror.set(labels, value)
      }
    }
  }
}

/** @since 0.1.0 @category constructors */
export const make = (): MetricsRegistry => {
  const registry = new Prometheus.Registry()
  Prometheus.collectDefaultMetrics({ register: registry })
  const record = RequestMetrics.make(registry, {
    requests: { name: "kassa_http_requests_total", help: "HTTP requests by operation and status." },
    latency: { name: "kassa_http_request_duration_seconds", help: "HTTP request latency by operation and status.", buckets }
  })
  const gauge = (name: string, help: string, labelNames: Array<string> = []) =>
    new Prometheus.Gauge({ name, help, labelNames, registers: [registry] })
  const pool = gauge("kassa_db_pool_connections", "PostgreSQL pool connections by state (inUse, idle, waiting: requests waiting for one).", ["state"])
  const backlog = gauge("kassa_webhook_backlog", "Webhook work waiting: events not fanned out yet (outbox), receivers' subjects due for delivery (subjects).", ["queue"])
  const oldest = gauge("kassa_webhook_oldest_age_seconds", "How long the oldest waiting webhook work has waited, by queue.", ["queue"])
  const timersDue = gauge("kassa_timers_due", "Durable timers due and not fired.")
  const timersLag = gauge("kassa_timers_oldest_lag_seconds", "How long the oldest due timer is overdue.")
  const mirrorEffect = fromEffect(registry)
  return {
    record,
    render: (values) => {
      if (values.poolConnections !== undefined) {
        for (const [state, n] of Object.entries(values.poolConnections)) pool.set({ state }, n)
      }
      for (const [queue, n] of Object.entries(values.webhookBacklog)) backlog.set({ queue }, n)
      for (const [queue, s] of Object.entries(values.webhookOldestSeconds)) oldest.set({ queue }, s)
      timersDue.set(values.timersDue)
      timersLag.set(values.timersOldestLagSeconds)
      mirrorEffect()
      return registry.metrics()
    },
    contentType: registry.contentType
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.sync(Metrics, make)
