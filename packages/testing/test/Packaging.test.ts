/**
 * The packages as a user gets them: `npm pack` of each (its prepack builds it), the tarballs
 * installed with their registry dependencies into an empty project and into a copy of each
 * example, type-checked there under a strict `nodenext` tsconfig and run on Node, no tsx.
 */
import { assert, describe, it } from "@effect/vitest"
import { Dialects, SpawnedServer, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll } from "vitest"

const root = path.resolve(import.meta.dirname, "../../..")
const minutes = (n: number) => n * 60_000

// Asynchronous, so the test worker keeps answering vitest during minutes of npm.
const run = async (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)(command, args, { cwd, env: { ...process.env, ...env }, timeout: minutes(10), maxBuffer: 64 * 1024 * 1024 })).stdout

let scratch = ""
let tarballs: Array<string> = []
let installEnv: Record<string, string> = {}

/**
 * better-sqlite3 finds the addon this checkout already compiled as a local prebuild, instead of
 * compiling it again for every project (no prebuilds can be downloaded here); without it the
 * install falls back to compiling.
 */
const localPrebuild = async (dir: string): Promise<Record<string, string>> => {
  const addon = path.join(root, "node_modules/better-sqlite3/build/Release/better_sqlite3.node")
  if (!fs.existsSync(addon)) return {}
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "node_modules/better-sqlite3/package.json"), "utf8"))
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`
  await run("tar", ["-czf", path.join(dir, name), "build/Release/better_sqlite3.node"], path.join(root, "node_modules/better-sqlite3"))
  return { npm_config_better_sqlite3_local_prebuilds: dir }
}

/**
 * A copy of `source` in the scratch folder with the tarballs of the Kassa packages it depends on
 * (and their registry dependencies) installed.
 */
const installed = async (source: string, name: string) => {
  const dir = path.join(scratch, name)
  fs.cpSync(source, dir, { recursive: true, filter: (f) => !/[\\/](node_modules|build)$/.test(f) })
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
  const wanted = Object.keys(dependencies).filter((d) => d.startsWith("@kassa/")).map((d) => `kassa-${d.slice("@kassa/".length)}-`)
  const own = tarballs.filter((t) => wanted.some((w) => path.basename(t).startsWith(w)))
  assert.strictEqual(own.length, wanted.length, `tarballs for ${wanted.join(", ")}`)
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...own], dir, installEnv)
  return dir
}

/** The database environment of an example: SQLite in its data dir, or the PostgreSQL database. */
const databaseEnv = (dialect: Dialects.Dialect) =>
  Effect.map(TestDatabase.acquire(dialect), ({ dataDir, database }) => ({
    KASSA_DATA_DIR: dataDir,
    ...(database._tag === "pg" ? { KASSA_DATABASE_URL: database.url } : {})
  }))

/** What examples/serve prints once it listens. */
const Listening = Schema.parseJson(Schema.Struct({ url: Schema.String, apiKey: Schema.String, shopID: Schema.String }))

/** createInvoice's answer, as far as the test reads it. */
const Created = Schema.Struct({
  invoice: Schema.Struct({ shopID: Schema.String, amount: Schema.Number, currency: Schema.String, status: Schema.String })
})

/** A program started for the scope, stopped (SIGTERM) when it closes. */
const started = (cwd: string, env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(process.execPath, ["build/main.js"], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] })),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

/** The first line a program prints. */
const firstLine = (child: ChildProcess) =>
  Effect.async<string, Error>((resume) => {
    let out = ""
    child.stdout!.on("data", (chunk) => {
      out += String(chunk)
      const end = out.indexOf("\n")
      if (end >= 0) resume(Effect.succeed(out.slice(0, end)))
    })
    child.once("exit", (code) => resume(Effect.fail(new Error(`exited (${code}) before printing a line: ${out}`))))
  }).pipe(Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("no line within 60 s") }))

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-packaging-"))
  const prebuilds = path.join(scratch, "prebuilds")
  fs.mkdirSync(prebuilds)
  installEnv = await localPrebuild(prebuilds)
  // @kassa/http packs the server bundle: brought up to date under the lock the server tests share.
  SpawnedServer.bundle()
  await run("npm", ["pack", "--workspaces", "--pack-destination", scratch], root)
  tarballs = fs.readdirSync(scratch).filter((f) => f.endsWith(".tgz")).map((f) => path.join(scratch, f))
}, minutes(15))

afterAll(async () => {
  if (scratch !== "") await fs.promises.rm(scratch, { recursive: true, force: true })
}, minutes(5))

describe("the packed packages", () => {
  it("hold their ESM build and declarations, no sources, tests or build configs", async () => {
    const listed = (await Promise.all(tarballs.map((t) => run("tar", ["-tzf", t], scratch)))).flatMap((l) => l.trim().split("\n"))
    assert.strictEqual(tarballs.length, 4)
    assert.deepStrictEqual(listed.filter((f) => /\/(src|test|bench)\/|tsup[^/]*\.ts$|tsconfig/.test(f)), [])
    for (const file of ["core/build/esm/index.js", "core/build/esm/index.d.ts", "adapters/build/esm/Kassa.d.ts", "http/build/esm/api/index.js", "http/dist/server.js", "testing/build/esm/index.d.ts"]) {
      assert.include(listed, `package/${file.slice(file.indexOf("/") + 1)}`, file)
    }
  })

  it("install into an empty project that type-checks them under strict nodenext and imports them on Node; the kit loads under vitest", async () => {
    const dir = await installed(path.join(import.meta.dirname, "packaging/consumer"), "consumer")
    await run("npx", ["tsc", "-p", "."], dir)
    assert.deepStrictEqual(JSON.parse(await run("node", ["build/index.js"], dir)), {
      core: "kassa/InvoiceService",
      adapters: "object",
      http: "function",
      api: "function"
    })
    assert.include(await run("npx", ["vitest", "run", "src"], dir, { CI: "true", NO_COLOR: "1" }), "1 passed")
  }, minutes(15))

  describe("examples/embed, built from the tarballs", () => {
    let dir = ""
    beforeAll(async () => {
      dir = await installed(path.join(root, "examples/embed"), "embed")
      await run("npm", ["run", "build"], dir)
    }, minutes(15))

    for (const dialect of Dialects.dialects()) {
      it.scopedLive(`serves a shop on ${dialect}: an order paid, refunds, a declined order, its own signed webhooks`, () =>
        Effect.gen(function*() {
          const env = yield* databaseEnv(dialect)
          const lines = (yield* Effect.promise(() => run("npm", ["run", "drive", "--silent"], dir, env))).trim().split("\n").map((l) => JSON.parse(l))
          assert.deepStrictEqual(lines, [
            { order: 10_000, status: 201, events: ["InvoiceCreated", "PaymentStarted", "PaymentProcessed", "PaymentCaptured", "InvoicePaid"] },
            // the demo terms: 3.5 % of the payment and 100 per refund leave too little to refund it all
            { refund: 10_000, status: 400, code: "insufficentAccountBalance" },
            { refund: 5_000, status: 201, events: ["RefundCreated", "RefundSucceeded"] },
            { order: 90_000, status: 201, events: ["InvoiceCreated", "PaymentStarted", "PaymentFailed"] },
            { forgedNotification: 400 },
            { acquirer: ["authorize 10000 RUB", "capture 10000 RUB", "refund 5000 RUB", "authorize 90000 RUB"] }
          ])
        }), minutes(2))
    }
  })

  it("examples/property-tests, installed from the tarballs, type-checks and passes its vitest (no globalSetup) on memory, SQLite and PostgreSQL", async () => {
    const dir = await installed(path.join(root, "examples/property-tests"), "property-tests")
    await run("npx", ["tsc", "-p", "."], dir)
    const postgres = Dialects.postgresUrl()
    const out = await run("npx", ["vitest", "run"], dir, { KASSA_TEST_DATABASE_URL: postgres ?? "", NO_COLOR: "1" })
    assert.match(out, new RegExp(`Tests\\s+${3 * (postgres === null ? 2 : 3)} passed`), out)
  }, minutes(20))

  describe("examples/serve, built from the tarballs", () => {
    let dir = ""
    beforeAll(async () => {
      dir = await installed(path.join(root, "examples/serve"), "serve")
      await run("npm", ["run", "build"], dir)
    }, minutes(15))

    for (const dialect of Dialects.dialects()) {
      it.scopedLive(`serves the API on ${dialect}: the merchant it onboarded creates an invoice over HTTP`, () =>
        Effect.gen(function*() {
          const server = yield* started(dir, { ...(yield* databaseEnv(dialect)), PORT: "0" })
          const { url, apiKey, shopID } = yield* Schema.decode(Listening)(yield* firstLine(server))
          const dueDate = new Date(Date.now() + 86_400_000).toISOString()
          const response = yield* Effect.promise(() =>
            fetch(`${url}/v2/processing/invoices`, {
              method: "POST",
              headers: { authorization: `Bearer ${apiKey}`, "x-request-id": "1", "content-type": "application/json" },
              body: JSON.stringify({ shopID, dueDate, currency: "RUB", product: "Book", amount: 5_000, metadata: {} })
            })
          )
          assert.strictEqual(response.status, 201)
          const { invoice } = yield* Schema.decodeUnknown(Created)(yield* Effect.promise(() => response.json()))
          assert.deepInclude(invoice, { shopID, amount: 5_000, currency: "RUB", status: "unpaid" })
        }), minutes(2))
    }
  })
})
