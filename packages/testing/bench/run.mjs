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
import { profileMarkdown, summarizeProfile } from "./profile.mjs"
import { createInvoiceScenario, flowScenario, readScenario, webhookScenario } from "./scenarios.mjs"
import { bundlePath, killAll, readMemory, repoRoot, shutdown, startFloor, startKassa, stopProcess } from "./server.mjs"
import { coldStartScenario, emptyNodeStart } from "./coldStart.mjs"
import { idleScenario } from "./idle.mjs"
import { statementsScenario } from "./statements.mjs"
import { dialectName, limits, missCount, targetRows, targetsMarkdown, targetsNote } from "./targets.mjs"
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
        r.webhooks = await kstep(`${dialect}: webhook delivery`, () => webhookScenario(server, { ...cfg.webhooks, invoiceRate }))
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

  const report = renderReport({ machineInfo, loadBefore, loadAfter })
  fs.mkdirSync(resultsDir, { recursive: true })
  const day = startedAt.toISOString().slice(0, 10)
  let file = path.join(resultsDir, `${day}${QUICK ? "-quick" : ""}.md`)
  if (fs.existsSync(file)) file = path.join(resultsDir, `${day}${QUICK ? "-quick" : ""}-${stamp.slice(8)}.md`)
  fs.writeFileSync(file, report.markdown)
  console.log(`\n${report.markdown}`)
  console.log(`written to ${path.relative(repoRoot, file)}`)

  if (env.BENCH_KEEP === "1" || errors.length > 0) console.log(`data dirs and logs kept in ${path.relative(repoRoot, tmpRoot)}`)
  else fs.rmSync(tmpRoot, { recursive: true, force: true })
  return errors.length > 0 ? 1 : env.BENCH_STRICT === "1" && report.misses > 0 ? 1 : 0
}

// ---------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------

