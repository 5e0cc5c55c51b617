import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Dialects, SpawnedServer, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { nodeStamp, serverArgs, snapshotFits, snapshotOf, stampOf } from "../scripts/launch.mjs"

/**
 * The startup snapshot `npm start` starts from (`dist/server.blob`, built by the bundle step):
 * a server started from it answers as the bundle does, and without it `start.sh` starts the bundle.
 */

beforeAll(() => SpawnedServer.bundle(), 240_000)

const httpDir = path.resolve(path.dirname(SpawnedServer.bundlePath), "..")

/** The command line of a running process (Linux: `/proc`). */
const commandLine = (pid: number) => fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean)

const call = (port: number, method: string, pathName: string, headers: Record<string, string>, body?: unknown) =>
  Effect.promise(() => SpawnedServer.request(port, method, pathName, { headers, ...(body === undefined ? {} : { body }) }))

/** What a started server must answer: its health, reference data, an invoice made and read back, its start time. */
const answersCorrectly = (server: SpawnedServer.Spawned) =>
  Effect.gen(function*() {
    const auth = { authorization: `Bearer ${server.credentials.apiKey}` }
    assert.deepStrictEqual(yield* call(server.port, "GET", "/health", {}).pipe(Effect.map((a) => [a.status, JSON.parse(a.body)])), [200, { status: "ok" }])
    const country = yield* call(server.port, "GET", "/v1/processing/countries/RUS", { "x-request-id": "snap-1" })
    assert.deepStrictEqual([country.status, JSON.parse(country.body)], [200, { id: "RUS", name: "Russian Federation", tradeBlocs: ["EAEU", "CIS"] }])
    // named in the access log by the operations' table the snapshot holds
    const logged = JSON.parse(yield* Effect.promise(() => server.waitFor(/"message":"request".*"requestId":"snap-1"/)))
    assert.deepStrictEqual([logged.annotations.operationId, logged.annotations.status], ["getCountryByID", 200])
    const created = yield* call(server.port, "POST", "/v2/processing/invoices", { ...auth, "x-request-id": "snap-2" }, {
      shopID: server.credentials.shopID,
      dueDate: "2099-01-01T00:00:00Z",
      amount: 1000,
      currency: "RUB",
      product: "snapshot",
      metadata: {}
    })
    assert.strictEqual(created.status, 201)
    const invoice = JSON.parse(created.body).invoice as { id: string; amount: number; status: string }
    const read = yield* call(server.port, "GET", `/v2/processing/invoices/${invoice.id}`, { ...auth, "x-request-id": "snap-3" })
    assert.deepStrictEqual([read.status, JSON.parse(read.body)], [200, invoice])
    const bad = yield* call(server.port, "POST", "/v2/processing/invoices", { ...auth, "x-request-id": "snap-4" }, {})
    assert.deepStrictEqual([bad.status, JSON.parse(bad.body).code], [400, "invalidRequest"])
    // taken when this process started, not when the snapshot was built
    const metrics = yield* call(server.port, "GET", "/metrics", {})
    const started = Number(/^process_start_time_seconds (\d+)$/m.exec(metrics.body)![1])
    assert.isAtLeast(started, Math.floor(Date.now() / 1000) - 120)
  })

const started = (options: Parameters<typeof SpawnedServer.start>[0]) =>
  Effect.acquireRelease(Effect.promise(() => SpawnedServer.start(options)), (server) => Effect.promise(() => SpawnedServer.stop(server)))

describe.each(Dialects.dialects())("the startup snapshot (%s)", (dialect) => {
  it.live("npm start starts from it, and the server answers as the bundle does; a restart on the same store too", () =>
    Effect.gen(function*() {
      assert.isTrue(snapshotFits(snapshotOf(SpawnedServer.bundlePath), SpawnedServer.bundlePath))
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      const options = { dataDir, ...(database._tag === "pg" ? { databaseUrl: database.url } : {}) }
      for (const run of ["fresh store", "existing store"]) {
        const server = yield* Effect.scoped(Effect.gen(function*() {
          const server = yield* started(options)
          assert.include(commandLine(server.child.pid!), "--snapshot-blob", run)
          yield* answersCorrectly(server)
          return server
        }))
        assert.strictEqual((yield* Effect.promise(() => server.exited)).code, 0, run)
      }
    }).pipe(Effect.scoped), 120_000)

  it.live("without a snapshot beside the bundle, start.sh starts the bundle", () =>
    Effect.gen(function*() {
      // a copy of the package's scripts and bundle, inside the repository (its node_modules resolve)
      const copy = yield* Effect.acquireRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(httpDir, "dist", "no-snapshot-"))),
        (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
      )
      fs.mkdirSync(path.join(copy, "scripts"))
      fs.mkdirSync(path.join(copy, "dist"))
      fs.copyFileSync(path.join(httpDir, "scripts", "start.sh"), path.join(copy, "scripts", "start.sh"))
      fs.copyFileSync(SpawnedServer.bundlePath, path.join(copy, "dist", "server.js"))
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      const server = yield* started({
        dataDir,
        ...(database._tag === "pg" ? { databaseUrl: database.url } : {}),
        launcher: path.join(copy, "scripts", "start.sh")
      })
      const args = commandLine(server.child.pid!)
      assert.notInclude(args, "--snapshot-blob")
      assert.strictEqual(path.resolve(args.at(-1)!), path.join(copy, "dist", "server.js"))
      yield* answersCorrectly(server)
    }).pipe(Effect.scoped), 120_000)

  it.live("with V8 flags in NODE_OPTIONS (a snapshot loads only with its own), npm start starts the bundle", () =>
    Effect.gen(function*() {
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      const server = yield* started({
        dataDir,
        ...(database._tag === "pg" ? { databaseUrl: database.url } : {}),
        env: { NODE_OPTIONS: "--max-old-space-size=512" }
      })
      const args = commandLine(server.child.pid!)
      assert.notInclude(args, "--snapshot-blob")
      assert.strictEqual(path.resolve(args.at(-1)!), SpawnedServer.bundlePath)
      yield* answersCorrectly(server)
    }).pipe(Effect.scoped), 120_000)
})

describe("which start the bench and the tests spawn", () => {
  it("the snapshot when it is newer than the bundle and was built by this Node, else the bundle", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-snapshot-"))
    try {
      const bundle = path.join(dir, "server.js")
      const blob = snapshotOf(bundle)
      const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds)
      fs.writeFileSync(bundle, "#!/usr/bin/env -S node --max-semi-space-size=32\n")
      at(bundle, 1_000)
      assert.deepStrictEqual(serverArgs(bundle, ["--cpu-prof"]), ["--max-semi-space-size=32", "--cpu-prof", bundle])
      fs.writeFileSync(blob, "")
      fs.writeFileSync(stampOf(blob), JSON.stringify(nodeStamp()))
      at(blob, 2_000)
      assert.deepStrictEqual(serverArgs(bundle, ["--cpu-prof"]), ["--max-semi-space-size=32", "--cpu-prof", "--snapshot-blob", blob])
      // V8 flags of its own or a preload: the bundle
      assert.deepStrictEqual(serverArgs(bundle, ["--max-old-space-size=512"]), ["--max-semi-space-size=32", "--max-old-space-size=512", bundle])
      at(bundle, 3_000)
      assert.deepStrictEqual(serverArgs(bundle), ["--max-semi-space-size=32", bundle])
      at(blob, 4_000)
      fs.writeFileSync(stampOf(blob), JSON.stringify({ ...nodeStamp(), node: "v0.0.0" }))
      assert.deepStrictEqual(serverArgs(bundle), ["--max-semi-space-size=32", bundle])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
