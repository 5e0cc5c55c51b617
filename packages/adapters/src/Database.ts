/**
 * The `SqlClient`, chosen from configuration: PostgreSQL for a `postgres://` URL, else the
 * embedded SQLite file. Names are snake_case in SQL and camelCase in code on both.
 *
 * @since 0.1.0
 */
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as String from "effect/String"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { nameHotStatements } from "./internal/preparedStatements.js"

/** @since 0.1.0 @category models */
export type DatabaseConfig =
  | {
    readonly _tag: "pg"
    readonly url: string
    readonly maxConnections?: number | undefined
    /**
     * Whether hot statements are prepared by name on each connection (default true; turn it off
     * behind a pooler that cannot keep them, as PgBouncer's transaction mode before 1.21).
     */
    readonly preparedStatements?: boolean | undefined
  }
  | { readonly _tag: "sqlite"; readonly filename: string }

/**
 * Reads the choice from a `DATABASE_URL` value and a data dir; `pg` tunes the PostgreSQL pool
 * (its size, default 10; whether hot statements are prepared, default yes).
 *
 * @since 0.1.0
 */
export const fromEnv = (
  databaseUrl: string | undefined,
  dataDir: string,
  pg: { readonly maxConnections?: number | undefined; readonly preparedStatements?: boolean | undefined } = {}
): DatabaseConfig =>
  databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(databaseUrl)
    ? {
      _tag: "pg",
      url: databaseUrl,
      ...(pg.maxConnections === undefined ? {} : { maxConnections: pg.maxConnections }),
      ...(pg.preparedStatements === undefined ? {} : { preparedStatements: pg.preparedStatements })
    }
    : { _tag: "sqlite", filename: databaseUrl !== undefined && databaseUrl !== "" ? databaseUrl.replace(/^sqlite:(\/\/)?/, "") : path.join(dataDir, "kassa.db") }

/** BIGINT (int8, oid 20) columns hold epoch milliseconds and amounts: safe integers. */
const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: any) =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"]
}

/**
 * The PostgreSQL pool, checked with one query. Its connections start with JIT compilation off: it
 * pays for plans that run for seconds, and Kassa's run for milliseconds, where a misestimated plan
 * would spend 100 ms and more compiling. (An `options` parameter in the URL replaces this one.)
 */
const pgPool = (config: Extract<DatabaseConfig, { _tag: "pg" }>) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pool = new pg.Pool({
          connectionString: config.url,
          options: "-c jit=off",
          max: config.maxConnections ?? 10,
          application_name: "kassa",
          types: pgTypes
        })
        pool.on("error", () => {})
        if (config.preparedStatements !== false) nameHotStatements(pool)
        try {
          await pool.query("SELECT 1")
        } catch (cause) {
          await pool.end().catch(() => {})
          throw cause
        }
        return pool
      },
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption(1000))
  )

/** `f` remembered per name: the names of statements and rows are few, and converted on every one. */
const byName = (f: (name: string) => string) => {
  const known = new Map<string, string>()
  return (name: string) => {
    let converted = known.get(name)
    if (converted === undefined) {
      if (known.size >= 4096) known.clear()
      converted = f(name)
      known.set(name, converted)
    }
    return converted
  }
}

/** The connections of the PostgreSQL pool, read for metrics. @since 0.1.0 @category models */
export interface PoolCounts {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

/**
 * The pool's counts now; `undefined` on SQLite (one connection, no pool).
 *
 * @since 0.1.0 @category tags
 */
export class PoolStats extends Context.Tag("kassa/PoolStats")<PoolStats, { readonly read: () => PoolCounts | undefined }>() {}

/** @since 0.1.0 @category layers */
export const layer = (config: DatabaseConfig) => {
  const transformQueryNames = byName(String.camelToSnake)
  const transformResultNames = byName(String.snakeToCamel)
  if (config._tag === "pg") {
    let pool: pg.Pool | undefined
    const stats = Layer.succeed(PoolStats, {
      read: () => pool && { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }
    })
    return PgClient.layerFromPool({
      acquire: Effect.tap(pgPool(config), (p) => void (pool = p)),
      applicationName: "kassa",
      transformQueryNames,
      transformResultNames,
      types: pgTypes
    }).pipe(Layer.orDie, Layer.merge(stats))
  }
  if (config.filename !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(config.filename)), { recursive: true })
  return SqliteClient.layer({
    filename: config.filename,
    transformQueryNames,
    transformResultNames
  }).pipe(Layer.orDie, Layer.merge(Layer.succeed(PoolStats, { read: () => undefined })))
}
