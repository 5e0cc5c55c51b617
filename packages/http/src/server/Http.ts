/**
 * The HTTP application: the contract's handlers, middleware, OpenAPI document and docs,
 * health and metrics.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import { Database, SqlRequestReplays, Statements, Workers } from "@kassa/adapters"
import { Ledger } from "@kassa/core/ports/Ledger"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import { KassaApi } from "../api/KassaApi.js"
import { serviceTags } from "../Kassa.js"
import * as AccessLog from "./AccessLog.js"
import * as Auth from "./Auth.js"
import * as Docs from "./Docs.js"
import { Draining } from "./Drain.js"
import * as Envelope from "./Envelope.js"
import * as Health from "./Health.js"
import * as Admin from "./handlers/Admin.js"
import * as Contracts from "./handlers/Contracts.js"
import * as Customers from "./handlers/Customers.js"
import * as Invoices from "./handlers/Invoices.js"
import * as InvoiceTemplates from "./handlers/InvoiceTemplates.js"
import * as Parties from "./handlers/Parties.js"
import * as Payments from "./handlers/Payments.js"
import * as Reference from "./handlers/Reference.js"
import * as Refunds from "./handlers/Refunds.js"
import * as Search from "./handlers/Search.js"
import * as Shops from "./handlers/Shops.js"
import * as Webhooks from "./handlers/Webhooks.js"
import * as Metrics from "./Metrics.js"
import * as MetricsEndpoint from "./MetricsEndpoint.js"
import { MetricsAccess } from "./MetricsEndpoint.js"
import * as Routes from "./Routes.js"
import * as ThreeDSecure from "./ThreeDSecure.js"
import * as WireContract from "./WireContract.js"

/** The contract with its handlers. @since 0.1.0 @category layers */
export const api = HttpApiBuilder.api(KassaApi).pipe(
  Layer.provide([Parties.layer, Shops.layer, Contracts.layer, Invoices.layer, InvoiceTemplates.layer, Payments.layer, Refunds.layer, Customers.layer, Search.layer, Reference.layer, Admin.layer, Webhooks.layer, Webhooks.adminLayer]),
  Layer.provide([Envelope.layer, Auth.layer, Auth.operatorLayer])
)

/**
 * Everything `HttpApiBuilder.serve` / `toWebHandler` need besides the domain: API-level
 * middleware, `/openapi.json`, `/docs`, `/health` (and `/health/live`, `/health/ready`), `/metrics`.
 *
 * @since 0.1.0 @category layers
 */
export const app = Layer.mergeAll(
  Docs.layer,
  WireContract.layer,
  Routes.layer,
  Health.layer,
  MetricsEndpoint.layer,
  ThreeDSecure.layer
).pipe(Layer.provideMerge(api), Layer.provideMerge(Metrics.layer))

/** Kassa's services a request may reach: core's (and the ledger's account reads). */
const reachable = new Set<string>([...serviceTags, Ledger, Statements.StatementCounts, AccessLog.AccessLog, Draining, Workers.Workers, MetricsAccess, Database.PoolStats, SqlRequestReplays.RequestReplays].map((tag) => tag.key))

/**
 * Builds the server where, of Kassa's services, only those a request reaches are seen: not the
 * storage ports behind core's services. Every service given to a request's fiber copies its whole
 * context (about six times a request, inside `@effect/platform`), and the ports were half of its
 * 64 entries. Effect's and the platform's services pass. A service read at request time with
 * `Effect.serviceOption` must be listed (statement counting and the access log are).
 *
 * @since 0.1.0 @category layers
 */
export const reachingOnly = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      const context = yield* Effect.context<R>()
      const seen = [...context.unsafeMap].filter(([key]) => !key.startsWith("kassa/") || reachable.has(key))
      return yield* Layer.buildWithScope(layer, yield* Effect.scope).pipe(
        Effect.locally(FiberRef.currentContext, Context.unsafeMake<R>(new Map(seen)))
      )
    })
  )

const serveWith = (requestSpans: boolean) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(app),
    // Long path values must reach the schema (400 naming the field), not the router's limit (404).
    Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: 1024 })),
    HttpMiddleware.withTracerDisabledWhen(() => !requestSpans),
    reachingOnly
  )

/**
 * The server without a transport: provide an `HttpServer` (Node's, or the test server) and the
 * domain. No per-request tracing span: it costs throughput, and only an exporter needs it.
 *
 * @since 0.1.0 @category layers
 */
export const serve = serveWith(false)

/** The server with a span per request, for an exporter (`Tracing`). @since 0.1.0 @category layers */
export const serveTraced = serveWith(true)
