// Dev helper: createInvoice (or with --webhooks the webhook scenario) on one store for a few
// seconds, optionally under --cpu-prof.
// node packages/testing/bench/quick.mjs pg|sqlite [seconds] [--prof] [--webhooks]
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInvoiceScenario, webhookScenario } from "./scenarios.mjs"
import { startKassa, stopProcess } from "./server.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 8)
const prof = process.argv.includes("--prof")
const connections = Number(process.env.CONNS ?? 50)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-quick-"))
let databaseUrl
if (dialect === "pg") {
  const db = `kassa_quick_${Date.now()}`
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-c", `CREATE DATABASE ${db}`])
  databaseUrl = `postgres://postgres@127.0.0.1:5432/${db}`
}
const server = await startKassa({
  name: `kassa-${dialect}`,
  dataDir: path.join(dir, "data"),
  databaseUrl,
  nodeArgs: prof ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, "prof")}`] : []
})
if (process.argv.includes("--webhooks")) {
  const r = await webhookScenario(server, { connections: Number(process.env.CONNS ?? 32), durationMs: seconds * 1000, hooks: Number(process.env.HOOKS ?? 2), drainMs: 20_000 })
  console.log(JSON.stringify(r, (k, v) => (Array.isArray(v) && v.length > 20 ? `[${v.length} items]` : v)))
} else {
  const r = await createInvoiceScenario(server, { connections, durationMs: seconds * 1000, warmupMs: 2000 })
  console.log(JSON.stringify({ dialect, ok: r.ok, failed: r.failed, rate: Math.round(r.rate), latency: r.latency, cpu: r.cpu, errors: r.errorSamples }))
}
await stopProcess(server.proc, { signal: "SIGINT" })
if (databaseUrl !== undefined) execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `DROP DATABASE ${databaseUrl.split("/").pop()}`])
if (prof) {
  const f = fs.readdirSync(path.join(dir, "prof"))[0]
  console.log(execFileSync("node", ["packages/testing/bench/profile.mjs", path.join(dir, "prof", f)]).toString())
}
