// Dev helper: the search benchmark on PostgreSQL against a database kept between runs
// (`kassa_searchdev`, seeded once), so a change to one query can be measured in seconds.
// node packages/testing/bench/searchdev.mjs [rows] [--only=<operation substring>] [--prof] [--drop]
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { benchSearch } from "./search.mjs"
import { startKassa, stopProcess } from "./server.mjs"

const rows = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 1_000_000)
const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7)
const database = "kassa_searchdev"
const psql = (command) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc", command]).toString()
if (process.argv.includes("--drop")) {
  psql(`DROP DATABASE IF EXISTS ${database}`)
  fs.rmSync(path.join(os.tmpdir(), "kassa-searchdev"), { recursive: true, force: true })
  process.exit(0)
}
if (psql(`SELECT 1 FROM pg_database WHERE datname = '${database}'`).trim() !== "1") psql(`CREATE DATABASE ${database}`)
const databaseUrl = `postgres://postgres@127.0.0.1:5432/${database}`
const dataDir = path.join(os.tmpdir(), "kassa-searchdev")
const profDir = path.join(dataDir, "prof")
const prof = process.argv.includes("--prof")
if (prof) fs.rmSync(profDir, { recursive: true, force: true })
const server = await startKassa({
  name: "kassa-pg",
  dataDir,
  databaseUrl,
  nodeArgs: prof ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []
})
try {
  const r = await benchSearch({
    databaseUrl,
    baseUrl: server.baseUrl,
    apiKey: server.credentials.apiKey,
    shopID: server.credentials.shopID,
    partyID: server.credentials.partyID,
    rows,
    ...(only === undefined ? {} : { only }),
    log: (...args) => console.error(...args)
  })
  for (const row of r.rows) console.log(JSON.stringify(row))
  console.log(r.markdown)
} finally {
  await stopProcess(server.proc, { signal: "SIGINT" })
}
if (prof) {
  const file = path.join(profDir, fs.readdirSync(profDir)[0])
  console.log(execFileSync("node", [path.join(path.dirname(new URL(import.meta.url).pathname), "profile.mjs"), file]).toString())
}
