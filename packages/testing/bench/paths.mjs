// Dev helper: the server's CPU per request on a few paths (GET /health, GET a shop, createInvoice).
// node packages/testing/bench/paths.mjs pg|sqlite [seconds] [--prof]
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runLoad } from "./load.mjs"
import { clientFor, invoiceBody, requestId } from "./scenarios.mjs"
import { cpuWindow, startKassa, stopProcess } from "./server.mjs"

const dialect = process.argv[2] ?? "sqlite"
const seconds = Number(process.argv[3] ?? 4)
const prof = process.argv.includes("--prof")
const only = process.env.PATHS?.split(",")
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-paths-"))
let databaseUrl
if (dialect === "pg") {
  const db = `kassa_paths_${Date.now()}`
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `CREATE DATABASE ${db}`])
  databaseUrl = `postgres://postgres@127.0.0.1:5432/${db}`
}
const server = await startKassa({
  name: `kassa-${dialect}`,
  dataDir: path.join(dir, "data"),
  databaseUrl,
  nodeArgs: prof ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, "prof")}`] : []
})
const client = clientFor(server, 20)
const shopID = server.credentials.shopID
const cases = {
  health: () => client.request("GET", "/health", undefined, {}),
  shop: () => client.request("GET", `/v2/processing/shops/${shopID}`, undefined, { "x-request-id": requestId() }),
  create: (seq) => client.request("POST", "/v2/processing/invoices", invoiceBody(shopID, seq), { "x-request-id": requestId() })
}
for (const [name, op] of Object.entries(cases)) {
  if (only && !only.includes(name)) continue
  let cpu
  const r = await runLoad({
    concurrency: 20, durationMs: seconds * 1000, warmupMs: 1000,
    onMeasureStart: () => { cpu = cpuWindow(server.proc.pid) },
    op: async (_w, seq) => { const x = await op(seq); return x.status < 300 ? { ok: true, status: x.status, ms: x.ms } : { ok: false, status: x.status, error: x.body?.slice(0, 200) } }
  })
  const c = cpu.stop(r.ok)
  console.log(`${name}: ${Math.round(r.rate)} req/s, p99 ${r.latency.p99.toFixed(1)} ms, server ${c.serverMsPerOp.toFixed(3)} ms/op (${c.serverCores.toFixed(2)} cores), failed ${r.failed}`)
}
client.close()
await stopProcess(server.proc, { signal: "SIGINT" })
if (databaseUrl !== undefined) execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `DROP DATABASE ${databaseUrl.split("/").pop()}`])
if (prof) {
  const f = fs.readdirSync(path.join(dir, "prof"))[0]
  console.log(execFileSync("node", ["packages/testing/bench/profile.mjs", path.join(dir, "prof", f)]).toString())
}
