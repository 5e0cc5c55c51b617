/**
 * The server binary as `npm start` runs it (the bundle, with its first line's Node flags), in a
 * child process on a test database: for behaviour only a whole process shows (signals, exit).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")
const bundlePath = path.join(repoRoot, "packages/http/dist/server.js")

/** The newest modification time of the sources the bundle is made of. */
const newestSource = (): number => {
  let newest = fs.statSync(path.join(repoRoot, "package-lock.json")).mtimeMs
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else newest = Math.max(newest, fs.statSync(full).mtimeMs)
    }
  }
  for (const pkg of ["core", "adapters", "http"]) walk(path.join(repoRoot, "packages", pkg, "src"))
  return newest
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

let bundled = false
/**
 * Builds the bundle (`npm run bundle`) when a source is newer than it, once per test process.
 * Test files run in parallel processes: one builds at a time (a lock directory), the others then
 * find it fresh.
 *
 * @since 0.1.0
 */
export const bundle = (): void => {
  if (bundled) return
  const lock = path.join(path.dirname(bundlePath), ".bundling")
  fs.mkdirSync(path.dirname(lock), { recursive: true })
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      // a lock left by a process that died while building
      if (Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 120_000) fs.rmSync(lock, { recursive: true, force: true })
      pause(100)
    }
  }
  try {
    const built = fs.statSync(bundlePath, { throwIfNoEntry: false })?.mtimeMs ?? 0
    if (built < newestSource()) execFileSync("npm", ["run", "bundle", "--silent"], { cwd: repoRoot, stdio: "ignore" })
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
  bundled = true
}

/** The Node flags of the bundle's first line (`#!/usr/bin/env -S node <flags>`). */
const shebangFlags = (): Array<string> => {
  const line = fs.readFileSync(bundlePath, "utf8").split("\n", 1)[0]!
  const match = /^#!\/usr\/bin\/env -S node(.*)$/.exec(line)
  return match === null ? [] : match[1]!.trim().split(/ +/).filter(Boolean)
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** @since 0.1.0 @category models */
export interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/**
 * One request; rejects on a network error or after `timeoutMs` without an answer.
 *
 * @since 0.1.0
 */
export const request = (
  port: number,
  method: string,
  pathName: string,
  options: { readonly body?: unknown; readonly headers?: Record<string, string>; readonly agent?: http.Agent | false; readonly timeoutMs?: number } = {}
) =>
  new Promise<Answer>((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = http.request({
      host: "127.0.0.1",
      port,
      method,
      path: pathName,
      agent: options.agent ?? false,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...options.headers }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.setTimeout(options.timeoutMs ?? 5_000, () => req.destroy(new Error(`no answer to ${method} ${pathName} within ${options.timeoutMs ?? 5_000} ms`)))
    req.on("error", reject)
    req.end(body)
  })

/** @since 0.1.0 @category models */
export interface Spawned {
  readonly child: ChildProcess
  readonly port: number
  readonly credentials: { readonly shopID: string; readonly apiKey: string; readonly adminToken: string }
  /** Resolves when the process exits: its code, signal and when (performance.now()). */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly at: number }>
  readonly log: () => string
}

/**
 * Starts the bundle on `dataDir` (and PostgreSQL when `databaseUrl` is given), with the demo
 * merchant; resolves once `readyPath` answers 200. The caller stops it (`stop`).
 *
 * @since 0.1.0
 */
export const start = async (options: {
  readonly dataDir: string
  readonly databaseUrl?: string | undefined
  readonly env?: Record<string, string>
  readonly readyPath?: string
}): Promise<Spawned> => {
  const port = await freePort()
  const logFile = path.join(options.dataDir, "server.log")
  const fd = fs.openSync(logFile, "a")
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith("KASSA_") || name.startsWith("OTEL_") || name === "DATABASE_URL") delete env[name]
  const child = spawn(process.execPath, [...shebangFlags(), bundlePath], {
    cwd: repoRoot,
    env: {
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      KASSA_DATA_DIR: options.dataDir,
      KASSA_PROVISION_DEMO: "true",
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
      ...options.env
    },
    stdio: ["ignore", fd, fd]
  })
  fs.closeSync(fd)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, at: performance.now() }))
  )
  let gone = false
  void exited.then(() => (gone = true))
  const log = () => fs.readFileSync(logFile, "utf8")
  const deadline = performance.now() + 30_000
  for (;;) {
    if (gone) throw new Error(`the server exited before answering:\n${log()}`)
    const status = await request(port, "GET", options.readyPath ?? "/health", { timeoutMs: 1_000 }).then((a) => a.status, () => 0)
    if (status === 200) break
    if (performance.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`the server did not answer within 30 s:\n${log()}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  const credentials = JSON.parse(fs.readFileSync(path.join(options.dataDir, "dev-credentials.json"), "utf8"))
  return { child, port, credentials, exited, log }
}

/**
 * Stops a spawned server: SIGTERM, then SIGKILL after `killAfterMs`; resolves its exit.
 *
 * @since 0.1.0
 */
export const stop = async (server: Spawned, killAfterMs = 20_000) => {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM")
  const timer = setTimeout(() => server.child.kill("SIGKILL"), killAfterMs)
  const exit = await server.exited
  clearTimeout(timer)
  return exit
}

/**
 * A spawned server for the scope: SIGKILLed when the scope closes if it still runs.
 *
 * @since 0.1.0
 */
export const scoped = (options: Parameters<typeof start>[0]) =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (server) => Effect.promise(() => stop(server, 0))
  )
