import { assert, describe, it } from "@effect/vitest"
import * as Prometheus from "prom-client"
import * as RequestMetrics from "../src/server/RequestMetrics.js"

/**
 * The requests' series kept by hand read at a scrape exactly as prom-client's own counter and
 * histogram would give them: the same text, the same JSON.
 */

const requests = { name: "kassa_http_requests_total", help: "HTTP requests by operation and status." }
const latency = {
  name: "kassa_http_request_duration_seconds",
  help: "HTTP request latency by operation and status.",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
}

// prom-client's own metrics, recorded into as before
const reference = (registry: Prometheus.Registry): RequestMetrics.Record => {
  const labelNames = ["operation", "status"] as const
  const counter = new Prometheus.Counter({ ...requests, labelNames, registers: [registry] })
  const histogram = new Prometheus.Histogram({ ...latency, labelNames, registers: [registry] })
  return (operation, status, seconds) => {
    const labels = { operation, status: String(status) }
    counter.labels(labels).inc()
    histogram.labels(labels).observe(seconds)
  }
}

const recorded: Array<readonly [string, number, number]> = [
  ["getInvoiceByID", 200, 0.0012],
  ["createInvoice", 201, 0.005],
  ["getInvoiceByID", 404, 0.0049],
  ["getInvoiceByID", 200, 0.01],
  ["createInvoice", 201, 0.3333],
  ["createPayment", 400, 10],
  ["createPayment", 400, 12.5],
  ["getInvoiceByID", 200, 0],
  ["op \"quoted\" \\ \n", 500, 1],
  ["createInvoice", 201, 2.4999]
]

const both = () => {
  const before = new Prometheus.Registry()
  const after = new Prometheus.Registry()
  return { before, after, record: [reference(before), RequestMetrics.make(after, { requests, latency })] as const }
}

const assertSame = async (before: Prometheus.Registry, after: Prometheus.Registry) => {
  assert.strictEqual(await after.metrics(), await before.metrics())
  assert.deepStrictEqual(await after.getMetricsAsJSON(), await before.getMetricsAsJSON())
}

describe("RequestMetrics", () => {
  it("reads as prom-client's counter and histogram do", async () => {
    const { after, before, record } = both()
    await assertSame(before, after)
    for (const [operation, status, seconds] of recorded) for (const r of record) r(operation, status, seconds)
    await assertSame(before, after)
    assert.include(await after.metrics(), `kassa_http_requests_total{operation="getInvoiceByID",status="200"} 3`)
    assert.include(await after.metrics(), `kassa_http_request_duration_seconds_bucket{le="0.005",operation="createInvoice",status="201"} 1`)
    assert.include(await after.metrics(), `kassa_http_request_duration_seconds_bucket{le="+Inf",operation="createPayment",status="400"} 2`)
  })

  it("starts again from nothing when the registry resets", async () => {
    const { after, before, record } = both()
    for (const [operation, status, seconds] of recorded) for (const r of record) r(operation, status, seconds)
    before.resetMetrics()
    after.resetMetrics()
    await assertSame(before, after)
    for (const [operation, status, seconds] of recorded.slice(3)) for (const r of record) r(operation, status, seconds)
    await assertSame(before, after)
  })

  it("reads as prom-client's do in the OpenMetrics format", async () => {
    const { after, before, record } = both()
    before.setContentType(Prometheus.Registry.OPENMETRICS_CONTENT_TYPE as any)
    after.setContentType(Prometheus.Registry.OPENMETRICS_CONTENT_TYPE as any)
    for (const [operation, status, seconds] of recorded) for (const r of record) r(operation, status, seconds)
    assert.strictEqual(await after.metrics(), await before.metrics())
  })
})
