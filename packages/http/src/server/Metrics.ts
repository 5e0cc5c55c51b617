/**
 * Request metrics by operation and status, rendered in Prometheus' text format at `/metrics`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface Series {
  count: number
  sum: number
  readonly buckets: Array<number>
}

/** @since 0.1.0 @category models */
export interface MetricsRegistry {
  readonly record: (operation: string, status: number, seconds: number) => void
  readonly render: () => string
}

/** @since 0.1.0 @category tags */
export class Metrics extends Context.Tag("kassa/http/Metrics")<Metrics, MetricsRegistry>() {}

/** @since 0.1.0 @category constructors */
export const make = (): MetricsRegistry => {
  const series = new Map<string, Series>()
  const label = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")
  return {
    record: (operation, status, seconds) => {
      const key = `operation="${label(operation)}",status="${status}"`
      let s = series.get(key)
      if (s === undefined) {
        s = { count: 0, sum: 0, buckets: buckets.map(() => 0) }
        series.set(key, s)
      }
      s.count++
      s.sum += seconds
      for (let i = 0; i < buckets.length; i++) if (seconds <= buckets[i]!) s.buckets[i]!++
    },
    render: () => {
      const lines = [
        "# HELP kassa_http_requests_total HTTP requests by operation and status.",
        "# TYPE kassa_http_requests_total counter"
      ]
      for (const [key, s] of series) lines.push(`kassa_http_requests_total{${key}} ${s.count}`)
      lines.push(
        "# HELP kassa_http_request_duration_seconds HTTP request latency by operation and status.",
        "# TYPE kassa_http_request_duration_seconds histogram"
      )
      for (const [key, s] of series) {
        buckets.forEach((le, i) => lines.push(`kassa_http_request_duration_seconds_bucket{${key},le="${le}"} ${s.buckets[i]}`))
        lines.push(`kassa_http_request_duration_seconds_bucket{${key},le="+Inf"} ${s.count}`)
        lines.push(`kassa_http_request_duration_seconds_sum{${key}} ${s.sum}`)
        lines.push(`kassa_http_request_duration_seconds_count{${key}} ${s.count}`)
      }
      return lines.join("\n") + "\n"
    }
  }
}

/** @since 0.1.0 @category layers */
export const layer = Layer.sync(Metrics, make)
