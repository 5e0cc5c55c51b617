// The cost of one createInvoice through InProcess against the same client (of JsonApi) over HTTP
// (a socket on 127.0.0.1), both on one Kassa on SQLite in this process: N sequential calls each
// way, after a warm-up, in alternating rounds. A measurement, not a test.
// npx vite-node --config vitest.config.ts packages/testing/bench/inprocess.ts [N]
// (Not through TestKassa or TestServer: they reach vitest's `inject`, which needs the runner.)
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Kassa, TokenKeys } from "@kassa/adapters"
import { InProcess } from "@kassa/http"
import { JsonApi } from "@kassa/http/api"
import * as Http from "@kassa/http/server/Http"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Fixtures from "../src/Fixtures.js"

const calls = Number(process.argv[2] ?? 500)
const rounds = 3

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-inprocess-bench-"))
const kassa = Kassa.layer({
  database: { _tag: "sqlite", filename: path.join(dataDir, "kassa.db") },
  dataDir,
  signingKey: TokenKeys.generatePem()
})
const both = Layer.merge(InProcess.layer(kassa), Http.serve(kassa).pipe(Layer.provideMerge(NodeHttpServer.layerTest)))

type Client = InProcess.Client

let requests = 0
const overHttp = (token: string) =>
  HttpApiClient.make(JsonApi.JsonApi, {
    transformClient: HttpClient.mapRequest((request) =>
      request.pipe(HttpClientRequest.setHeader("x-request-id", `bench-${++requests}`), HttpClientRequest.bearerToken(token))
    )
  })

const createInvoices = (api: Client, shopID: string, n: number) =>
  Effect.gen(function*() {
    const started = performance.now()
    const cpu = process.cpuUsage()
    for (let i = 0; i < n; i++) {
      yield* api.Invoices.createInvoice({
        payload: { shopID, dueDate: new Date(Date.now() + 86_400_000).toISOString(), amount: 10_000, currency: "RUB", product: "Tea", metadata: {} }
      })
    }
    const used = process.cpuUsage(cpu)
    return { wall: (performance.now() - started) / n, cpu: (used.user + used.system) / 1000 / n }
  })

const program = Effect.gen(function*() {
  const m = yield* Fixtures.merchant()
  const ways: ReadonlyArray<readonly [string, Client]> = [
    ["in-process", yield* (yield* InProcess.InProcess).asParty(m.partyID)],
    ["over HTTP", yield* overHttp(m.apiKey)]
  ]
  for (const [, api] of ways) yield* createInvoices(api, m.shopID, 50)
  const results: Record<string, Array<{ readonly wall: number; readonly cpu: number }>> = { "in-process": [], "over HTTP": [] }
  for (let round = 0; round < rounds; round++) {
    for (const [name, api] of round % 2 === 0 ? ways : [...ways].reverse()) {
      results[name]!.push(yield* createInvoices(api, m.shopID, calls))
    }
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(3)
  for (const [name, rs] of Object.entries(results)) {
    const walls = rs.map((r) => r.wall)
    const cpus = rs.map((r) => r.cpu)
    console.log(`${name}: ${median(walls)} ms per createInvoice, ${median(cpus)} ms of this process's CPU (medians of ${rounds} rounds of ${calls}; wall ${walls.map((x) => x.toFixed(3)).join(", ")})`)
  }
})

await Effect.runPromise(Effect.provide(program, both)).finally(() => fs.rmSync(dataDir, { recursive: true, force: true }))
