/**
 * The requests' counter and latency histogram by operation and status, kept as plain numbers
 * per series and written in Prometheus's text format at a scrape. Every request records into
 * them: prom-client would hash and validate the labels of each call twice (counter and
 * histogram); here a request finds its series by one map lookup.
 *
 * @since 0.1.0
 */

interface Series {
  /** The series' labels as written, `operation="…",status="…"`. */
  readonly labels: string
  count: number
  sum: number
  /** Observations per bucket (not cumulative), the last one past the largest bound. */
  readonly inBucket: Array<number>
}

const escape = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, "\\\"").replace(/\n/g, "\\n")

/** @since 0.1.0 @category models */
export interface RequestMetrics {
  readonly record: (operation: string, status: number, seconds: number) => void
  /** The two metrics in the exposition format, ending with a newline. */
  readonly render: () => string
}

/** @since 0.1.0 @category constructors */
export const make = (options: {
  readonly requests: { readonly name: string; readonly help: string }
  readonly latency: { readonly name: string; readonly help: string; readonly buckets: ReadonlyArray<number> }
}): RequestMetrics => {
  const { buckets } = options.latency
  const series = new Map<string, Series>()
  const record = (operation: string, status: number, seconds: number) => {
    const key = `${operation} ${status}`
    let s = series.get(key)
    if (s === undefined) {
      s = { labels: `operation="${escape(operation)}",status="${status}"`, count: 0, sum: 0, inBucket: new Array(buckets.length + 1).fill(0) }
      series.set(key, s)
    }
    s.count++
    s.sum += seconds
    let i = 0
    while (i < buckets.length && seconds > buckets[i]!) i++
    s.inBucket[i]!++
  }
  const render = () => {
    const { latency, requests } = options
    const lines = [`# HELP ${requests.name} ${requests.help}`, `# TYPE ${requests.name} counter`]
    for (const s of series.values()) lines.push(`${requests.name}{${s.labels}} ${s.count}`)
    lines.push("", `# HELP ${latency.name} ${latency.help}`, `# TYPE ${latency.name} histogram`)
    for (const s of series.values()) {
      let cumulative = 0
      buckets.forEach((bound, i) => {
        cumulative += s.inBucket[i]!
        lines.push(`${latency.name}_bucket{le="${bound}",${s.labels}} ${cumulative}`)
      })
      lines.push(
        `${latency.name}_bucket{le="+Inf",${s.labels}} ${s.count}`,
        `${latency.name}_sum{${s.labels}} ${s.sum}`,
        `${latency.name}_count{${s.labels}} ${s.count}`
      )
    }
    return lines.join("\n") + "\n"
  }
  return { record, render }
}
