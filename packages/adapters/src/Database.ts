/**
 * The `SqlClient`, chosen from configuration: PostgreSQL for a `postgres://` URL, else an
 * embedded SQLite file. Names are snake_case in SQL and camelCase in code on both.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as String from "effect/String"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import * as SqlDriver from "./sql/driver/Driver.js"
import * as FreeReads from "./sql/driver/freeReads.js"
import { pipelineTransactions } from "./sql/driver/pipelined.js"
import { nameHotStatements } from "./sql/driver/preparedStatements.js"
import * as SqliteClient from "./sql/driver/sqliteClient.js"

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

/** The PostgreSQL pool's tuning: its size (default 10), whether hot statements are prepared (default yes). */
export interface PgTuning {
  readonly maxConnections?: number | undefined
  readonly preparedStatements?: boolean | undefined
}

/**
 * Reads the choice from a `DATABASE_URL` value: `postgres://…` or `postgresql://…`, `sqlite:<file>`
 * (absolute, or relative to the working directory), or nothing for `kassa.db` in the data dir.
 * Anything else is refused with a message that never repeats the value (it may hold a password).
 *
 * @since 0.1.0
 */
export const fromUrl = (databaseUrl: string | undefined, dataDir: string, tuning: PgTuning = {}): Either.Either<DatabaseConfig, string> => {
  if (databaseUrl === undefined || databaseUrl === "") return Either.right({ _tag: "sqlite", filename: path.join(dataDir, "kassa.db") })
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    if (!URL.canParse(databaseUrl)) return Either.left("expected a PostgreSQL URL such as postgres://user:password@host:5432/database")
    return Either.right({
      _tag: "pg",
      url: databaseUrl,
      ...(tuning.maxConnections === undefined ? {} : { maxConnections: tuning.maxConnections }),
      ...(tuning.preparedStatements === undefined ? {} : { preparedStatements: tuning.preparedStatements })
    })
  }
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/.exec(databaseUrl)
  if (sqlite !== null) return Either.right({ _tag: "sqlite", filename: sqlite[1] === ":memory:" ? sqlite[1] : path.resolve(sqlite[1]!) })
  const scheme = /^([A-Za-z][\w+.-]*):/.exec(databaseUrl)?.[1]
  return Either.left(
    `expected postgres://…, postgresql://… or sqlite:<file>, got ${scheme === undefined ? "no URL scheme" : `the scheme "${scheme}:"`}`
  )
}

/**
 * The store in words for a log line: dialect and where, without the password.
 *
 * @since 0.1.0
 */
export const describe = (config: DatabaseConfig): string => {
  if (config._tag === "sqlite") return `SQLite ${config.filename}`
  const url = new URL(config.url)
  if (url.password !== "") url.password = "***"
  return `PostgreSQL ${url.toString()}`
}

/** @since 0.1.0 @category errors */
export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{ readonly message: string }> {}

/** Failures of a database that is starting, or not yet on the network: worth another try. */
const transient = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "57P03"])

const errorText = (cause: unknown) => {
  const e = cause as { readonly code?: unknown; readonly message?: unknown }
  return typeof e.message === "string" && e.message !== "" ? e.message : `${e.code ?? cause}`
}

const pingPg = (config: Extract<DatabaseConfig, { _tag: "pg" }>) =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: 5000, application_name: "kassa" })
      client.on("error", () => {})
      try {
        await client.connect()
        await client.query("SELECT 1")
      } finally {
        await client.end().catch(() => {})
      }
    },
    catch: (cause) => cause
  })

const usableFile = (filename: string) =>
  Effect.try({
    try: () => {
      if (filename === ":memory:") return
      const dir = path.dirname(filename)
      fs.mkdirSync(dir, { recursive: true })
      fs.accessSync(dir, fs.constants.W_OK)
      if (fs.existsSync(filename)) fs.accessSync(filename, fs.constants.R_OK | fs.constants.W_OK)
    },
    catch: (cause) => new DatabaseUnreachable({ message: `cannot use the SQLite file ${filename}: ${errorText(cause)}` })
  })

/**
 * Checks that the store answers before anything is built on it. A PostgreSQL server that refuses
 * connections or is still starting is tried again (every 0.1 s, backing off to 1 s) for up to
 * `within` (zero: one try); any other failure (a wrong password, a missing database) ends the
 * wait at once.
 *
 * @since 0.1.0
 */
export const awaitReachable = (config: DatabaseConfig, within: Duration.DurationInput): Effect.Effect<void, DatabaseUnreachable> => {
  if (config._tag === "sqlite") return usableFile(config.filename)
  const isTransient = (cause: unknown) => transient.has(`${(cause as { readonly code?: unknown }).code}`)
  const ping = pingPg(config)
  const refused = (cause: unknown) => new DatabaseUnreachable({ message: `the database refused the connection: ${errorText(cause)}` })
  if (Duration.isZero(Duration.decode(within))) return Effect.mapError(ping, refused)
  return ping.pipe(
    Effect.catchIf(isTransient, (cause) =>
      Effect.logWarning(`the database does not answer yet (${errorText(cause)}); waiting up to ${Duration.format(within)}`).pipe(
        Effect.zipRight(ping),
        Effect.retry({
          schedule: Schedule.exponential("100 millis", 1.5).pipe(Schedule.either(Schedule.spaced("1 second"))),
          while: isTransient
        })
      )),
    Effect.mapError(refused),
    Effect.timeoutFail({
      duration: within,
      onTimeout: () => new DatabaseUnreachable({ message: `the database did not answer within ${Duration.format(within)}` })
    })
  )
}

/** BIGINT (int8) columns hold epoch milliseconds and amounts: safe integers. */
const pgTypes = new pg.TypeOverrides()
pgTypes.setTypeParser(pg.types.builtins.INT8, "text", Number)

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
        // (first: the statements it names go through it)
        pipelineTransactions(pool)
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

/**
 * The `SqlClient` of `config` with its `SqlDriver`: the one place the driver is configured (on
 * PostgreSQL its pool also names hot statements, unless `preparedStatements` is false; on SQLite
 * the client's connection is the driver's own, `sqliteClient.ts`).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (config: DatabaseConfig) => Layer.provideMerge(SqlDriver.layer, client(config))

const client = (config: DatabaseConfig) => {
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
    }).pipe(
      Layer.tap((context) => Effect.sync(() => FreeReads.register(Context.get(context, SqlClient.SqlClient), FreeReads.pgRun(pool!)))),
      Layer.orDie,
      Layer.merge(stats)
    )
  }
  if (config.filename !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(config.filename)), { recursive: true })
  return SqliteClient.layer({
    filename: config.filename,
    transformQueryNames,
    transformResultNames
  }).pipe(Layer.merge(Layer.succeed(PoolStats, { read: () => undefined })))
}
