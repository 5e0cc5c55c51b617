/**
 * The server's configuration, read from the environment with Effect's `Config` and checked as a
 * whole before anything starts: every bad setting is named in one line.
 *
 * - `PORT` (default 8022), `HOST` (default 0.0.0.0)
 * - `KASSA_DATA_DIR` (default `./.kassa`): SQLite file, signing keys, vault key, dev credentials
 * - `DATABASE_URL`: `postgres://…` / `postgresql://…`, `sqlite:<file>`, or unset for the data dir's SQLite
 * - `KASSA_DB_POOL_SIZE` (default 10): connections in the PostgreSQL pool
 * - `KASSA_DB_PREPARED_STATEMENTS` (default true): prepare hot statements by name (false behind PgBouncer's transaction mode before 1.21)
 * - `KASSA_DB_WAIT_SECONDS` (default 30): how long a start waits for a database that does not answer yet
 * - `KASSA_SIGNING_KEY`: PEM private key(s) instead of the data dir's keys
 * - `KASSA_VAULT_KEY`: the card vault's master key (32 bytes, base64 or hex) instead of the data dir's
 * - `KASSA_PUBLIC_URL` (default http://localhost:PORT): where payers reach this server (3-D Secure)
 * - `KASSA_PROVISION_DEMO` (default true on SQLite, false on PostgreSQL): provision a demo merchant on an empty store
 * - `KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS` (default false): let webhooks reach loopback and private networks (development; never link-local or cloud metadata)
 * - `KASSA_WEBHOOK_CONCURRENCY` (default 128): notifications sent at once (at most 32 connections to one host)
 * - `KASSA_TRACING` (default false): keep Effect's spans (for a tracer an embedder provides)
 * - `KASSA_COUNT_STATEMENTS` (default false): count SQL statements by operation, shown at `/metrics`
 * - `OTEL_EXPORTER_OTLP_ENDPOINT`: export spans over OTLP/HTTP to this collector; `OTEL_SERVICE_NAME` (default kassa)
 * - `KASSA_METRICS_TOKEN`: `/metrics` needs `Authorization: Bearer <token>`
 * - `KASSA_METRICS_ADDRESS` (host:port or :port): `/metrics` on that address only
 * - `KASSA_SHUTDOWN_GRACE` (default 10 s): on SIGTERM, how long requests in flight may take to finish
 *
 * The log settings (`KASSA_LOG_FORMAT`, `KASSA_LOG_LEVEL`) are read first, by `Logging`.
 *
 * @since 0.1.0
 */
import { Database, type Kassa, SqlCardVault, TokenKeys } from "@kassa/adapters"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isIP } from "node:net"
import * as path from "node:path"
import { type Access, parseAddress } from "./MetricsEndpoint.js"

/** @since 0.1.0 @category models */
export interface ServerConfig extends Kassa.Options {
  readonly port: number
  readonly host: string
  readonly provisionDemo: boolean
  readonly tracing: boolean
  readonly countStatements: boolean
  /** Whether the hot operations go through the lean router (`lean/Router`). */
  readonly lean: boolean
  /** How long a start waits for the database to answer. */
  readonly databaseWaitSeconds: number
  readonly shutdownGrace?: Duration.Duration | undefined
  readonly metrics: Access
  readonly otlp?: { readonly endpoint: string; readonly serviceName: string } | undefined
}

/** The environment as a config source; an empty variable counts as unset. @since 0.1.0 */
export const provider = (env: NodeJS.ProcessEnv): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ""))
  )

/** A value parsed by `parse`, which throws a message (without the value) when it is wrong. */
const checked = <A>(name: string, parse: (text: string) => A) =>
  Config.string(name).pipe(
    Config.mapOrFail((text) =>
      Either.try({ try: () => parse(text), catch: (error) => ConfigError.InvalidData([], (error as Error).message) })
    )
  )

/** A yes or a no. @since 0.1.0 */
export const flag = (name: string) =>
  checked(name, (text) => {
    if (/^(1|true|yes|on)$/i.test(text)) return true
    if (/^(0|false|no|off)$/i.test(text)) return false
    throw new Error(`Expected true or false but received ${text}`)
  })

/** A whole number from `min` to `max`. */
const wholeNumber = (name: string, min: number, max: number) =>
  checked(name, (text) => {
    const n = Number(text)
    if (!/^-?\d+$/.test(text.trim()) || n < min || n > max) throw new Error(`Expected a whole number from ${min} to ${max} but received ${text}`)
    return n
  })

const host = checked("HOST", (text) => {
  if (isIP(text) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(text)) {
    throw new Error(`Expected an IP address or a host name but received ${text}`)
  }
  return text
})

