/**
 * `npm run bench`: Kassa's benchmark (run after `npm run bundle`, which the root script does).
 *
 * Starts the server bundle on PostgreSQL and on SQLite (fresh data dir and database each, as
 * child processes), and a minimal `node:http` floor server (floor.mjs) doing the same durable
 * write per request, drives them over HTTP from this process (load.mjs) and prints a table with
 * each figure next to its target; the same table goes to `bench/results/<date>.md`.
 *
 * Scenarios: 1. createInvoice, 50 connections (Kassa and the floor, both dialects), peak RSS, and
 * the floor's read by primary key; 2. the full payment flow at 8/16/32 concurrent flows, and the
 * withdrawal flow (withdrawals.mjs); 3. getInvoiceByID and getInvoiceEvents under load; 4. webhook
 * delivery to a local receiver, paced at 80 % of scenario 1's rate; 5. cold start next to
 * `node -e 0` (coldStart.mjs), statements while idle and per operation; then the search benchmark
 * (packages/testing/bench/search.mjs, when present) and, with BENCH_PROFILE=1, a CPU profile of
 * the server under createInvoice. The targets (targets.mjs) are ratios to the floor of the same run.
 *
 * Environment: BENCH_QUICK=1 (short smoke run), BENCH_DIALECTS=pg,sqlite, BENCH_PG_URL
 * (admin connection, default postgres://postgres@127.0.0.1:5432/postgres), BENCH_SEARCH_ROWS,
 * BENCH_WEBHOOKS (webhooks registered, default 2), BENCH_PROFILE=1, BENCH_KEEP=1 (keep the
 * data dirs), BENCH_STRICT=1 (exit 1 when a target is missed), BENCH_TIMEOUT_S (hard bound).
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { execFileSync } from "node:child_process"
import { sleep } from "./load.mjs"
import { summarizeProfile } from "./profile.mjs"
import { createInvoiceScenario, flowScenario, readScenario, webhookScenario } from "./scenarios.mjs"
import { bundlePath, killAll, readMemory, repoRoot, shutdown, startFloor, startKassa, stopProcess } from "./server.mjs"
import { coldStartScenario, emptyNodeStart } from "./coldStart.mjs"
import { idleScenario } from "./idle.mjs"
import { statementsScenario } from "./statements.mjs"
import { renderReport } from "./report.mjs"
import { limits } from "./targets.mjs"
import { withdrawalScenario } from "./withdrawals.mjs"

const require = createRequire(import.meta.url)
const env = process.env
const QUICK = env.BENCH_QUICK === "1"
const cfg = {
  createInvoice: { connections: 50, durationMs: QUICK ? 3_000 : 20_000, warmupMs: QUICK ? 500 : 3_000 },
  flows: { levels: [8, 16, 32], durationMs: QUICK ? 2_000 : 10_000, warmupMs: QUICK ? 300 : 1_500, pollMs: 20, maxFlowMs: 15_000 },
  reads: { connections: 50, durationMs: QUICK ? 2_000 : 10_000, warmupMs: QUICK ? 300 : 1_000 },
  withdrawals: { concurrency: 8, durationMs: QUICK ? 2_000 : 10_000, warmupMs: QUICK ? 300 : 1_500, pollMs: 20, maxFlowMs: 15_000 },
  webhooks: { connections: 32, durationMs: QUICK ? 2_000 : 15_000, hooks: Math.max(1, Number(env.BENCH_WEBHOOKS ?? 2)), drainMs: QUICK ? 10_000 : 30_000 },
  coldStarts: QUICK ? 3 : 5,
  searchRows: env.BENCH_SEARCH_ROWS !== undefined ? Number(env.BENCH_SEARCH_ROWS) : QUICK ? 10_000 : 1_000_000,
  searchTimeoutMs: Number(env.BENCH_SEARCH_TIMEOUT_S ?? (QUICK ? 300 : 1_800)) * 1000,
  profile: env.BENCH_PROFILE === "1",
  profileMs: QUICK ? 3_000 : 10_000,
  dialects: (env.BENCH_DIALECTS ?? "pg,sqlite").split(",").map((s) => s.trim()).filter((s) => s === "pg" || s === "sqlite"),
  pgAdminUrl: env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  hardTimeoutMs: Number(env.BENCH_TIMEOUT_S ?? (QUICK ? 900 : 3_600)) * 1000
}
const loadAvg = () => os.loadavg().map((n) => n.toFixed(2)).join(" ")

// ---------------------------------------------------------------------------------------------
// Run directory, cleanup
// ---------------------------------------------------------------------------------------------

const startedAt = new Date()
const stamp = startedAt.toISOString().replace(/[-:T]/g, "").slice(0, 14)
const runId = `${stamp}_${process.pid}`
const resultsDir = path.join(repoRoot, "bench", "results")
const tmpRoot = path.join(resultsDir, "tmp", runId)
fs.mkdirSync(tmpRoot, { recursive: true })

const log = (...args) => console.log(`[bench ${((performance.now()) / 1000).toFixed(1).padStart(6)}s]`, ...args)
const errors = []
const createdDatabases = []
let pgAdmin

const dropDatabases = async () => {
  if (createdDatabases.length === 0) return
  const pg = require("pg")
  const client = new pg.Client({ connectionString: cfg.pgAdminUrl, connectionTimeoutMillis: 3_000 })
  try {
    await client.connect()
    while (createdDatabases.length > 0) {
      const name = createdDatabases.pop()
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } catch (e) {
        console.error(`could not drop database ${name}: ${e.message}`)
      }
    }
  } catch (e) {
    console.error(`could not drop databases ${createdDatabases.join(", ")}: ${e.message}`)
  } finally {
    await client.end().catch(() => {})
  }
}

let cleaningUp = false
const abort = async (reason, code) => {
  if (cleaningUp) return
  cleaningUp = true
  console.error(`\nbench: ${reason}; stopping child processes and dropping the bench databases`)
  shutdown()
  // DROP DATABASE waits for a checkpoint, which can take a while on a busy disk.
  await Promise.race([dropDatabases(), sleep(60_000)])
  process.exit(code)
}
process.on("exit", killAll)
process.on("SIGINT", () => abort("interrupted", 130))
process.on("SIGTERM", () => abort("terminated", 143))
process.on("uncaughtException", (e) => abort(`uncaught ${e?.stack ?? e}`, 1))
process.on("unhandledRejection", (e) => abort(`unhandled rejection ${e?.stack ?? e}`, 1))
setTimeout(() => abort(`hard time bound of ${cfg.hardTimeoutMs / 1000} s reached`, 1), cfg.hardTimeoutMs).unref()

/** Cumulative counters of one database (pg_stat_database). */
const pgDatabaseStats = async (database) => {
  const r = await pgAdmin.query(
    `SELECT xact_commit::float8 AS commits, tup_inserted::float8 AS inserted, tup_updated::float8 AS updated, tup_deleted::float8 AS deleted,
       tup_fetched::float8 AS fetched, blks_hit::float8 + blks_read::float8 AS blocks
     FROM pg_stat_database WHERE datname = $1`,
    [database]
  )
  return r.rows[0]
}

