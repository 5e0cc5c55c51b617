/**
 * Child processes of the bench: the Kassa bundle and the floor server. Every child is recorded
 * and killed when the runner exits (normally, on an error or on a signal); each also carries
 * `watchdog.mjs`, which ends it if the runner disappears without cleaning up.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { serverArgs } from "../../http/scripts/launch.mjs"
import { sleep } from "./load.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
export const repoRoot = path.resolve(here, "../../..")
export const bundlePath = path.join(repoRoot, "packages/http/dist/server.js")
export const floorPath = path.join(here, "floor.mjs")
const watchdogPath = path.join(here, "watchdog.mjs")

/** @type {Set<import("node:child_process").ChildProcess>} */
const children = new Set()

let shuttingDown = false

/** SIGKILLs every child still running (synchronous: usable in an `exit` handler). */
export const killAll = () => {
  for (const child of children) {
    try {
      child.kill("SIGKILL")
    } catch {}
  }
  children.clear()
}

/** From now on no child may start (the runner is stopping); kills those running. */
export const shutdown = () => {
  shuttingDown = true
  killAll()
}

/** A free TCP port on 127.0.0.1. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })

/** Environment variables a child must not inherit from the shell (the bench sets its own). */
const hermetic = ["DATABASE_URL", "KASSA_DATA_DIR", "KASSA_SIGNING_KEY", "KASSA_VAULT_KEY", "KASSA_PUBLIC_URL", "PORT", "HOST", "KASSA_PROVISION_DEMO", "NODE_OPTIONS"]

/**
 * Starts `node [--import watchdog] [...nodeArgs] [script]` with stdout/stderr appended to
 * `logFile`. A start from a snapshot (`--snapshot-blob`) preloads nothing: no watchdog there.
 */
export const spawnNode = ({ name, script, nodeArgs = [], env, logFile, cwd = repoRoot }) => {
  if (shuttingDown) throw new Error(`not starting ${name}: the bench is stopping`)
  const baseEnv = { ...process.env }
  for (const k of hermetic) delete baseEnv[k]
  const fd = fs.openSync(logFile, "a")
  const startedAt = performance.now()
  const watchdog = nodeArgs.includes("--snapshot-blob") ? [] : ["--import", watchdogPath]
  const child = spawn(process.execPath, [...watchdog, ...nodeArgs, ...(script === undefined ? [] : [script])], {
    cwd,
    env: { ...baseEnv, ...env },
    stdio: ["ignore", fd, fd]
  })
  fs.closeSync(fd)
  children.add(child)
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      children.delete(child)
      resolve({ code, signal })
    })
    child.on("error", (e) => {
      children.delete(child)
      resolve({ code: -1, signal: null, error: String(e) })
    })
  })
  let exitInfo
  exited.then((info) => (exitInfo = info))
  return {
    name,
    child,
    pid: child.pid,
    startedAt,
    exited,
    get exitInfo() {
      return exitInfo
    },
    logFile,
    logTail: (lines = 20) => {
      try {
        // Tokens (the demo merchant's API key and operator token) are not for reports.
        return fs.readFileSync(logFile, "utf8").split("\n").slice(-lines).join("\n").replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, "<token>")
      } catch {
        return ""
      }
    }
  }
}

/** Stops a child: `signal`, then SIGKILL after `timeoutMs`. */
export const stopProcess = async (proc, { signal = "SIGTERM", timeoutMs = 10_000 } = {}) => {
  if (proc === undefined || proc.exitInfo !== undefined) return proc?.exitInfo
  try {
    proc.child.kill(signal)
  } catch {}
  const timer = setTimeout(() => {
    try {
      proc.child.kill("SIGKILL")
    } catch {}
  }, timeoutMs)
  const info = await proc.exited
  clearTimeout(timer)
  return info
}

/** One GET on a fresh connection: resolves the status code, or 0 on a network error. */
const probe = (port, pathName) =>
  new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: pathName, agent: false, headers: { "x-request-id": "bench-health" } }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.setTimeout(2_000, () => req.destroy(new Error("timeout")))
    req.on("error", () => resolve(0))
  })

/**
 * Polls `GET /health` every `intervalMs` until it answers 200: resolves the milliseconds from
 * the process's spawn to that answer. Fails when the process exits or `timeoutMs` passes.
 */
export const waitHealthy = async (proc, port, { timeoutMs = 60_000, intervalMs = 5, pathName = "/health" } = {}) => {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (proc.exitInfo !== undefined) {
      throw new Error(`${proc.name} exited before answering (${JSON.stringify(proc.exitInfo)}):\n${proc.logTail()}`)
    }
    const status = await probe(port, pathName)
    if (status === 200) return performance.now() - proc.startedAt
    await sleep(intervalMs)
  }
  throw new Error(`${proc.name} did not answer ${pathName} within ${timeoutMs} ms:\n${proc.logTail()}`)
}

/**
 * Starts the Kassa bundle on a fresh or existing data dir and waits for `/health`, as `npm start`
 * runs it: from its startup snapshot when one fits (`launch.mjs`), with the Node flags of the
 * bundle's first line.
 * Resolves `{ proc, port, baseUrl, startMs, credentials }`.
 */
