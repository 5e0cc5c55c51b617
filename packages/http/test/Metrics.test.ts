import { assert, layer } from "@effect/vitest"
import { MetricsAccess } from "@kassa/http/server/MetricsEndpoint"
import { Dialects, Fixtures, SpawnedServer, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as net from "node:net"

const headers = (token?: string) => ({
  "x-request-id": TestServer.requestId(),
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
})

/** The value of the sample `name{labels}` (labels as written), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(series + " "))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const metricsPort = await new Promise<number>((resolve) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resolve(port))
  })
})

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Metrics [${dialect}]`, (it) => {
    it.effect("every route has an operation name: docs, 3ds, download, health, metrics, notFound", () =>
      Effect.gen(function*() {
        for (const path of ["/openapi.json", "/docs", "/3ds/nothing", "/downloads/forged", "/health", "/health/live", "/metrics", "/no/such/route"]) {
          yield* TestServer.raw("GET", path, { headers: headers() })
        }
        const text = (yield* TestServer.raw("GET", "/metrics")).text
        for (const [operation, status] of [["docs", 200], ["3ds", 404], ["download", 403], ["health", 200], ["metrics", 200], ["notFound", 404]] as const) {
          assert.isAtLeast(sample(text, `kassa_http_requests_total{operation="${operation}",status="${status}"}`) ?? 0, 1, operation)
        }
        assert.notInclude(text, `operation="unknown"`)
        // the latency histogram has the counter's series, its buckets cumulative up to +Inf
        const series = `operation="health",status="200"`
        const count = sample(text, `kassa_http_requests_total{${series}}`)!
        assert.strictEqual(sample(text, `kassa_http_request_duration_seconds_count{${series}}`), count)
        assert.strictEqual(sample(text, `kassa_http_request_duration_seconds_bucket{le="+Inf",${series}}`), count)
        const bounds = ["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10"]
        const cumulative = bounds.map((le) => sample(text, `kassa_http_request_duration_seconds_bucket{le="${le}",${series}}`)!)
        assert.deepStrictEqual(cumulative, [...cumulative].sort((a, b) => a - b))
        assert.isAtMost(cumulative.at(-1)!, count)
        assert.include(text, "# TYPE kassa_http_request_duration_seconds histogram")
      }))

    it.effect("the process, the runtime, the pool, the webhook queue, the timers and the card vault are measured", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const tokenized = yield* TestServer.raw("POST", "/v2/processing/payment-resources", {
          headers: headers(m.apiKey),
          body: JSON.stringify({
            paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/30", cvv: "123" },
            clientInfo: { fingerprint: "metrics" }
          })
        })
        assert.strictEqual(tokenized.status, 201)
        const text = (yield* TestServer.raw("GET", "/metrics")).text
        for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_eventloop_lag_seconds"]) {
          assert.isDefined(sample(text, name), name)
        }
        assert.include(text, "# TYPE nodejs_gc_duration_seconds histogram")
        assert.isAtLeast(sample(text, `kassa_card_vault_operations_total{operation="putCardAndSession",outcome="ok"}`) ?? 0, 1)
        assert.isDefined(sample(text, `kassa_webhook_backlog{queue="outbox"}`))
        assert.isDefined(sample(text, `kassa_webhook_oldest_age_seconds{queue="subjects"}`))
        assert.isDefined(sample(text, "kassa_timers_due"))
        assert.isDefined(sample(text, "kassa_timers_oldest_lag_seconds"))
        if (dialect === "pg") {
          assert.isAtLeast(sample(text, `kassa_db_pool_connections{state="idle"}`) ?? 0, 1)
          assert.isDefined(sample(text, `kassa_db_pool_connections{state="waiting"}`))
        } else {
          assert.notInclude(text, "kassa_db_pool_connections{")
        }
      }))
  })

  layer(
    TestServer.layer(dialect).pipe(Layer.provide(Layer.succeed(MetricsAccess, { token: "s3cret-scrape" }))),
    { timeout: "60 seconds" }
  )(`Metrics behind a token [${dialect}]`, (it) => {
    it.effect("with KASSA_METRICS_TOKEN a scrape without the bearer token gets 401; with it, the metrics", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* TestServer.raw("GET", "/metrics")).status, 401)
        assert.strictEqual((yield* TestServer.raw("GET", "/metrics", { headers: { authorization: "Bearer wrong" } })).status, 401)
        const scraped = yield* TestServer.raw("GET", "/metrics", { headers: { authorization: "Bearer s3cret-scrape" } })
        assert.strictEqual(scraped.status, 200)
        assert.include(scraped.text, "kassa_http_requests_total")
      }))
  })

  layer(
    TestServer.layer(dialect).pipe(
      Layer.provide(Layer.succeed(MetricsAccess, { address: { host: "127.0.0.1", port: metricsPort }, token: "t" }))
    ),
    { timeout: "60 seconds" }
  )(`Metrics on their own address [${dialect}]`, (it) => {
    it.effect("with KASSA_METRICS_ADDRESS /metrics is served there only, still behind the token; the API's port answers 404", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* TestServer.raw("GET", "/metrics", { headers: { authorization: "Bearer t" } })).status, 404)
        const scraped = yield* Effect.promise(() => SpawnedServer.request(metricsPort, "GET", "/metrics", { headers: { authorization: "Bearer t" } }))
        assert.strictEqual(scraped.status, 200)
        assert.include(scraped.body, "kassa_http_requests_total")
        const refused = yield* Effect.promise(() => SpawnedServer.request(metricsPort, "GET", "/metrics"))
        assert.strictEqual(refused.status, 401)
        const other = yield* Effect.promise(() => SpawnedServer.request(metricsPort, "GET", "/v2/processing/invoices/x"))
        assert.strictEqual(other.status, 404)
      }))
  })
}
