import { assert, beforeAll, describe, it } from "@effect/vitest"
import type { Database } from "@kassa/adapters"
import { Dialects, SpawnedServer, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"

/**
 * The server as `npm start` runs it (the bundle in its own process): what a start says, what it
 * refuses, what it leaves behind.
 */

beforeAll(() => SpawnedServer.bundle(), 120_000)

const scratchDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kassa-start-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const json = (line: string) => JSON.parse(line) as { message: string; logLevel: string; annotations: Record<string, unknown> }

/** A database URL of the test store, with a password the log must not show (trust auth ignores it). */
const withPassword = (url: string) => {
  const u = new URL(url)
  u.password = "s3cret-pw"
  return u.toString()
}

const hasMigrated = (database: Database.DatabaseConfig) =>
  Effect.promise(async () => {
    if (database._tag === "sqlite") return fs.existsSync(database.filename)
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      return (await client.query("SELECT to_regclass('kassa_migrations') IS NOT NULL AS present")).rows[0].present as boolean
    } finally {
      await client.end()
    }
  })

const get = (port: number, pathName: string, headers: Record<string, string>, body?: string) =>
  Effect.promise(() =>
    fetch(`http://127.0.0.1:${port}${pathName}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body })
    }).then((r) => r.status)
  )

describe.each(Dialects.dialects())("a start (%s)", (dialect) => {
  it.live("says its version, store (without the password), data dir, address, migrations and roles; one access-log line per request", () =>
    Effect.gen(function*() {
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      const port = yield* Effect.promise(SpawnedServer.freePort)
      const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", KASSA_DATA_DIR: dataDir }
      if (database._tag === "pg") env.DATABASE_URL = withPassword(database.url)
      const server = yield* SpawnedServer.spawnScoped(env, dataDir)
      yield* Effect.promise(() => server.waitFor(/"message":"ready on /))
      const start = server.lines().map(json)
      const messages = start.map((l) => l.message)
      assert.match(messages[0]!, /^Kassa \d+\.\d+\.\d+$/)
      assert.strictEqual(
        messages[1],
        database._tag === "pg" ? `store: PostgreSQL ${withPassword(database.url).replace("s3cret-pw", "***")}` : `store: SQLite ${database.filename}`
      )
      assert.strictEqual(messages[2], `data dir: ${dataDir}`)
      assert.strictEqual(messages[3], `listen: 127.0.0.1:${port}`)
      assert.match(messages[4]!, /^migrations: applied \d+ of \d+ \(0001_kernel to \d{4}_\w+\)$/)
      assert.strictEqual(messages.at(-1), `ready on http://127.0.0.1:${port}; running: HTTP API, timers, webhook dispatcher`)

      // The demo merchant: by default on the embedded SQLite store only; its secrets in a 0600 file, not in the log.
      const file = path.join(dataDir, "dev-credentials.json")
      if (dialect === "sqlite") {
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        const credentials = JSON.parse(fs.readFileSync(file, "utf8")) as { apiKey: string; adminToken: string; partyID: string }
        assert.isTrue(messages.some((m) => m.includes("demo merchant") && m.includes(file)))
        assert.notInclude(server.log(), credentials.apiKey)
        assert.notInclude(server.log(), credentials.adminToken)
        assert.strictEqual(yield* get(port, "/v2/processing/invoices", { authorization: `Bearer ${credentials.apiKey}`, "x-request-id": "req-bad" }, "{}"), 400)
        const line = json(yield* Effect.promise(() => server.waitFor(/"requestId":"req-bad"/)))
        assert.deepStrictEqual(
          { ...line.annotations, durationMs: typeof line.annotations.durationMs },
          { operationId: "createInvoice", status: 400, durationMs: "number", requestId: "req-bad", party: credentials.partyID, code: "invalidRequest" }
        )
        assert.notInclude(server.log(), "Bearer")
      } else {
        assert.isFalse(fs.existsSync(file))
        assert.isFalse(messages.some((m) => m.includes("demo merchant")))
      }
      assert.strictEqual(yield* get(port, "/v1/processing/countries/RUS", { "x-request-id": "req-ok" }), 200)
      const line = json(yield* Effect.promise(() => server.waitFor(/"requestId":"req-ok"/)))
      assert.strictEqual(line.message, "request")
      assert.deepStrictEqual(
        { ...line.annotations, durationMs: typeof line.annotations.durationMs },
        { operationId: "getCountryByID", status: 200, durationMs: "number", requestId: "req-ok" }
      )
      assert.notInclude(server.log(), "s3cret-pw")
    }).pipe(Effect.scoped))

  it.live("a port already taken stops the start before any migration or provisioning", () =>
    Effect.gen(function*() {
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      const taken = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<net.Server>((resolve) => {
            const srv = net.createServer()
            srv.listen(0, "127.0.0.1", () => resolve(srv))
          })
        ),
        (srv) => Effect.promise(() => new Promise<void>((resolve) => srv.close(() => resolve())))
      )
      const port = (taken.address() as net.AddressInfo).port
      const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", KASSA_DATA_DIR: dataDir, KASSA_PROVISION_DEMO: "true" }
      if (database._tag === "pg") env.DATABASE_URL = database.url
      const server = yield* SpawnedServer.spawnScoped(env, dataDir)
      const { code } = yield* Effect.promise(() => server.exited)
      assert.notStrictEqual(code, 0)
      const last = json(server.lines().at(-1)!)
      assert.strictEqual(last.logLevel, "FATAL")
      assert.strictEqual(last.message, `start failed: PORT: 127.0.0.1:${port} is already in use`)
      assert.isFalse(yield* hasMigrated(database))
      assert.isFalse(fs.existsSync(path.join(dataDir, "dev-credentials.json")))
    }).pipe(Effect.scoped))
})