export const startKassa = async ({ name, dataDir, databaseUrl, nodeArgs = [], env = {}, timeoutMs = 60_000, script = bundlePath }) => {
  fs.mkdirSync(dataDir, { recursive: true })
  const port = await freePort()
  const proc = spawnNode({
    name,
    nodeArgs: serverArgs(script, nodeArgs),
    logFile: path.join(dataDir, "server.log"),
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      KASSA_DATA_DIR: dataDir,
      KASSA_PROVISION_DEMO: "true",
      KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
      ...env
    }
  })
  try {
    const startMs = await waitHealthy(proc, port, { timeoutMs })
    const credentialsFile = path.join(dataDir, "dev-credentials.json")
    const credentials = JSON.parse(fs.readFileSync(credentialsFile, "utf8"))
    return { proc, port, baseUrl: `http://127.0.0.1:${port}`, startMs, credentials }
  } catch (e) {
    await stopProcess(proc, { signal: "SIGKILL" })
    throw e
  }
}

/** Starts the floor server (`floor.mjs`) for one dialect. */
export const startFloor = async ({ name, dialect, databaseUrl, sqliteFile, sqliteSynchronous, logFile, timeoutMs = 30_000 }) => {
  const port = await freePort()
  const proc = spawnNode({
    name,
    script: floorPath,
    logFile,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      FLOOR_DB: dialect,
      ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
      ...(sqliteFile !== undefined ? { FLOOR_SQLITE_FILE: sqliteFile } : {}),
      ...(sqliteSynchronous !== undefined ? { FLOOR_SQLITE_SYNCHRONOUS: sqliteSynchronous } : {})
    }
  })
  try {
    const startMs = await waitHealthy(proc, port, { timeoutMs })
    return { proc, port, baseUrl: `http://127.0.0.1:${port}`, startMs }
  } catch (e) {
    await stopProcess(proc, { signal: "SIGKILL" })
    throw e
  }
}

/** `{ rssMB, hwmMB }` of a live process from /proc/<pid>/status (undefined when unreadable). */
export const readMemory = (pid) => {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (field) => {
      const m = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
      return m ? Number(m[1]) / 1024 : undefined
    }
    return { rssMB: kb("VmRSS"), hwmMB: kb("VmHWM") }
  } catch {
    return undefined
  }
}

/** Samples a process's memory every `intervalMs`; `stop()` returns the peaks seen. */
export const memorySampler = (pid, intervalMs = 100) => {
  let maxRss = 0
  let hwm = 0
  let samples = 0
  const take = () => {
    const m = readMemory(pid)
    if (m === undefined) return
    samples++
    if (m.rssMB !== undefined) maxRss = Math.max(maxRss, m.rssMB)
    if (m.hwmMB !== undefined) hwm = Math.max(hwm, m.hwmMB)
  }
  take()
  const timer = setInterval(take, intervalMs)
  return {
    stop: () => {
      clearInterval(timer)
      take()
      return { maxRssMB: maxRss, hwmMB: hwm, samples }
    }
  }
}

let clockTicks
const ticksPerSecond = () => {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      clockTicks = 100
    }
  }
  return clockTicks
}

/**
 * CPU time (ms) a process has used so far, from /proc/<pid>/stat: `{ user, sys }` (with `thread`,
 * of that thread only: the main thread's id is the process's).
 */
const processCpuMs = (pid, thread) => {
  try {
    const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const tick = 1000 / ticksPerSecond()
    return { user: Number(fields[11]) * tick, sys: Number(fields[12]) * tick }
  } catch {
    return undefined
  }
}

/** The machine's busy and total CPU time (ms, all cores) from /proc/stat. */
const machineCpuMs = () => {
  try {
    const [, ...v] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/)
    const n = v.map(Number)
    const total = n.slice(0, 8).reduce((a, b) => a + b, 0)
    const idle = n[3] + n[4]
    return { busy: ((total - idle) / ticksPerSecond()) * 1000, total: (total / ticksPerSecond()) * 1000 }
  } catch {
    return undefined
  }
}

/**
 * Starts a CPU accounting window: `stop(ops)` answers the server's and this process's CPU use
 * (in cores), the server's CPU milliseconds per operation, and how busy the whole machine was.
 */
export const cpuWindow = (pid) => {
  const t0 = performance.now()
  const server0 = processCpuMs(pid)
  const main0 = processCpuMs(pid, pid)
  const self0 = process.cpuUsage()
  const machine0 = machineCpuMs()
  return {
    stop: (ops) => {
      const wallMs = performance.now() - t0
      const server1 = processCpuMs(pid)
      const main1 = processCpuMs(pid, pid)
      const self = process.cpuUsage(self0)
      const machine1 = machineCpuMs()
      const serverUser = server0 !== undefined && server1 !== undefined ? server1.user - server0.user : undefined
      const serverSys = server0 !== undefined && server1 !== undefined ? server1.sys - server0.sys : undefined
      const serverMs = serverUser !== undefined ? serverUser + serverSys : undefined
      const mainMs = main0 !== undefined && main1 !== undefined ? main1.user + main1.sys - main0.user - main0.sys : undefined
      const runnerMs = (self.user + self.system) / 1000
      const machineBusy = machine0 && machine1 ? (machine1.busy - machine0.busy) / (machine1.total - machine0.total) : undefined
      return {
        wallMs,
        serverCores: serverMs !== undefined ? serverMs / wallMs : undefined,
        serverMsPerOp: serverMs !== undefined && ops > 0 ? serverMs / ops : undefined,
        // the part of it on the event loop's thread (the rest: libuv's pool, V8's helpers)
        serverMainMsPerOp: mainMs !== undefined && ops > 0 ? mainMs / ops : undefined,
        // the kernel's part of it (system calls: sockets, fsync, …)
        serverSysShare: serverMs ? serverSys / serverMs : undefined,
        runnerCores: runnerMs / wallMs,
        machineBusy,
        // Everything else on the machine (the database server's processes included), in cores.
        otherCores: machineBusy !== undefined && serverMs !== undefined ? machineBusy * os.cpus().length - serverMs / wallMs - runnerMs / wallMs : undefined
      }
    }
  }
}