const publicUrl = checked("KASSA_PUBLIC_URL", (text) => {
  if (!/^https?:\/\//.test(text) || !URL.canParse(text)) throw new Error(`Expected an http:// or https:// URL but received ${text}`)
  return text.replace(/\/+$/, "")
})

/** Seconds ("10", "2.5") or Effect's form ("500 millis"). */
const duration = (name: string) =>
  checked(name, (text) => {
    const decoded = /^\d+(\.\d+)?$/.test(text.trim()) ? Option.some(Duration.seconds(Number(text))) : Duration.decodeUnknown(text.trim())
    if (Option.isNone(decoded) || !Duration.isFinite(decoded.value)) throw new Error(`Expected a duration such as 10 or "500 millis" but received ${text}`)
    return decoded.value
  })

const metricsAddress = checked("KASSA_METRICS_ADDRESS", (text) => parseAddress("KASSA_METRICS_ADDRESS", text))

const signingKey = checked("KASSA_SIGNING_KEY", (text) => (TokenKeys.fromPems(text), text))

// `parseMasterKey` names its source itself; the rendered line names the variable already.
const vaultKey = checked("KASSA_VAULT_KEY", (text) => (SqlCardVault.parseMasterKey(text, "the value"), text))

/**
 * Every setting of the server.
 *
 * @since 0.1.0
 */
export const server: Config.Config<ServerConfig> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8022)),
  host: host.pipe(Config.withDefault("0.0.0.0")),
  dataDir: Config.string("KASSA_DATA_DIR").pipe(Config.withDefault(".kassa"), Config.map((dir) => path.resolve(dir))),
  databaseUrl: Config.option(Config.string("DATABASE_URL")),
  poolSize: Config.option(wholeNumber("KASSA_DB_POOL_SIZE", 1, 1000)),
  preparedStatements: Config.option(flag("KASSA_DB_PREPARED_STATEMENTS")),
  databaseWaitSeconds: wholeNumber("KASSA_DB_WAIT_SECONDS", 0, 3600).pipe(Config.withDefault(30)),
  signingKey: Config.option(signingKey),
  vaultKey: Config.option(vaultKey),
  publicUrl: Config.option(publicUrl),
  provisionDemo: Config.option(flag("KASSA_PROVISION_DEMO")),
  allowPrivateNetworks: flag("KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS").pipe(Config.withDefault(false)),
  webhookConcurrency: Config.option(wholeNumber("KASSA_WEBHOOK_CONCURRENCY", 1, 1000)),
  tracing: flag("KASSA_TRACING").pipe(Config.withDefault(false)),
  countStatements: flag("KASSA_COUNT_STATEMENTS").pipe(Config.withDefault(false)),
  lean: flag("KASSA_HTTP_LEAN").pipe(Config.withDefault(true)),
  shutdownGrace: Config.option(duration("KASSA_SHUTDOWN_GRACE")),
  metricsToken: Config.option(Config.string("KASSA_METRICS_TOKEN")),
  metricsAddress: Config.option(metricsAddress),
  otlpEndpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
  otlpServiceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("kassa"))
}).pipe(
  Config.mapOrFail((c) =>
    Either.map(
      Either.mapLeft(
        Database.fromUrl(Option.getOrUndefined(c.databaseUrl), c.dataDir, {
          maxConnections: Option.getOrUndefined(c.poolSize),
          preparedStatements: Option.getOrUndefined(c.preparedStatements)
        }),
        (message) => ConfigError.InvalidData(["DATABASE_URL"], message)
      ),
      (database): ServerConfig => ({
        port: c.port,
        host: c.host,
        dataDir: c.dataDir,
        database,
        databaseWaitSeconds: c.databaseWaitSeconds,
        signingKey: Option.getOrUndefined(c.signingKey),
        vaultKey: Option.getOrUndefined(c.vaultKey),
        webhooks: { allowPrivateNetworks: c.allowPrivateNetworks, concurrency: Option.getOrUndefined(c.webhookConcurrency) },
        settings: { publicUrl: Option.getOrElse(c.publicUrl, () => `http://localhost:${c.port}`) },
        // The demo merchant is for trying Kassa out on its embedded store, not for a shared database.
        provisionDemo: Option.getOrElse(c.provisionDemo, () => database._tag === "sqlite"),
        tracing: c.tracing,
        countStatements: c.countStatements,
        lean: c.lean,
        shutdownGrace: Option.getOrUndefined(c.shutdownGrace),
        metrics: { token: Option.getOrUndefined(c.metricsToken), address: Option.getOrUndefined(c.metricsAddress) },
        otlp: Option.getOrUndefined(Option.map(c.otlpEndpoint, (endpoint) => ({ endpoint, serviceName: c.otlpServiceName })))
      })
    )
  )
)

/**
 * A config failure as one line: `NAME: what is wrong` for each bad setting.
 *
 * @since 0.1.0
 */
export const render = (error: ConfigError.ConfigError): string => {
  const leaves = (e: ConfigError.ConfigError): Array<string> =>
    e._op === "And" || e._op === "Or"
      ? [...leaves(e.left), ...leaves(e.right)]
      : [e.path.length > 0 ? `${e.path.join(".")}: ${e.message}` : e.message]
  return [...new Set(leaves(error))].join("; ")
}

/** The server's settings from `env`. @since 0.1.0 */
export const load = (env: NodeJS.ProcessEnv): Effect.Effect<ServerConfig, ConfigError.ConfigError> =>
  Effect.withConfigProvider(server, provider(env))

/** The server's settings from `env`; throws the rendered failure. @since 0.1.0 */
export const fromEnv = (env: NodeJS.ProcessEnv = process.env): ServerConfig =>
  Either.getOrThrowWith(Effect.runSync(Effect.either(load(env))), (error) => new Error(render(error)))