describe.each(Dialects.dialects().filter((d) => d === "pg"))("a start on a database not up yet (%s)", (dialect) => {
  it.live("waits for it, and starts once it answers", () =>
    Effect.gen(function*() {
      const { dataDir, database } = yield* TestDatabase.acquire(dialect)
      if (database._tag !== "pg") return yield* Effect.dieMessage("a PostgreSQL store was expected")
      const target = new URL(database.url)
      // The database's address: a port where nothing listens until the server has said it waits.
      const late = yield* Effect.promise(SpawnedServer.freePort)
      const proxy = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname)
        client.pipe(upstream).pipe(client)
        client.on("error", () => upstream.destroy())
        upstream.on("error", () => client.destroy())
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => proxy.close()))
      const url = new URL(database.url)
      url.port = String(late)
      const port = yield* Effect.promise(SpawnedServer.freePort)
      const server = yield* SpawnedServer.spawnScoped({ PORT: String(port), HOST: "127.0.0.1", KASSA_DATA_DIR: dataDir, DATABASE_URL: url.toString() }, dataDir)
      const waiting = json(yield* Effect.promise(() => server.waitFor(/does not answer yet/)))
      assert.strictEqual(waiting.logLevel, "WARN")
      yield* Effect.promise(() => new Promise<void>((resolve) => proxy.listen(late, "127.0.0.1", () => resolve())))
      yield* Effect.promise(() => server.waitFor(/"message":"ready on /))
      assert.strictEqual(yield* get(port, "/health", {}), 200)
    }).pipe(Effect.scoped))
})

describe("a start with bad settings", () => {
  it.live("DATABASE_URL with an unknown scheme stops the start, naming the variable, creating nothing, showing no password", () =>
    Effect.gen(function*() {
      const cwd = yield* scratchDir
      const server = yield* SpawnedServer.spawnScoped({ DATABASE_URL: "postgress://kassa:s3cret-pw@127.0.0.1/kassa", KASSA_DATA_DIR: path.join(cwd, "data") }, cwd)
      assert.notStrictEqual((yield* Effect.promise(() => server.exited)).code, 0)
      const lines = server.lines().map(json)
      assert.deepStrictEqual(lines.map((l) => [l.logLevel, l.message]), [
        ["INFO", lines[0]!.message],
        ["FATAL", "start failed: DATABASE_URL: expected postgres://…, postgresql://… or sqlite:<file>, got the scheme \"postgress:\""]
      ])
      assert.notInclude(server.log(), "s3cret-pw")
      assert.deepStrictEqual(fs.readdirSync(cwd), [])
    }).pipe(Effect.scoped))

  it.live("every bad setting is named in one line of the chosen format; KASSA_LOG_LEVEL hides the lesser lines", () =>
    Effect.gen(function*() {
      const cwd = yield* scratchDir
      const server = yield* SpawnedServer.spawnScoped({ PORT: "80000", KASSA_DB_POOL_SIZE: "many", KASSA_LOG_FORMAT: "pretty", KASSA_LOG_LEVEL: "error", KASSA_DATA_DIR: cwd }, cwd)
      assert.notStrictEqual((yield* Effect.promise(() => server.exited)).code, 0)
      const lines = server.lines()
      assert.strictEqual(lines.length, 1)
      assert.match(
        lines[0]!,
        /^\[[\d:.]+\] FATAL \(#\d+\): start failed: PORT: Expected a network port value but received "80000"; KASSA_DB_POOL_SIZE: Expected a whole number from 1 to 1000 but received many$/
      )
    }).pipe(Effect.scoped))

  it.live("a failure while starting (an unreadable signing key in the data dir) is one FATAL line with its cause, and a non-zero exit", () =>
    Effect.gen(function*() {
      const cwd = yield* scratchDir
      fs.mkdirSync(path.join(cwd, "keys"))
      fs.writeFileSync(path.join(cwd, "keys", "000000000000001.pem"), "garbage")
      const server = yield* SpawnedServer.spawnScoped({ KASSA_DATA_DIR: cwd, PORT: String(yield* Effect.promise(SpawnedServer.freePort)), HOST: "127.0.0.1" }, cwd)
      assert.notStrictEqual((yield* Effect.promise(() => server.exited)).code, 0)
      const last = json(server.lines().at(-1)!)
      assert.strictEqual(last.logLevel, "FATAL")
      assert.strictEqual(last.message, "start failed")
      assert.match((last as unknown as { cause: string }).cause, /PEM|key/i)
      assert.isTrue(server.lines().every((l) => l.startsWith("{")))
    }).pipe(Effect.scoped))
})