/** Statements while idle: the same store, a server that counts them, left alone (idle.mjs). */
const idleStep = async ({ dialect, dataDir, databaseUrl }) => {
  const server = await startKassa({ name: `kassa-${dialect}-idle`, dataDir, databaseUrl, env: { KASSA_COUNT_STATEMENTS: "true" } })
  const database = databaseUrl === undefined ? undefined : new URL(databaseUrl).pathname.slice(1)
  try {
    return await idleScenario(server, {
      seconds: QUICK ? 3 : 10,
      commits: database === undefined ? undefined : async () => (await pgDatabaseStats(database)).commits
    })
  } finally {
    await stopProcess(server.proc)
  }
}

/** Statements per operation: the same store, a server that counts them (statements.mjs). */
const statementsStep = async ({ dialect, dataDir, databaseUrl }) => {
  const server = await startKassa({ name: `kassa-${dialect}-statements`, dataDir, databaseUrl, env: { KASSA_COUNT_STATEMENTS: "true" } })
  try {
    return await statementsScenario(server, { flows: QUICK ? 6 : 20 })
  } finally {
    await stopProcess(server.proc)
  }
}

/** The search benchmark of packages/testing/bench/search.mjs, when the file exists. */
const searchScenario = async (server, { dialect, databaseUrl }) => {
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), "search.mjs")
  if (!fs.existsSync(file)) return { available: false, reason: "packages/testing/bench/search.mjs does not exist" }
  const mod = await import(pathToFileURL(file).href)
  if (typeof mod.benchSearch !== "function") return { available: false, reason: "search.mjs exports no benchSearch function" }
  const t0 = performance.now()
  let timer
  const result = await Promise.race([
    mod.benchSearch({
      dialect,
      databaseUrl,
      baseUrl: server.baseUrl,
      apiKey: server.credentials.apiKey,
      shopID: server.credentials.shopID,
      partyID: server.credentials.partyID,
      rows: cfg.searchRows,
      quick: QUICK,
      log: (...args) => log("[search]", ...args)
    }),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`benchSearch did not finish within ${cfg.searchTimeoutMs / 1000} s`)), cfg.searchTimeoutMs)
    })
  ]).finally(() => clearTimeout(timer))
  return { available: true, result, elapsedMs: performance.now() - t0 }
}

