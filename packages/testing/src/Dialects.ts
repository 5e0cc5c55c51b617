/**
 * The SQL dialects a test file runs on: SQLite always, PostgreSQL when a server answers.
 *
 * Which server, in order: the one Kassa's global setup found (`globalSetup.ts`, when a project
 * registers it); else `KASSA_TEST_DATABASE_URL` (an admin URL; set it empty to test SQLite
 * only); else the machine's server on 127.0.0.1:5432, if a connection opens there (probed once
 * per test worker, as user `postgres`). A project needs no `globalSetup`. Under `CI=true` a
 * missing server fails the run instead of testing SQLite only.
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import { inject } from "vitest"
import { defaultUrl } from "./internal/defaultUrl.js"

/** @since 0.1.0 @category models */
export type Dialect = "sqlite" | "pg"

declare module "vitest" {
  export interface ProvidedContext {
    kassaPostgresUrl: string | null
  }
}


// One connection attempt in a child process: `dialects()` is called synchronously, while a
// test file is collected.
const probe = (url: string): boolean => {
  const { hostname, port } = new URL(url)
  const script = `const s=require("node:net").connect(${Number(port || 5432)},${JSON.stringify(hostname)});` +
    `s.setTimeout(2000,()=>process.exit(1));s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1))`
  return spawnSync(process.execPath, ["-e", script], { stdio: "ignore", timeout: 5_000 }).status === 0
}

let found: string | null | undefined

const fromEnvironment = (): string | null => {
  const configured = process.env.KASSA_TEST_DATABASE_URL
  if (configured === "") return null
  const url = configured ?? defaultUrl
  if (probe(url)) return url
  if (process.env.CI === "true" || configured !== undefined) {
    throw new Error(`PostgreSQL does not answer at ${url.replace(/\/\/[^@]*@/, "//")}`)
  }
  return null
}

/**
 * The admin URL of the test PostgreSQL server, or null when none answers.
 *
 * @since 0.1.0
 */
export const postgresUrl = (): string | null => {
  if (found !== undefined) return found
  const provided = inject("kassaPostgresUrl")
  found = provided === undefined ? fromEnvironment() : provided
  return found
}

/** Every dialect this run tests. @since 0.1.0 */
export const dialects = (): ReadonlyArray<Dialect> => (postgresUrl() === null ? ["sqlite"] : ["sqlite", "pg"])

/**
 * Where a storage contract test runs: a SQL dialect, or core's memory adapters.
 *
 * @since 0.1.0 @category models
 */
export type Backend = Dialect | "memory"

/** Every backend this run tests: memory first, then the dialects. @since 0.1.0 */
export const backends = (): ReadonlyArray<Backend> => ["memory", ...dialects()]
