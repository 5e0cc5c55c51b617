/**
 * The dev helpers' server: Kassa from the bundle on a fresh store (a database of its own on
 * PostgreSQL, dropped by `stop`), or with `keep` on a store kept between runs (`kassa_<name>`
 * and a data dir of the same name, removed by `dropKept`), optionally under `--cpu-prof`, whose
 * summary `stop` prints. `KASSA_BUNDLE=<file>` runs another build of the server (a copy of an
 * earlier `packages/http/dist/server.js` beside it, to compare before and after), and
 * `DEV_NODE_ARGS="<flags>"` adds flags to its `node` (to try V8 or Node options). `logStatements`
 * has PostgreSQL log the database's statements (in its server log), and `DEV_PG_DURATIONS=1`
 * every statement with its duration (`pgLogTimes.mjs` sums them).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startKassa, stopProcess } from "./server.mjs"

const psql = (command) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-Atqc", command]).toString()

const keptDir = (name) => path.join(os.tmpdir(), `kassa-${name}`)

/** Removes a kept store. */
export const dropKept = (name) => {
  psql(`DROP DATABASE IF EXISTS kassa_${name}`)
  fs.rmSync(keptDir(name), { recursive: true, force: true })
}

/**
 * CPU time (ms) the PostgreSQL backends serving `database` have used so far (the server's pool:
 * its connections stay open while it runs), from /proc.
 */
export const databaseCpuMs = (database) => {
  const pids = psql(`SELECT pid FROM pg_stat_activity WHERE datname = '${database}'`).trim().split("\n").filter(Boolean)
  const tick = 1000 / Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim())
  let ms = 0
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      ms += (Number(fields[11]) + Number(fields[12])) * tick
    } catch {
      // the backend ended meanwhile
    }
  }
  return ms
}

export const startDevKassa = async (dialect, { name = "dev", prof = false, env = {}, keep = false, logStatements = false } = {}) => {
  const dir = keep ? keptDir(name) : fs.mkdtempSync(path.join(os.tmpdir(), `kassa-${name}-`))
  const profDir = path.join(dir, "prof")
  fs.rmSync(profDir, { recursive: true, force: true })
  let database
  if (dialect === "pg") {
    database = keep ? `kassa_${name}` : `kassa_${name}_${Date.now()}`
    if (!keep || psql(`SELECT 1 FROM pg_database WHERE datname = '${database}'`).trim() !== "1") {
      psql(`CREATE DATABASE ${database}`)
    }
    // before the server connects: the setting applies to the connections opened after it
    if (logStatements) psql(`ALTER DATABASE ${database} SET log_statement = 'all'`)
    if (process.env.DEV_PG_DURATIONS === "1") psql(`ALTER DATABASE ${database} SET log_min_duration_statement = 0`)
  }
  const databaseUrl = database === undefined ? undefined : `postgres://postgres@127.0.0.1:5432/${database}`
  const server = await startKassa({
    name: `kassa-${dialect}`,
    dataDir: path.join(dir, "data"),
    databaseUrl,
    nodeArgs: [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []), ...(process.env.DEV_NODE_ARGS?.split(" ").filter(Boolean) ?? [])],
    env,
    ...(process.env.KASSA_BUNDLE ? { script: path.resolve(process.env.KASSA_BUNDLE) } : {})
  })
  const stop = async () => {
    await stopProcess(server.proc, { signal: "SIGINT" })
    if (database !== undefined && !keep) psql(`DROP DATABASE ${database}`)
    if (prof) {
      const file = fs.readdirSync(profDir)[0]
      console.log(execFileSync("node", [path.join(path.dirname(new URL(import.meta.url).pathname), "profile.mjs"), path.join(profDir, file)]).toString())
    }
  }
  return { server, database, databaseUrl, stop }
}
