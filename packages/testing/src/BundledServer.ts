/**
 * The server bundle (`packages/http/dist/server.js`) in a child process, as `npm start` runs it:
 * the Node flags of its first line, an environment of the test's choosing (nothing of the
 * shell's `DATABASE_URL`, `PORT`, `KASSA_*`), its stdout and stderr kept as lines.
 *
 * @since 0.1.0
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..")

/** @since 0.1.0 */
export const bundlePath = path.join(root, "packages/http/dist/server.js")

/** Builds the bundle unless it is up to date (what `npm start` does first). @since 0.1.0 */
export const ensureBundle = (): void => {
  execFileSync(process.execPath, [path.join(root, "packages/http/scripts/bundle.mjs")], { stdio: "ignore" })
}

/** A free TCP port on 127.0.0.1. @since 0.1.0 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.on("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
  })

/** @since 0.1.0 @category models */
export interface Running {
  readonly child: ChildProcess
  /** Everything written so far, stdout and stderr. */
  readonly output: () => string
  /** Non-empty lines written so far. */
  readonly lines: () => ReadonlyArray<string>
  /** Resolves the first line matching `pattern`; rejects when the process exits first. */
  readonly waitFor: (pattern: RegExp) => Promise<string>
  /** Resolves the exit code (signals as 128 + n are left to Node: null code → -1). */
  readonly exited: Promise<number>
  /** SIGTERM, then the exit. */
  readonly stop: () => Promise<number>
}

const shellVariables = /^(DATABASE_URL|PORT|HOST|NODE_OPTIONS|KASSA_.*)$/

const nodeFlags = (script: string) => {
  const first = fs.readFileSync(script, "utf8").slice(0, 200).split("\n")[0]!
  return /^#!\/usr\/bin\/env -S node(.*)$/.exec(first)?.[1]!.trim().split(/ +/).filter(Boolean) ?? []
}

/**
 * Starts the bundle with `env` in `cwd`.
 *
 * @since 0.1.0
 */
export const start = (env: Record<string, string>, cwd: string): Running => {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !shellVariables.test(k)))
  const child = spawn(process.execPath, [...nodeFlags(bundlePath), bundlePath], { cwd, env: { ...base, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  const waiters = new Set<() => void>()
  const onData = (chunk: Buffer) => {
    output += chunk.toString("utf8")
    for (const w of waiters) w()
  }
  child.stdout!.on("data", onData)
  child.stderr!.on("data", onData)
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)))
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
      exited.then((code) => {
        check()
        waiters.delete(check)
        reject(new Error(`the server exited (${code}) before writing ${pattern}:\n${output}`))
      })
    })
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    return exited
  }
  return { child, output: () => output, lines, waitFor, exited, stop }
}
