/**
 * The dev helpers' server: Kassa from the bundle on a fresh store (a database of its own on
 * PostgreSQL, dropped by `stop`), optionally under `--cpu-prof`, whose summary `stop` prints.
 * `KASSA_BUNDLE=<file>` runs another build of the server (a copy of an earlier
 * `packages/http/dist/server.js` beside it, to compare before and after).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startKassa, stopProcess } from "./server.mjs"

const psql = (command) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-qc", command])

export const startDevKassa = async (dialect, { name = "dev", prof = false, env = {} } = {}) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `kassa-${name}-`))
  let database
  if (dialect === "pg") {
    database = `kassa_${name}_${Date.now()}`
    psql(`CREATE DATABASE ${database}`)
  }
  const server = await startKassa({
    name: `kassa-${dialect}`,
    dataDir: path.join(dir, "data"),
    databaseUrl: database === undefined ? undefined : `postgres://postgres@127.0.0.1:5432/${database}`,
    nodeArgs: prof ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, "prof")}`] : [],
    env,
    ...(process.env.KASSA_BUNDLE ? { script: path.resolve(process.env.KASSA_BUNDLE) } : {})
  })
  const stop = async () => {
    await stopProcess(server.proc, { signal: "SIGINT" })
    if (database !== undefined) psql(`DROP DATABASE ${database}`)
    if (prof) {
      const file = fs.readdirSync(path.join(dir, "prof"))[0]
      console.log(execFileSync("node", [path.join(path.dirname(new URL(import.meta.url).pathname), "profile.mjs"), path.join(dir, "prof", file)]).toString())
    }
  }
  return { server, database, stop }
}
