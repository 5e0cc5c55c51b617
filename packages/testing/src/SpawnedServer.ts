/**
 * The server binary as `npm start` runs it (`packages/http/scripts/start.sh`: from the startup
 * snapshot of the bundle `packages/http/dist/server.js` when one was built, else from the bundle,
 * with its first line's Node flags), in a child process: for behaviour only a whole process shows (a start,
 * signals, exit). The environment is the test's: nothing of the shell's `DATABASE_URL`, `PORT`,
 * `HOST`, `NODE_OPTIONS`, `KASSA_*` or `OTEL_*`. Its stdout and stderr are kept.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn as spawnChild } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** @since 0.1.0 */
export const bundlePath = path.join(repoRoot, "packages/http/dist/server.js")

/** What `npm start` runs after the bundle step. @since 0.1.0 */
export const startScript = path.join(repoRoot, "packages/http/scripts/start.sh")

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

let bundled = false
/**
 * Brings the bundle up to date, as `npm start` does first (the bundle script rebuilds only when a
 * source is newer), once per test process. Test files run in parallel processes: one at a time
 * (a lock directory), so none spawns a bundle another is rewriting.
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
    execFileSync(process.execPath, [path.join(repoRoot, "packages/http/scripts/bundle.mjs")], { stdio: "ignore" })
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
  bundled = true
}

/** A free TCP port on 127.0.0.1. @since 0.1.0 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
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

/** How a process ended: its code, signal and when (`performance.now()`). @since 0.1.0 @category models */
export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly at: number
}

/** @since 0.1.0 @category models */
export interface Process {
  readonly child: ChildProcess
  /** Everything written so far, stdout and stderr. */
  readonly log: () => string
  /** Non-empty lines written so far. */
  readonly lines: () => ReadonlyArray<string>
  /** Resolves the first line matching `pattern`; rejects when the process exits first. */
  readonly waitFor: (pattern: RegExp) => Promise<string>
  readonly exited: Promise<Exit>
}

const shellVariables = /^(DATABASE_URL|PORT|HOST|NODE_OPTIONS|KASSA_.*|OTEL_.*)$/

/**
 * Starts the server with `env` in `cwd` by `launcher` (`startScript` by default), whatever comes
 * of it (a start may be refused).
 *
 * @since 0.1.0
 */
export const spawn = (env: Record<string, string>, cwd: string, launcher: string = startScript): Process => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !shellVariables.test(name)))
  const child = spawnChild(launcher, [], { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const waiters = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    output += chunk.toString("utf8")
    for (const waiter of waiters) waiter()
  }
  child.stdout!.on("data", onData)
  child.stderr!.on("data", onData)
  // "close": the process has exited and its output is all read
  const exited = new Promise<Exit>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, at: performance.now() })))
  const lines = () => output.split("\n").filter((l) => l.trim() !== "")
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = lines().find((l) => pattern.test(l))
        if (found !== undefined) {
          waiters.delete(check)
          resolve(found)
        }
      }
      waiters.add(check)
      check()
      void exited.then(({ code }) => {
        check()
        waiters.delete(check)
        reject(new Error(`the server exited (${code}) before writing ${pattern}:\n${output}`))
      })
    })
  return { child, log: () => output, lines, waitFor, exited }
}

/**
 * Stops a process: SIGTERM, then SIGKILL after `killAfterMs`; resolves its exit.
 *
 * @since 0.1.0
 */
export const stop = async (server: Process, killAfterMs = 20_000): Promise<Exit> => {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGTERM")
  const timer = setTimeout(() => server.child.kill("SIGKILL"), killAfterMs)
  const exit = await server.exited
  clearTimeout(timer)
  return exit
}

/**
 * A spawned process for the scope: stopped when the scope closes if it still runs.
 *
 * @since 0.1.0
 */
export const spawnScoped = (env: Record<string, string>, cwd: string) =>
  Effect.acquireRelease(Effect.sync(() => spawn(env, cwd)), (server) => Effect.promise(() => stop(server)))

/** @since 0.1.0 @category models */
export interface Spawned extends Process {
  readonly port: number
  readonly credentials: { readonly shopID: string; readonly apiKey: string; readonly adminToken: string }
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
  readonly launcher?: string
}): Promise<Spawned> => {
  const port = await freePort()
  const server = spawn({
    PORT: String(port),
    HOST: "127.0.0.1",
    KASSA_DATA_DIR: options.dataDir,
    KASSA_PROVISION_DEMO: "true",
    ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
    ...options.env
  }, repoRoot, options.launcher)
  let gone = false
  void server.exited.then(() => (gone = true))
  const deadline = performance.now() + 30_000
  for (;;) {
    if (gone) throw new Error(`the server exited before answering:\n${server.log()}`)
    const status = await request(port, "GET", options.readyPath ?? "/health", { timeoutMs: 1_000 }).then((a) => a.status, () => 0)
    if (status === 200) break
    if (performance.now() > deadline) {
      server.child.kill("SIGKILL")
      throw new Error(`the server did not answer within 30 s:\n${server.log()}`)
    }
    await new Promise((r) => setTimeout(r, 20))
  }
  const credentials = JSON.parse(fs.readFileSync(path.join(options.dataDir, "dev-credentials.json"), "utf8"))
  return { ...server, port, credentials }
}

/**
 * A started server for the scope: SIGKILLed when the scope closes if it still runs.
 *
 * @since 0.1.0
 */
export const scoped = (options: Parameters<typeof start>[0]) =>
  Effect.acquireRelease(
    Effect.promise(() => start(options)),
    (server) => Effect.promise(() => stop(server, 0))
  )
