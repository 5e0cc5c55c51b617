/**
 * `/metrics`: the Prometheus exposition. Open by Prometheus' convention; an operator may ask
 * for a bearer token (`KASSA_METRICS_TOKEN`) and/or serve it on a listen address of its own
 * (`KASSA_METRICS_ADDRESS`, then the API's port answers it 404). The backlogs are read at scrape
 * time, a few indexed statements a scrape, nothing per request.
 *
 * @since 0.1.0
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { Database, Statements } from "@kassa/adapters"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { createServer } from "node:http"
import { timingSafeEqual } from "node:crypto"
import { Metrics } from "./Metrics.js"

/** Who may read `/metrics`, and where. @since 0.1.0 @category models */
export interface Access {
  /** When set, a scrape needs `Authorization: Bearer <token>`. */
  readonly token?: string | undefined
  /** When set, `/metrics` is served only on this address. */
  readonly address?: { readonly host: string; readonly port: number } | undefined
}

/** @since 0.1.0 @category tags */
export class MetricsAccess extends Context.Tag("kassa/http/MetricsAccess")<MetricsAccess, Access>() {}

/** "host:port" or ":port" (all interfaces) as a listen address; throws naming `name` otherwise. @since 0.1.0 */
export const parseAddress = (name: string, text: string): { readonly host: string; readonly port: number } => {
  const match = /^(.*):(\d{1,5})$/.exec(text.trim())
  const port = match === null ? NaN : Number(match[2])
  if (match === null || port > 65535) throw new Error(`${name} must be host:port or :port, got ${text}`)
  const host = match[1]!.replace(/^\[(.*)\]$/, "$1")
  return { host: host === "" ? "0.0.0.0" : host, port }
}

const count = (rows: ReadonlyArray<{ readonly n: unknown; readonly oldest: unknown }>, now: number) => {
  const row = rows[0]
  const oldest = row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest)
  return { n: Number(row?.n ?? 0), ageSeconds: oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000) }
}

const authorized = (token: string | undefined, header: string | undefined) => {
  if (token === undefined) return true
  const expected = Buffer.from(`Bearer ${token}`)
  const given = Buffer.from(header ?? "")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Adds its routes to the API's router (`Http.app` adds every plain route in one layer). @since 0.1.0 @category routes */
export const routes = (router: HttpRouter.HttpRouter.Service<unknown, HttpRouter.HttpRouter.DefaultServices>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const metrics = yield* Metrics
    const statements = yield* Effect.serviceOption(Statements.StatementCounts)
    const pool = yield* Effect.serviceOption(Database.PoolStats)
    const access = Option.getOrElse(yield* Effect.serviceOption(MetricsAccess), (): Access => ({}))

    const scrape = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const [outbox, subjects, timers] = yield* Effect.all([
        sql<{ n: unknown; oldest: unknown }>`SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox`,
        sql<{ n: unknown; oldest: unknown }>`SELECT COUNT(*) AS n, MIN(next_attempt_at) AS oldest FROM webhook_subjects WHERE next_attempt_at <= ${now}`,
        sql<{ n: unknown; oldest: unknown }>`SELECT COUNT(*) AS n, MIN(due_at) AS oldest FROM timers WHERE due_at <= ${now}`
      ]).pipe(Effect.map((all) => all.map((rows) => count(rows, now))))
      const counts = Option.flatMap(pool, (p) => Option.fromNullable(p.read()))
      const text = yield* Effect.promise(() =>
        metrics.render({
          poolConnections: Option.getOrUndefined(Option.map(counts, (c) => ({ inUse: c.total - c.idle, idle: c.idle, waiting: c.waiting }))),
          webhookBacklog: { outbox: outbox!.n, subjects: subjects!.n },
          webhookOldestSeconds: { outbox: outbox!.ageSeconds, subjects: subjects!.ageSeconds },
          timersDue: timers!.n,
          timersOldestLagSeconds: timers!.ageSeconds
        })
      )
      return text + Option.match(statements, { onNone: () => "", onSome: (c) => Statements.render(c.snapshot()) })
    })

    if (access.address === undefined) {
      yield* router.get(
        "/metrics",
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!authorized(access.token, request.headers.authorization)) return HttpServerResponse.empty({ status: 401 })
          return yield* Effect.map(scrape, (text) => HttpServerResponse.text(text, { contentType: metrics.contentType }))
        }).pipe(Effect.orDie)
      )
      return
    }

    const run = Runtime.runPromise(yield* Effect.runtime<never>())
    const server = createServer((req, res) => {
      if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ message: "Only /metrics is served here" }))
      } else if (!authorized(access.token, req.headers.authorization)) {
        res.writeHead(401).end()
      } else {
        run(scrape).then(
          (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
          () => res.writeHead(500, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ message: "Metrics unavailable" }))
        )
      }
    })
    const address = access.address
    yield* Effect.acquireRelease(
      Effect.async<void, Error>((resume) => {
        server.once("error", (e) => resume(Effect.fail(e)))
        server.listen(address.port, address.host, () => resume(Effect.void))
      }).pipe(Effect.orDie),
      () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    yield* Effect.logInfo(`Metrics on http://${address.host}:${address.port}/metrics`)
  })
