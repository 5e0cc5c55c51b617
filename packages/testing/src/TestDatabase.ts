/**
 * A throw-away database per test suite: a SQLite file in a temporary directory, or a fresh
 * PostgreSQL database created on the test server and dropped afterwards.
 *
 * @since 0.1.0
 */
import { Database } from "@kassa/adapters"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { type Dialect, postgresUrl } from "./Dialects.js"

const withAdmin = <A>(url: string, f: (client: pg.Client) => Promise<A>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return await f(client)
    } finally {
      await client.end()
    }
  })

/**
 * A scratch directory and database config, removed when the scope closes.
 *
 * @since 0.1.0
 */
export const acquire = (dialect: Dialect) =>
  Effect.gen(function*() {
    const dataDir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kassa-test-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    if (dialect === "sqlite") {
      return { dataDir, database: { _tag: "sqlite", filename: path.join(dataDir, "kassa.db") } as Database.DatabaseConfig }
    }
    const admin = postgresUrl()
    if (admin === null) return yield* Effect.dieMessage("PostgreSQL is not available for this run")
    const name = `kassa_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    yield* Effect.acquireRelease(
      withAdmin(admin, (c) => c.query(`CREATE DATABASE ${name}`)),
      () => withAdmin(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).pipe(Effect.ignore)
    )
    const url = new URL(admin)
    url.pathname = `/${name}`
    return { dataDir, database: { _tag: "pg", url: url.toString(), maxConnections: 10 } as Database.DatabaseConfig }
  })
