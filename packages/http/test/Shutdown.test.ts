import { assert, describe, it } from "@effect/vitest"
import { Dialects, SpawnedServer, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as http from "node:http"

const TRIALS = 20
const BURST = 200
const GRACE_SECONDS = 5

const invoiceBody = (shopID: string, n: number) => ({
  shopID,
  dueDate: new Date(Date.now() + 86_400_000).toISOString(),
  currency: "RUB",
  product: `Shutdown order ${n}`,
  amount: 1_000 + n,
  metadata: { order: n }
})

const createInvoice = (server: SpawnedServer.Spawned, n: number, agent: http.Agent | false) =>
  SpawnedServer.request(server.port, "POST", "/v2/processing/invoices", {
    agent,
    body: invoiceBody(server.credentials.shopID, n),
    headers: { authorization: `Bearer ${server.credentials.apiKey}`, "x-request-id": `shutdown-${n}` },
    timeoutMs: (GRACE_SECONDS + 5) * 1000
  })

/** A network error of a request the server never took (refused, or reset before an answer). */
const notTaken = (error: unknown) => ["ECONNREFUSED", "ECONNRESET", "EPIPE"].includes((error as NodeJS.ErrnoException).code ?? "")

const until = async (what: string, condition: () => boolean) => {
  const deadline = performance.now() + 10_000
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not within 10 s: ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** The server's log lines of its own (JSON), not the demo merchant's credentials. */
const logLines = (server: SpawnedServer.Spawned) => server.log().split("\n").filter((l) => l.startsWith("{")).slice(-20).join("\n")

describe.each(Dialects.dialects())("Graceful shutdown (%s)", (dialect) => {
  it.scopedLive(
    "SIGTERM at random points of bursts of createInvoice: every request taken is answered, every 201 kept, exit 0 within the grace",
    () =>
      Effect.gen(function*() {
        SpawnedServer.bundle()
        const db = yield* TestDatabase.acquire(dialect)
        const options = {
          dataDir: db.dataDir,
          databaseUrl: db.database._tag === "pg" ? db.database.url : undefined,
          env: { KASSA_SHUTDOWN_GRACE: String(GRACE_SECONDS) }
        }
        const created: Array<string> = []
        for (let trial = 0; trial < TRIALS; trial++) {
          const server = yield* SpawnedServer.scoped(options)
          yield* Effect.promise(async () => {
            const agent = new http.Agent({ keepAlive: true, maxSockets: 32 })
            const started = performance.now()
            const burst = Promise.allSettled(Array.from({ length: BURST }, (_, i) => createInvoice(server, trial * BURST + i, agent)))
            await new Promise((r) => setTimeout(r, Math.random() * 300))
            const signalled = performance.now()
            server.child.kill("SIGTERM")
            const answers = await burst
            const exit = await server.exited
            agent.destroy()
            const context = `trial ${trial}, SIGTERM ${Math.round(signalled - started)} ms into the burst:\n${logLines(server)}`
            for (const answer of answers) {
              if (answer.status === "rejected") {
                assert.isTrue(notTaken(answer.reason), `${String(answer.reason)} (${context})`)
              } else if (answer.value.status === 201) {
                created.push(JSON.parse(answer.value.body).invoice.id)
              } else {
                assert.strictEqual(answer.value.status, 503, `${answer.value.body} (${context})`)
                assert.strictEqual(answer.value.headers["retry-after"], "1")
              }
            }
            assert.strictEqual(exit.code, 0, context)
            assert.isBelow(exit.at - signalled, GRACE_SECONDS * 1000, context)
            assert.match(server.log(), /Shutdown: draining HTTP requests[\s\S]*Shutdown: HTTP requests drained/)
          })
        }
        assert.isAbove(created.length, 0)
        const restarted = yield* SpawnedServer.scoped(options)
        const missing: Array<string> = []
        yield* Effect.promise(async () => {
          const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
          for (let i = 0; i < created.length; i += 64) {
            await Promise.all(created.slice(i, i + 64).map(async (id) => {
              const answer = await SpawnedServer.request(restarted.port, "GET", `/v2/processing/invoices/${id}`, {
                agent,
                headers: { authorization: `Bearer ${restarted.credentials.apiKey}`, "x-request-id": `kept-${id}` }
              })
              if (answer.status !== 200) missing.push(id)
            }))
          }
          agent.destroy()
        })
        assert.deepStrictEqual(missing, [])
      }),
    240_000
  )

  it.scopedLive("a request in flight is answered after SIGTERM; one more on its open connection gets 503 with Retry-After", () =>
    Effect.gen(function*() {
      SpawnedServer.bundle()
      const db = yield* TestDatabase.acquire(dialect)
      const server = yield* SpawnedServer.scoped({ dataDir: db.dataDir, databaseUrl: db.database._tag === "pg" ? db.database.url : undefined })
      yield* Effect.promise(async () => {
        // Two requests held in flight by their bodies, sent half before SIGTERM.
        const held = [0, 1].map((n) => {
          const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
          const body = JSON.stringify(invoiceBody(server.credentials.shopID, n))
          let answer: SpawnedServer.Answer | undefined
          const request = http.request({
            host: "127.0.0.1",
            port: server.port,
            method: "POST",
            path: "/v2/processing/invoices",
            agent,
            headers: {
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(body)),
              authorization: `Bearer ${server.credentials.apiKey}`,
              "x-request-id": `held-${n}`
            }
          }, (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () => (answer = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }))
          })
          request.write(body.slice(0, 10))
          return { agent, request, rest: body.slice(10), answer: () => answer }
        })
        await new Promise((r) => setTimeout(r, 200))
        server.child.kill("SIGTERM")
        await until("the drain starts", () => server.log().includes("Shutdown: draining HTTP requests"))

        const [first, second] = held as [typeof held[0], typeof held[0]]
        first.request.end(first.rest)
        await until("the first request is answered", () => first.answer() !== undefined)
        assert.strictEqual(first.answer()!.status, 201, first.answer()!.body)
        const refused = await SpawnedServer.request(server.port, "GET", "/v2/processing/invoices/anything", {
          agent: first.agent,
          headers: { authorization: `Bearer ${server.credentials.apiKey}` }
        })
        assert.strictEqual(refused.status, 503)
        assert.strictEqual(refused.headers["retry-after"], "1")
        assert.deepStrictEqual(Object.keys(JSON.parse(refused.body)), ["message"])

        second.request.end(second.rest)
        await until("the second request is answered", () => second.answer() !== undefined)
        assert.strictEqual(second.answer()!.status, 201)
        const exit = await server.exited
        assert.strictEqual(exit.code, 0)
        first.agent.destroy()
        second.agent.destroy()
      })
    }), 60_000)
})