const int = (n) => (n === undefined || !Number.isFinite(n) ? "—" : Math.round(n).toLocaleString("en-US"))
const ms = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(1)} ms`)

const renderReport = ({ machineInfo, loadBefore, loadAfter }) => {
  const lines = []
  const rows = targetRows(results, { skipped })
  const misses = missCount(rows)
  const skippedNotes = ["pg", "sqlite"].filter((d) => skipped[d] !== undefined).map((d) => `${dialectName[d]} not run: ${skipped[d]}.`)

  lines.push(`# Kassa benchmark, ${startedAt.toISOString().slice(0, 19).replace("T", " ")} UTC${QUICK ? " — QUICK smoke run (BENCH_QUICK=1): short scenarios, figures are indicative only" : ""}`)
  lines.push("")
  lines.push(`- machine: ${machineInfo.cpu}, ${machineInfo.memory} RAM, ${machineInfo.os}`)
  lines.push(`- Node ${machineInfo.node}; PostgreSQL ${machineInfo.pg}; SQLite ${machineInfo.sqlite} (better-sqlite3: journal_mode=WAL, synchronous=FULL as Kassa runs it); commit ${machineInfo.commit}`)
  lines.push(`- load average (1/5/15 min): before ${loadBefore}, after ${loadAfter}; the load generator runs on the same machine (one Node process)`)
  lines.push(
    `- durations: createInvoice ${cfg.createInvoice.durationMs / 1000} s after ${cfg.createInvoice.warmupMs / 1000} s warm-up; flows ${cfg.flows.durationMs / 1000} s per level; reads ${cfg.reads.durationMs / 1000} s; webhooks ${cfg.webhooks.durationMs / 1000} s of load (${cfg.webhooks.hooks} webhooks); cold start ×${cfg.coldStarts}`
  )
  lines.push("")
  lines.push("## Targets")
  lines.push("")
  lines.push(targetsMarkdown(rows))
  lines.push("")
  if (skippedNotes.length > 0) lines.push(skippedNotes.join(" "), "")
  lines.push(targetsNote)
  lines.push("")

  lines.push("## All measurements")
  lines.push("")
  lines.push("| scenario | server | concurrency | ok | failed | rate | p50 | p90 | p99 | max | server CPU: cores, ms/op (kernel share) | load generator, cores | others (DB incl.), cores | load1 at start |")
  lines.push("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  const cores = (n) => (n === undefined || !Number.isFinite(n) ? "—" : n.toFixed(2))
  const detail = (scenario, server, x, unit = "req/s", extra = "") => {
    if (!x) return
    const l = x.latency
    const c = x.cpu
    lines.push(
      `| ${scenario} | ${server} | ${x.concurrency} | ${int(x.ok)} | ${int(x.failed)} | ${int(x.rate)} ${unit}${extra} | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ${c ? `${cores(c.serverCores)}, ${c.serverMsPerOp?.toFixed(2) ?? "—"}${c.serverSysShare !== undefined ? ` (${Math.round(c.serverSysShare * 100)}% sys)` : ""}` : "—"} | ${cores(c?.runnerCores)} | ${cores(c?.otherCores)} | ${x.load1?.toFixed(2) ?? "—"} |`
    )
  }
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    const D = dialectName[d]
    detail("1 createInvoice", `floor, ${D}`, r.floor)
    detail("1 createInvoice", `floor, ${D}, synchronous=NORMAL (informational)`, r.floorNormal)
    detail("1 createInvoice", `Kassa, ${D}`, r.createInvoice)
    for (const f of r.flows ?? []) detail("2 full flow", `Kassa, ${D}`, f, "flows/s", ` (${f.pollsPerFlow.toFixed(1)} polls/flow)`)
    detail("2 withdrawal flow", `Kassa, ${D}`, r.withdrawals, "flows/s", r.withdrawals ? ` (${r.withdrawals.pollsPerFlow.toFixed(1)} polls/flow)` : "")
    detail("3 getInvoiceByID", `floor, ${D} (GET by primary key)`, r.floorRead)
    detail("3 getInvoiceByID", `Kassa, ${D}`, r.getInvoice)
    detail("3 getInvoiceEvents", `Kassa, ${D}`, r.getEvents)
    const w = r.webhooks
    if (w?.available) {
      for (const [phase, x] of [["paced", w.paced], ["full load", w.full]]) {
        if (x === undefined) continue
        const l = x.latency
        const c = x.cpu
        lines.push(
          `| 4 webhooks, ${phase} (event → delivery) | Kassa, ${D} | ${w.hooks} hooks | ${int(x.received)} of ${int(x.expected)} | ${int(Math.max(0, x.expected - x.unique))} | ${int(x.rate)} notif/s (invoices ${int(x.invoiceRate)}/s) | ${ms(l.p50)} | ${ms(l.p90)} | ${ms(l.p99)} | ${ms(l.max)} | ${c ? `${cores(c.serverCores)}, —` : "—"} | ${cores(c?.runnerCores)} | ${cores(c?.otherCores)} | ${x.load1?.toFixed(2) ?? "—"} |`
        )
      }
    }
  }
  lines.push("")
  lines.push(
    `Rates count successful operations over the measured window (warm-up excluded); latencies are per operation (a full flow: createInvoice → createPaymentResource → createPayment → getPaymentByID every 20 ms until \`captured\`; a withdrawal flow: the operator's deposit, getDeposit every 20 ms until Succeeded, createQuote, createWithdrawal, getWithdrawal every 20 ms until Succeeded, one wallet per concurrent flow). Percentiles are nearest-rank over every sample. CPU columns cover the measured window: the server process (cores busy, CPU ms per successful operation, and the share spent in the kernel), the load generator (this process), and everything else on the machine (PostgreSQL's backends, other engineers' jobs) from /proc/stat; the machine has ${os.cpus().length} cores in all.`
  )
  lines.push("")

  lines.push("## Start and memory")
  lines.push("")
  lines.push("| store | first start (fresh store: migrations, demo merchant) | cold starts (existing store) | node -e 0 | scenario 1 peak RSS: VmHWM / max sampled VmRSS | whole run VmHWM | floor VmHWM |")
  lines.push("|---|---:|---|---|---:|---:|---:|")
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    if (skipped[d] !== undefined) continue
    const m = r.createInvoice?.memory
    lines.push(
      `| ${dialectName[d]} | ${ms(r.firstStartMs)} | ${r.coldStart ? r.coldStart.times.map((t) => ms(t)).join(", ") : "—"} | ${r.nodeStart ? r.nodeStart.times.map((t) => ms(t)).join(", ") : "—"} | ${m ? `${int(m.hwmMB)} MB / ${int(m.maxRssMB)} MB` : "—"} | ${r.lifetimeMemory ? `${int(r.lifetimeMemory.hwmMB)} MB` : "—"} | ${r.floor?.memory ? `${int(r.floor.memory.hwmMB)} MB` : "—"} |`
    )
  }
  lines.push("")

  const pgPer = [["floor", results.pg.floor?.pgPerRequest], ["Kassa", results.pg.createInvoice?.pgPerRequest]].filter(([, x]) => x !== undefined)
  if (pgPer.length > 0) {
    lines.push("## PostgreSQL work per createInvoice (pg_stat_database deltas ÷ requests answered 201, warm-up included)")
    lines.push("")
    lines.push("| server | commits | rows inserted | rows updated | rows deleted | rows fetched | buffer accesses |")
    lines.push("|---|---:|---:|---:|---:|---:|---:|")
    const f2 = (n) => (n ?? 0).toFixed(2)
    for (const [name, x] of pgPer) lines.push(`| ${name} | ${f2(x.commits)} | ${f2(x.inserted)} | ${f2(x.updated)} | ${f2(x.deleted)} | ${f2(x.fetched)} | ${f2(x.blocks)} |`)
    lines.push("")
  }

  for (const d of ["pg", "sqlite"]) {
    const st = results[d].statements
    if (st === undefined) continue
    lines.push(`## SQL statements per operation (${dialectName[d]}; ${st.flows} sequential payment flows after a warm-up, counted by Kassa with KASSA_COUNT_STATEMENTS=true)`)
    lines.push("")
    lines.push("Each flow: createInvoice, createPaymentResource, createPayment (instant or hold, alternately; a hold is captured with capturePayment), polls until captured, a partial refund polled until succeeded, getInvoiceByID, getInvoiceEvents. Statements of the background work a request starts (a payment's authorisation and capture, a refund's processing) count as the request's; `BEGIN` and `COMMIT` are not counted.")
    lines.push("")
    lines.push("| operation or work | requests | statements | per request | per flow |")
    lines.push("|---|---:|---:|---:|---:|")
    for (const row of st.rows) {
      lines.push(`| ${row.work} | ${row.requests === undefined ? "—" : int(row.requests)} | ${int(row.statements)} | ${row.perRequest === undefined ? "—" : row.perRequest.toFixed(1)} | ${row.perFlow === undefined ? "—" : row.perFlow.toFixed(1)} |`)
    }
    lines.push("")
    lines.push("`webhooks` is the dispatcher's fan-out of the outbox (no webhook is registered here), `timers` the scheduler's passes, `timer:<kind>` work a durable timer resumed, `signals` the `pg_notify` that wakes other processes' dispatchers.")
    lines.push("")
  }

  const idle = ["pg", "sqlite"].map((d) => [d, results[d].idle]).filter(([, x]) => x !== undefined)
  if (idle.length > 0) {
    lines.push("## SQL statements while idle (target: none; a counting server left alone after a settling pause; \`metrics\` is the probe's own reads, not counted)")
    lines.push("")
    lines.push("| store | seconds | statements | by work | commits (pg_stat_database) | target |")
    lines.push("|---|---:|---:|---|---:|---|")
    for (const [d, x] of idle) {
      const works = Object.entries(x.byWork).map(([w, n]) => `${w} ${n}`).join(", ") || "—"
      lines.push(`| ${d} | ${x.seconds} | ${x.statements} | ${works} | ${x.commits === undefined ? "—" : x.commits} | ${x.statements === 0 ? "pass" : "miss"} |`)
    }
    lines.push("")
  }

  const webhookNotes = ["pg", "sqlite"].map((d) => [d, results[d].webhooks]).filter(([, w]) => w?.available)
  if (webhookNotes.length > 0) {
    lines.push("## Webhooks")
    lines.push("")
    const phase = (x) =>
      `${int(x.expected)} notifications expected, ${int(x.received)} received (${int(x.unique)} distinct) at ${int(x.rate)}/s; event → delivery p50 ${ms(x.latency.p50)}, p99 ${ms(x.latency.p99)}, max ${ms(x.latency.max)}; without Content-Signature: ${x.unsigned}; unparsable: ${x.badBodies}`
    for (const [d, w] of webhookNotes) {
      const p = w.paced
      const f = w.full
      lines.push(
        `- ${dialectName[d]}, ${w.hooks} webhooks${w.note ? ` (${w.note})` : ""}: ${p ? `paced at ${int(p.offered)} invoices/s (${limits.webhookShare} × this run's createInvoice rate; they went in at ${int(p.invoiceRate)}/s, ${int(p.failed)} failed): ${phase(p)}. ` : ""}` +
          `Then as fast as the server takes invoices: ${int(f.invoices)} at ${int(f.invoiceRate)}/s, ${phase(f)}; the last one ${(f.spanMs / 1000).toFixed(1)} s after the load began (drain wait ${(f.drainedMs / 1000).toFixed(1)} s); by type ${JSON.stringify(f.byType)}.`
      )
    }
    lines.push("")
    lines.push("A phase's rate is notifications received ÷ time from its start to its last delivery. The paced phase is the target: its invoices go in at a fixed pace, open loop, and every notification must arrive within the p99. At the full load that follows a queue builds up and the p99 is mostly its wait (informational: the delivered rate is the dispatcher's capacity next to the load).")
    lines.push("")
  }

  const search = results.pg.search
  if (search !== undefined || fs.existsSync(path.join(path.dirname(new URL(import.meta.url).pathname), "search.mjs"))) {
    lines.push("## Search")
    lines.push("")
    if (search === undefined) lines.push("Not measured (failed or PostgreSQL not run; see errors).")
    else if (!search.available) lines.push(`Not available: ${search.reason}.`)
    else {
      lines.push(`benchSearch on PostgreSQL, rows ${int(cfg.searchRows)}, ${(search.elapsedMs / 1000).toFixed(1)} s:`)
      lines.push("")
      lines.push(renderForeign(search.result))
    }
    lines.push("")
  }

  const profile = results.pg.profile
  if (profile !== undefined) {
    lines.push("## Where the time goes: createInvoice on PostgreSQL (`node --cpu-prof`)")
    lines.push("")
    lines.push(`Under ${profile.load.concurrency} connections for ${(cfg.profileMs / 1000).toFixed(0)} s: ${int(profile.load.rate)} req/s (p99 ${ms(profile.load.latency.p99)}) with the profiler on. Raw profile: \`${profile.file}\`.`)
    lines.push("")
    lines.push(profileMarkdown(profile.summary))
    lines.push("")
  }

  if (errors.length > 0) {
    lines.push("## Errors")
    lines.push("")
    for (const e of errors) {
      lines.push(`- ${e.label}:`)
      lines.push("")
      lines.push("```")
      lines.push(e.message.slice(0, 4_000))
      lines.push("```")
    }
    lines.push("")
  }
  const failures = []
  for (const d of ["pg", "sqlite"]) {
    const r = results[d]
    for (const [name, x] of [["floor createInvoice", r.floor], ["floor read", r.floorRead], ["createInvoice", r.createInvoice], ...(r.flows ?? []).map((f) => [`flow ×${f.concurrency}`, f]), ["withdrawal flow", r.withdrawals], ["getInvoiceByID", r.getInvoice], ["getInvoiceEvents", r.getEvents]]) {
      if (x?.failed > 0) failures.push(`- ${dialectName[d]} ${name}: ${x.failed} failed, statuses ${JSON.stringify(x.statuses)}; e.g. ${x.errorSamples.slice(0, 2).join(" | ")}`)
    }
  }
  if (failures.length > 0) {
    lines.push("## Failed requests")
    lines.push("")
    lines.push(...failures)
    lines.push("")
  }
  return { markdown: lines.join("\n"), misses }
}

