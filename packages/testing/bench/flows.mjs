// Dev helper: the full payment flow on one store for a few seconds at one concurrency.
// node packages/testing/bench/flows.mjs pg|sqlite [seconds] [concurrency] [--prof]
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { flowScenario } from "./scenarios.mjs"
import { startKassa, stopProcess } from "./server.mjs"

const dialect = process.argv[2] ?? "pg"
const seconds = Number(process.argv[3] ?? 8)
const concurrency = Number(process.argv[4] ?? 16)
const prof = process.argv.includes("--prof")
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-flows-"))
let databaseUrl
if (dialect === "pg") {
  const db = `kassa_flows_${Date.now()}`
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `CREATE DATABASE ${db}`])
  databaseUrl = `postgres://postgres@127.0.0.1:5432/${db}`
}
const server = await startKassa({
  name: `kassa-${dialect}`,
  dataDir: path.join(dir, "data"),
  databaseUrl,
  nodeArgs: prof ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, "prof")}`] : []
})
try {
  const r = await flowScenario(server, { concurrency, durationMs: seconds * 1000, warmupMs: 1000, pollMs: 20, maxFlowMs: 15_000 })
  console.log(JSON.stringify({ dialect, concurrency, ok: r.ok, failed: r.failed, rate: r.rate, latency: r.latency, cpu: r.cpu, errors: r.errorSamples }))
} finally {
  await stopProcess(server.proc, { signal: "SIGINT" })
  if (databaseUrl !== undefined) execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", `DROP DATABASE ${databaseUrl.split("/").pop()}`])
}
if (prof) {
  const f = fs.readdirSync(path.join(dir, "prof"))[0]
  console.log(execFileSync("node", ["packages/testing/bench/profile.mjs", path.join(dir, "prof", f)]).toString())
}
