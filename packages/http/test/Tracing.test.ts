import { assert, describe, it } from "@effect/vitest"
import { Dialects, SpawnedServer, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as http from "node:http"
import type * as net from "node:net"

/** What the test reads of an OTLP/HTTP JSON export. */
interface Attribute {
  readonly key: string
  readonly value: { readonly stringValue?: string }
}
interface Span {
  readonly name: string
  readonly traceId: string
  readonly attributes: ReadonlyArray<Attribute>
}
interface Export {
  readonly resourceSpans?: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<Attribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

/** A collector on 127.0.0.1 that keeps the OTLP/HTTP JSON bodies posted to /v1/traces. */
const receiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ readonly url: string; readonly bodies: Array<Export>; readonly server: http.Server }>((resolve) => {
      const bodies: Array<Export> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          if (req.url === "/v1/traces") bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Export)
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, bodies, server }))
    })
  ),
  ({ server }) => Effect.promise(() => new Promise((r) => server.close(r)))
)

describe.each(Dialects.dialects())("Tracing (%s)", (dialect) => {
  it.scopedLive("with OTEL_EXPORTER_OTLP_ENDPOINT the spans of a createInvoice reach the collector over OTLP/HTTP; no card data or key in them", () =>
    Effect.gen(function*() {
      SpawnedServer.bundle()
      const collector = yield* receiver
      const db = yield* TestDatabase.acquire(dialect)
      const server = yield* SpawnedServer.scoped({
        dataDir: db.dataDir,
        databaseUrl: db.database._tag === "pg" ? db.database.url : undefined,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }
      })
      const created = yield* Effect.promise(() =>
        SpawnedServer.request(server.port, "POST", "/v2/processing/invoices", {
          body: {
            shopID: server.credentials.shopID,
            dueDate: new Date(Date.now() + 86_400_000).toISOString(),
            currency: "RUB",
            product: "Traced order",
            amount: 1_000,
            metadata: {}
          },
          headers: { authorization: `Bearer ${server.credentials.apiKey}`, "x-request-id": "traced-1" }
        })
      )
      assert.strictEqual(created.status, 201)
      const tokenized = yield* Effect.promise(() =>
        SpawnedServer.request(server.port, "POST", "/v2/processing/payment-resources", {
          body: {
            paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/30", cvv: "987" },
            clientInfo: { fingerprint: "traced" }
          },
          headers: { authorization: `Bearer ${server.credentials.apiKey}`, "x-request-id": "traced-2" }
        })
      )
      assert.strictEqual(tokenized.status, 201)
      // the batch is flushed on shutdown at the latest
      const exit = yield* Effect.promise(() => SpawnedServer.stop(server))
      assert.strictEqual(exit.code, 0)

      const resourceSpans = collector.bodies.flatMap((b) => b.resourceSpans ?? [])
      const serviceNames = new Set(resourceSpans.flatMap((r) =>
        r.resource.attributes.filter((a) => a.key === "service.name").map((a) => a.value.stringValue)
      ))
      assert.deepStrictEqual([...serviceNames], ["kassa"])
      const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      const byName = (name: string) => spans.filter((s) => s.name === name)
      const request = spans.find((s) =>
        s.attributes.some((a) => a.key === "http.request.method" && a.value.stringValue === "POST")
      )
      assert.isDefined(request, `no request span among ${spans.map((s) => s.name).join(", ")}`)
      const [create] = byName("InvoiceService.create")
      assert.isDefined(create, `no InvoiceService.create among ${spans.map((s) => s.name).join(", ")}`)
      assert.strictEqual(create!.traceId, request!.traceId)
      // no card number, CVV or credential in what is exported
      const exported = JSON.stringify(collector.bodies)
      for (const secret of ["4242424242424242", `"987"`, "cvv", server.credentials.apiKey]) assert.notInclude(exported, secret)
    }), 60_000)
})
