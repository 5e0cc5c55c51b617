/**
 * The server's configuration, from the environment.
 *
 * - `PORT` (default 8022), `HOST` (default 0.0.0.0)
 * - `KASSA_DATA_DIR` (default `./.kassa`): SQLite file, signing keys, dev credentials
 * - `DATABASE_URL`: `postgres://…` switches to PostgreSQL; else the embedded SQLite
 * - `KASSA_DB_POOL_SIZE` (default 10): connections in the PostgreSQL pool
 * - `KASSA_DB_PREPARED_STATEMENTS` (default true): prepare hot statements by name (false behind PgBouncer's transaction mode before 1.21)
 * - `KASSA_SIGNING_KEY`: PEM private key(s) instead of the data dir's keys
 * - `KASSA_VAULT_KEY`: the card vault's master key (32 bytes, base64 or hex) instead of the data dir's
 * - `KASSA_PUBLIC_URL` (default http://localhost:PORT): where payers reach this server (3-D Secure)
 * - `KASSA_PROVISION_DEMO` (default true): provision a demo merchant on an empty store
 * - `KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS` (default false): let webhooks reach loopback and private networks (development)
 * - `KASSA_WEBHOOK_CONCURRENCY` (default 128): notifications sent at once (at most 32 connections to one host)
 * - `KASSA_TRACING` (default false): keep Effect's spans (for a tracer an embedder provides)
 * - `KASSA_COUNT_STATEMENTS` (default false): count SQL statements by operation, shown at `/metrics`
 * - `OTEL_EXPORTER_OTLP_ENDPOINT`: export spans over OTLP/HTTP to this collector; `OTEL_SERVICE_NAME` (default kassa)
 * - `KASSA_METRICS_TOKEN`: `/metrics` needs `Authorization: Bearer <token>`
 * - `KASSA_METRICS_ADDRESS` (host:port or :port): `/metrics` on that address only
 * - `KASSA_SHUTDOWN_GRACE` (default 10 s): on SIGTERM, how long requests in flight may take to finish
 *
 * @since 0.1.0
 */
import { Database } from "@kassa/adapters"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as path from "node:path"
import type { KassaConfig } from "../Kassa.js"
import { type Access, parseAddress } from "./MetricsEndpoint.js"

/** @since 0.1.0 @category models */
export interface ServerConfig extends KassaConfig {
  readonly port: number
  readonly host: string
  readonly provisionDemo: boolean
  readonly tracing: boolean
  readonly countStatements: boolean
  readonly shutdownGrace?: Duration.Duration | undefined
  readonly metrics: Access
  readonly otlp?: { readonly endpoint: string; readonly serviceName: string } | undefined
}

/** A whole number from 1 to 1000 named by `name`, or undefined when it is not set. */
const count = (env: NodeJS.ProcessEnv, name: string): number | undefined => {
  const text = env[name]
  if (text === undefined || text === "") return undefined
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(`${name} must be a whole number from 1 to 1000, got ${text}`)
  return n
}

/** true or false named by `name`, or undefined when it is not set. */
const flag = (env: NodeJS.ProcessEnv, name: string): boolean | undefined => {
  const text = env[name]
  if (text === undefined || text === "") return undefined
  if (/^(1|true|yes)$/i.test(text)) return true
  if (/^(0|false|no)$/i.test(text)) return false
  throw new Error(`${name} must be true or false, got ${text}`)
}

/** A duration named by `name`: seconds ("10", "2.5") or Effect's form ("500 millis"); undefined when not set. */
const duration = (env: NodeJS.ProcessEnv, name: string): Duration.Duration | undefined => {
  const text = env[name]?.trim()
  if (text === undefined || text === "") return undefined
  const decoded = /^\d+(\.\d+)?$/.test(text) ? Option.some(Duration.seconds(Number(text))) : Duration.decodeUnknown(text)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value)) throw new Error(`${name} must be a duration such as 10 or "500 millis", got ${text}`)
  return decoded.value
}

/** @since 0.1.0 */
export const fromEnv = (env: NodeJS.ProcessEnv = process.env): ServerConfig => {
  const dataDir = path.resolve(env.KASSA_DATA_DIR ?? ".kassa")
  const port = Number(env.PORT ?? 8022)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`)
  const poolSize = count(env, "KASSA_DB_POOL_SIZE")
  const webhookConcurrency = count(env, "KASSA_WEBHOOK_CONCURRENCY")
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    dataDir,
    database: Database.fromEnv(env.DATABASE_URL, dataDir, {
      maxConnections: poolSize,
      preparedStatements: flag(env, "KASSA_DB_PREPARED_STATEMENTS")
    }),
    signingKey: env.KASSA_SIGNING_KEY,
    vaultKey: env.KASSA_VAULT_KEY,
    webhooks: {
      allowPrivateNetworks: /^(1|true|yes)$/i.test(env.KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? ""),
      concurrency: webhookConcurrency
    },
    settings: { publicUrl: (env.KASSA_PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, "") },
    provisionDemo: !/^(0|false|no)$/i.test(env.KASSA_PROVISION_DEMO ?? "true"),
    tracing: /^(1|true|yes)$/i.test(env.KASSA_TRACING ?? ""),
    countStatements: /^(1|true|yes)$/i.test(env.KASSA_COUNT_STATEMENTS ?? ""),
    shutdownGrace: duration(env, "KASSA_SHUTDOWN_GRACE"),
    metrics: {
      token: env.KASSA_METRICS_TOKEN || undefined,
      address: env.KASSA_METRICS_ADDRESS ? parseAddress("KASSA_METRICS_ADDRESS", env.KASSA_METRICS_ADDRESS) : undefined
    },
    otlp: env.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME || "kassa" } : undefined
  }
}