/** With BENCH_PROFILE=1: the server under createInvoice with --cpu-prof, summarised. */
const profileScenario = async ({ dialect, dataDir, databaseUrl }) => {
  const profileDir = path.join(tmpRoot, `profile-${dialect}`)
  fs.mkdirSync(profileDir, { recursive: true })
  const server = await startKassa({ name: `kassa-${dialect}-profile`, dataDir, databaseUrl, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] })
  let load
  try {
    load = await createInvoiceScenario(server, { ...cfg.createInvoice, durationMs: cfg.profileMs, warmupMs: 1_000 })
  } finally {
    await stopProcess(server.proc, { signal: "SIGTERM", timeoutMs: 20_000 })
  }
  const file = fs.readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"))
  if (file === undefined) throw new Error(`no .cpuprofile written in ${profileDir}`)
  const kept = path.join(resultsDir, "tmp", `${runId}-${dialect}-createInvoice.cpuprofile`)
  fs.copyFileSync(path.join(profileDir, file), kept)
  return { load, summary: summarizeProfile(path.join(profileDir, file), 25), file: path.relative(repoRoot, kept) }
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

const results = { pg: {}, sqlite: {} }
const skipped = {}

const step = async (label, fn) => {
  log(`${label} …`)
  const t0 = performance.now()
  try {
    const r = await fn()
    log(`${label}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    return r
  } catch (e) {
    const message = String(e?.stack ?? e)
    errors.push({ label, message })
    log(`${label}: FAILED\n${message}`)
    return undefined
  }
}

const machine = async () => {
  const cpus = os.cpus()
  let pgVersion = "not reachable"
  if (pgAdmin !== undefined) {
    pgVersion = (await pgAdmin.query("SHOW server_version")).rows[0].server_version
    const settings = await pgAdmin.query(
      "SELECT name, setting, unit FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'wal_sync_method', 'commit_delay', 'shared_buffers', 'max_connections') ORDER BY name"
    )
    pgVersion += ` (${settings.rows.map((r) => `${r.name}=${r.name === "shared_buffers" ? `${(Number(r.setting) * 8) / 1024} MB` : r.setting}`).join(", ")})`
  }
  let sqliteVersion = "?"
  try {
    const Database = require("better-sqlite3")
    const db = new Database(":memory:")
    sqliteVersion = db.prepare("select sqlite_version() as v").get().v
    db.close()
  } catch {}
  let commit = "?"
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim()
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: repoRoot, encoding: "utf8" }).trim()
    if (dirty !== "") commit += " (+ uncommitted changes)"
  } catch {}
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model ?? "?"}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    pg: pgVersion,
    sqlite: sqliteVersion,
    commit
  }
}

const main = async () => {
  if (!fs.existsSync(bundlePath)) throw new Error(`${bundlePath} is missing: run \`npm run bench\` (it bundles first) or \`npm run bundle\``)
  const loadBefore = loadAvg()
  log(`mode ${QUICK ? "QUICK (smoke run)" : "full"}; load average before: ${loadBefore}; data under ${path.relative(repoRoot, tmpRoot)}`)

  if (cfg.dialects.includes("pg")) {
    const pg = require("pg")
    const client = new pg.Client({ connectionString: cfg.pgAdminUrl, connectionTimeoutMillis: 3_000 })
    try {
      await client.connect()
      pgAdmin = client
    } catch (e) {
      await client.end().catch(() => {})
      skipped.pg = `PostgreSQL not reachable at ${cfg.pgAdminUrl.replace(/\/\/[^@]*@/, "//")}: ${e.message}`
      log(skipped.pg)
    }
  }
  for (const d of ["pg", "sqlite"]) if (!cfg.dialects.includes(d)) skipped[d] ??= "not selected (BENCH_DIALECTS)"
  const machineInfo = await machine()

  const pgUrlFor = (db) => {
    const u = new URL(cfg.pgAdminUrl)
    u.pathname = `/${db}`
    return u.toString()
  }
  const createDatabase = async (name) => {
    await pgAdmin.query(`CREATE DATABASE "${name}"`)
    createdDatabases.push(name)
    return pgUrlFor(name)
  }

  for (const dialect of ["pg", "sqlite"]) {
    if (skipped[dialect] !== undefined) continue
    const r = results[dialect]
    const dataDir = path.join(tmpRoot, `kassa-${dialect}`)
    let databaseUrl
    let floorUrl
    let kassaDb
    let floorDb
    if (dialect === "pg") {
      kassaDb = `kassa_bench_${runId}`
      floorDb = `kassa_bench_${runId}_floor`
      databaseUrl = await createDatabase(kassaDb)
      floorUrl = await createDatabase(floorDb)
    }

    // The floor first, then Kassa, on the same dialect.
    if (dialect === "sqlite") fs.mkdirSync(path.join(tmpRoot, "floor-sqlite"), { recursive: true })
    r.floor = await step(`${dialect}: floor, createInvoice`, async () => {
      const floor = await startFloor({
        name: `floor-${dialect}`,
        dialect,
        databaseUrl: floorUrl,
        sqliteFile: path.join(tmpRoot, "floor-sqlite", "floor.db"),
        logFile: path.join(tmpRoot, `floor-${dialect}.log`)
      })
      try {
        const write = await createInvoiceScenario(floor, { ...cfg.createInvoice, collectIds: 20_000, sampleMemory: true, pgStats: floorDb === undefined ? undefined : () => pgDatabaseStats(floorDb) })
        log(`${dialect}: floor, GET by primary key …`)
        const read = await readScenario(floor, { ...cfg.reads, ids: write.ids, pathFor: (id) => `/v2/processing/invoices/${id}` })
        return { write, read }
      } finally {
        await stopProcess(floor.proc)
      }
    })
    r.floorRead = r.floor?.read
    r.floor = r.floor?.write

    if (dialect === "sqlite" && env.BENCH_FLOOR_NORMAL !== "0") {
      // Informational: the same floor with synchronous=NORMAL (not what Kassa runs with).
      r.floorNormal = await step(`${dialect}: floor (synchronous=NORMAL), createInvoice`, async () => {
        fs.mkdirSync(path.join(tmpRoot, "floor-sqlite-normal"), { recursive: true })
        const floor = await startFloor({
          name: "floor-sqlite-normal",
          dialect,
          sqliteFile: path.join(tmpRoot, "floor-sqlite-normal", "floor.db"),
          sqliteSynchronous: "NORMAL",
          logFile: path.join(tmpRoot, "floor-sqlite-normal.log")
        })
        try {
          return await createInvoiceScenario(floor, { ...cfg.createInvoice, sampleMemory: true })
        } finally {
          await stopProcess(floor.proc)
        }
      })
    }

    const server = await step(`${dialect}: start Kassa (fresh store)`, () => startKassa({ name: `kassa-${dialect}`, dataDir, databaseUrl }))
    if (server !== undefined) {
      r.firstStartMs = server.startMs
      // A scenario runs only while this server lives; once it has exited the rest are skipped.
      const kstep = async (label, fn) => {
        if (server.proc.exitInfo !== undefined) {
          errors.push({ label, message: `skipped: kassa-${dialect} had exited (${JSON.stringify(server.proc.exitInfo)})` })
          return undefined
        }
        return step(label, fn)
      }
      try {
        r.createInvoice = await kstep(`${dialect}: createInvoice, ${cfg.createInvoice.connections} connections`, () =>
          createInvoiceScenario(server, { ...cfg.createInvoice, collectIds: 20_000, sampleMemory: true, pgStats: kassaDb === undefined ? undefined : () => pgDatabaseStats(kassaDb) })
        )
        const flowIds = []
        r.flows = []
        for (const concurrency of cfg.flows.levels) {
          const f = await kstep(`${dialect}: full flow, ${concurrency} concurrent flows`, () => flowScenario(server, { ...cfg.flows, concurrency, ids: flowIds }))
          if (f !== undefined) r.flows.push(f)
        }
        r.withdrawals = await kstep(`${dialect}: withdrawal flow, ${cfg.withdrawals.concurrency} concurrent flows`, () => withdrawalScenario(server, cfg.withdrawals))
        const invoiceIds = [...(r.createInvoice?.ids ?? []), ...flowIds]
        if (invoiceIds.length > 0) {
          r.getInvoice = await kstep(`${dialect}: getInvoiceByID`, () =>
            readScenario(server, { ...cfg.reads, ids: invoiceIds, pathFor: (id) => `/v2/processing/invoices/${id}` })
          )
          const eventIds = flowIds.length > 0 ? flowIds : invoiceIds
          r.getEvents = await kstep(`${dialect}: getInvoiceEvents`, () =>
            readScenario(server, { ...cfg.reads, ids: eventIds, pathFor: (id) => `/v2/processing/invoices/${id}/events?limit=10` })
          )
        }
        // paced at a share of the createInvoice rate this run measured (without it, the full load only)
        const invoiceRate = r.createInvoice === undefined ? undefined : limits.webhookShare * r.createInvoice.rate
        const headroomRate = r.createInvoice === undefined ? undefined : limits.webhookHeadroomShare * r.createInvoice.rate
        r.webhooks = await kstep(`${dialect}: webhook delivery`, () => webhookScenario(server, { ...cfg.webhooks, invoiceRate, headroomRate }))
        if (dialect === "pg") r.search = await kstep(`${dialect}: search benchmark`, () => searchScenario(server, { dialect, databaseUrl }))
        r.lifetimeMemory = readMemory(server.proc.pid)
      } finally {
        const early = server.proc.exitInfo
        const exit = await stopProcess(server.proc)
        if (early !== undefined) {
          errors.push({ label: `${dialect}: Kassa exited by itself during the scenarios`, message: `exit ${JSON.stringify(early)} (no signal from the bench); its log ends:\n${server.proc.logTail(15)}` })
        } else if (exit?.code !== 0 && exit?.code !== 130 && exit?.code !== 143) {
          errors.push({ label: `${dialect}: Kassa stop`, message: `exited with ${JSON.stringify(exit)} when stopped\n${server.proc.logTail()}` })
        }
      }
      r.coldStart = await step(`${dialect}: cold start ×${cfg.coldStarts}`, () => coldStartScenario({ dialect, dataDir, databaseUrl, n: cfg.coldStarts }))
      r.nodeStart = await step(`${dialect}: node -e 0 ×${cfg.coldStarts}`, () => emptyNodeStart({ n: cfg.coldStarts }))
      r.idle = await step(`${dialect}: SQL statements while idle`, () => idleStep({ dialect, dataDir, databaseUrl }))
      r.statements = await step(`${dialect}: SQL statements per operation`, () => statementsStep({ dialect, dataDir, databaseUrl }))
      if (cfg.profile && dialect === "pg") r.profile = await step(`${dialect}: CPU profile under createInvoice`, () => profileScenario({ dialect, dataDir, databaseUrl }))
    }
  }

  const loadAfter = loadAvg()
  await Promise.race([dropDatabases(), sleep(120_000)])
  await pgAdmin?.end().catch(() => {})

  const report = renderReport({ results, skipped, errors, cfg, quick: QUICK, startedAt, machineInfo, loadBefore, loadAfter })
  fs.mkdirSync(resultsDir, { recursive: true })
  const day = startedAt.toISOString().slice(0, 10)
  let file = path.join(resultsDir, `${day}${QUICK ? "-quick" : ""}.md`)
  if (fs.existsSync(file)) file = path.join(resultsDir, `${day}${QUICK ? "-quick" : ""}-${stamp.slice(8)}.md`)
  fs.writeFileSync(file, report.markdown)
  // the console gets the report's head and its targets table; the file has every measurement
  console.log(`\n${report.markdown.slice(0, report.markdown.indexOf("\n## All measurements"))}`)
  console.log(`the whole report (every measurement, statements, webhooks, search${errors.length > 0 ? ", the harness's errors" : ""}): ${path.relative(repoRoot, file)}`)

  if (env.BENCH_KEEP === "1" || errors.length > 0) console.log(`data dirs and logs kept in ${path.relative(repoRoot, tmpRoot)}`)
  else fs.rmSync(tmpRoot, { recursive: true, force: true })
  return errors.length > 0 ? 1 : env.BENCH_STRICT === "1" && report.misses > 0 ? 1 : 0
}

main().then(
  (code) => {
    if (cleaningUp) return // abort() is stopping the run and exits when done
    killAll()
    process.exit(code)
  },
  (e) => abort(`failed: ${e?.stack ?? e}`, 1)
)
