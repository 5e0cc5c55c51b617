/**
 * The requests' counter and latency histogram by operation and status, in prom-client's
 * registry. Every request records into them: a request adds to its series' numbers, looked up
 * once by operation and status, and the registry reads them at a scrape, in the shape
 * prom-client's own `Counter` and `Histogram` give it (the same exposition, series in the order
 * first recorded). prom-client's own would validate and hash the labels at every request.
 *
 * @since 0.1.0
 */
import type * as Prometheus from "prom-client"

/** @since 0.1.0 @category models */
export type Record = (operation: string, status: number, seconds: number) => void

interface Series {
  readonly labels: { readonly operation: string; readonly status: string }
  count: number
  sum: number
  /** Observations by the first bound they are at or under (not cumulative). */
  readonly buckets: Array<number>
}

/** A sample as prom-client's registry reads it. */
interface Sample {
  readonly labels: { readonly [label: string]: string | number }
  readonly sharedLabels?: { readonly [label: string]: string }
  readonly value: number
  readonly metricName?: string
  readonly exemplar?: null | undefined
}

/** A metric as prom-client's registry reads it (what its `Counter` and `Histogram` are to it). */
interface Collected {
  name: string
  readonly help: string
  readonly type: "counter" | "histogram"
  readonly aggregator: "sum"
  readonly get: () => Promise<{ name: string; help: string; type: string; values: Array<Sample>; aggregator: "sum" }>
  readonly getForPromString?: () => Promise<{ name: string; help: string; type: string; values: Array<Sample>; aggregator: "sum" }>
  readonly reset: () => void
}

/** @since 0.1.0 @category constructors */
export const make = (registry: Prometheus.Registry, options: {
  readonly requests: { readonly name: string; readonly help: string }
  readonly latency: { readonly name: string; readonly help: string; readonly buckets: Array<number> }
}): Record => {
  const bounds = [...options.latency.buckets].sort((a, b) => a - b)
  const series = new Map<string, Series>()
  const reset = () => series.clear()

  const requests: Collected = {
    name: options.requests.name,
    help: options.requests.help,
    type: "counter",
    aggregator: "sum",
    get: async () => ({
      help: requests.help,
      name: requests.name,
      type: requests.type,
      values: Array.from(series.values(), (s) => ({ value: s.count, labels: s.labels })),
      aggregator: "sum"
    }),
    reset
  }

  // prom-client's histogram: each series' buckets (cumulative, then +Inf), its sum and its count,
  // with the series' labels shared by the bucket's own `le`
  const histogramValues = (): Array<Sample> => {
    const values: Array<Sample> = []
    const name = latency.name
    for (const s of series.values()) {
      let cumulative = 0
      for (let i = 0; i < bounds.length; i++) {
        cumulative += s.buckets[i]!
        values.push({ labels: { le: bounds[i]! }, sharedLabels: s.labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null })
      }
      values.push(
        { labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count`, exemplar: undefined }
      )
    }
    return values
  }
  const latency: Collected = {
    name: options.latency.name,
    help: options.latency.help,
    type: "histogram",
    aggregator: "sum",
    getForPromString: async () => ({
      name: latency.name,
      help: latency.help,
      type: latency.type,
      values: histogramValues(),
      aggregator: "sum"
    }),
    get: async () => ({
      name: latency.name,
      help: latency.help,
      type: latency.type,
      values: histogramValues().map(({ labels, sharedLabels, ...sample }) => ({ ...sample, labels: { ...labels, ...sharedLabels } })),
      aggregator: "sum"
    }),
    reset
  }
  registry.registerMetric(requests as unknown as Prometheus.Metric)
  registry.registerMetric(latency as unknown as Prometheus.Metric)

  return (operation, status, seconds) => {
    const key = `${operation} ${status}`
    let s = series.get(key)
    if (s === undefined) {
      s = { labels: { operation, status: String(status) }, count: 0, sum: 0, buckets: bounds.map(() => 0) }
      series.set(key, s)
    }
    s.count += 1
    s.sum += seconds
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        s.buckets[i]! += 1
        break
      }
    }
  }
}