/** Renders whatever benchSearch returned: markdown text, an array of rows, or an object. */
const renderForeign = (value) => {
  if (typeof value === "string") return value
  const rowsOf = Array.isArray(value) ? value : Array.isArray(value?.rows) ? value.rows : undefined
  if (rowsOf !== undefined && rowsOf.length > 0 && rowsOf.every((r) => r !== null && typeof r === "object")) {
    const keys = [...new Set(rowsOf.flatMap((r) => Object.keys(r)))]
    const cell = (v) => (typeof v === "number" ? (Number.isInteger(v) ? v.toLocaleString("en-US") : v.toFixed(1)) : v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(v))
    const out = [`| ${keys.join(" | ")} |`, `|${keys.map(() => "---").join("|")}|`, ...rowsOf.map((r) => `| ${keys.map((k) => cell(r[k]).replace(/\|/g, "\\|")).join(" | ")} |`)]
    if (typeof value?.markdown === "string") out.push("", value.markdown)
    return out.join("\n")
  }
  if (typeof value?.markdown === "string") return value.markdown
  return "```json\n" + JSON.stringify(value, null, 2) + "\n```"
}

main().then(
  (code) => {
    if (cleaningUp) return // abort() is stopping the run and exits when done
    killAll()
    process.exit(code)
  },
  (e) => abort(`failed: ${e?.stack ?? e}`, 1)
)
