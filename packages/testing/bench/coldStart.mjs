/**
 * Cold start: Kassa restarted `n` times on an existing store, spawn → first 200 from `/health`,
 * and, as its baseline in the same run, `node -e 0` spawned `n` times, spawn → exit. Medians.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { pathToFileURL } from "node:url"
import { startDevKassa } from "./devServer.mjs"
import { createInvoiceScenario, flowScenario, webhookScenario } from "./scenarios.mjs"
import { repoRoot, startKassa, stopProcess } from "./server.mjs"

const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]

/** Kassa's cold start on the store of `dataDir` / `databaseUrl`. */
export const coldStartScenario = async ({ dialect, dataDir, databaseUrl, n }) => {
  const times = []
  for (let i = 0; i < n; i++) {
    const server = await startKassa({ name: `kassa-${dialect}-cold-${i}`, dataDir, databaseUrl })
    times.push(server.startMs)
    await stopProcess(server.proc)
  }
  return { times, median: median(times) }
}

/** An empty Node start: `node -e 0`, spawn → exit. */
export const emptyNodeStart = async ({ n }) => {
  const times = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" })
      child.on("error", reject)
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`node -e 0 exited with ${code}`))))
    })
    times.push(performance.now() - t0)
  }
  return { times, median: median(times) }
}

/** CPU time (ms, user + system) a process has used so far, from /proc (100 ticks a second). */
const cpuMs = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// Dev helper: cold starts of one or two builds on one existing store, alternating, next to
// `node -e 0`: wall time to the first /health and the server's CPU time until then (steadier on
// a loaded machine).
// node packages/testing/bench/coldStart.mjs pg|sqlite <rounds> <a> [b] [--fill=<seconds>]
// (<a>, <b>: bundles packages/http/dist/server-<a>.js and server-<b>.js). With --fill, the
// first server fills the store first as the full run does before its cold starts (createInvoice
// at 50 connections, full flows, webhooks: <seconds> each) and is stopped as the run stops it
// (SIGTERM); each start then also tells the size of SQLite's -wal file before it.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2)
  const fillS = Number(args.find((a) => a.startsWith("--fill="))?.slice("--fill=".length) ?? 0)
  const [dialect = "sqlite", rounds = "5", ...labels] = args.filter((a) => !a.startsWith("--"))
  if (labels.length === 0) throw new Error("usage: coldStart.mjs pg|sqlite <rounds> <a> [b] [--fill=<seconds>]")
  const bundleOf = (label) => path.join(repoRoot, `packages/http/dist/server-${label}.js`)
  process.env.KASSA_BUNDLE = bundleOf(labels[0])
  const dev = await startDevKassa(dialect, { name: "coldstart" })
  const dataDir = path.dirname(dev.server.proc.logFile)
  const times = Object.fromEntries(labels.map((l) => [l, []]))
  const cpu = Object.fromEntries(labels.map((l) => [l, []]))
  const node = []
  const wal = []
  let filled
  try {
    if (fillS > 0) {
      const ms = fillS * 1000
      const invoices = await createInvoiceScenario(dev.server, { connections: 50, durationMs: ms, warmupMs: 0 })
      const flows = await flowScenario(dev.server, { concurrency: 16, durationMs: ms, warmupMs: 0, pollMs: 20, maxFlowMs: 15_000, ids: [] })
      const hooks = await webhookScenario(dev.server, { connections: 32, durationMs: ms, hooks: 2, drainMs: 30_000, pacedMs: 0 })
      filled = { invoices: invoices.ok, flows: flows.ok, invoicesWithWebhooks: hooks.full?.invoices ?? 0 }
    }
    await stopProcess(dev.server.proc, { signal: "SIGTERM", timeoutMs: 20_000 })
    const walBytes = () => {
      const wal = fs.readdirSync(dataDir).find((f) => f.endsWith("-wal"))
      return wal === undefined ? 0 : fs.statSync(path.join(dataDir, wal)).size
    }
    for (let round = 0; round < Number(rounds); round++) {
      node.push(...(await emptyNodeStart({ n: 1 })).times)
      for (const label of round % 2 === 0 ? labels : [...labels].reverse()) {
        if (dialect === "sqlite") wal.push(walBytes())
        const server = await startKassa({ name: `cold-${label}`, dataDir, databaseUrl: dev.databaseUrl, script: bundleOf(label) })
        times[label].push(server.startMs)
        cpu[label].push(cpuMs(server.proc.pid))
        await stopProcess(server.proc)
      }
    }
  } finally {
    await stopProcess(dev.server.proc, { signal: "SIGTERM", timeoutMs: 20_000 })
    if (dev.database !== undefined) execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc", `DROP DATABASE ${dev.database}`])
  }
  const summary = { dialect, filled, node: +median(node).toFixed(1), ...(wal.length > 0 ? { walBytesBefore: wal } : {}) }
  for (const l of labels) {
    summary[l] = { median: +median(times[l]).toFixed(1), ratioToNode: +(median(times[l]) / median(node)).toFixed(2), cpuMs: median(cpu[l]), times: times[l].map((t) => Math.round(t)) }
  }
  if (labels.length === 2) {
    summary.ratio = +(median(times[labels[1]]) / median(times[labels[0]])).toFixed(3)
    summary.cpuRatio = +(median(cpu[labels[1]]) / median(cpu[labels[0]])).toFixed(3)
  }
  console.log(JSON.stringify(summary))
}
