/**
 * The HTTP application: the contract's handlers, middleware, OpenAPI document and docs,
 * health and metrics.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as SqlClient from "@effect/sql/SqlClient"
import { Database, Kassa, SqlRequestReplays, Workers } from "@kassa/adapters"
import { Ledger } from "@kassa/core/ports/Ledger"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { KassaApi } from "../api/KassaApi.js"
import * as Auth from "./Auth.js"
import * as Docs from "./Docs.js"
import * as Downloads from "./Downloads.js"
import * as Envelope from "./Envelope.js"
import * as Health from "./Health.js"
import * as Fallback from "./lean/Fallback.js"
import * as LeanRouter from "./lean/Router.js"
import * as Admin from "./handlers/Admin.js"
import * as AdminWallets from "./handlers/AdminWallets.js"
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
import * as Wallet from "./handlers/wallet/Wallet.js"
import * as Metrics from "./Metrics.js"
import * as MetricsEndpoint from "./MetricsEndpoint.js"
import * as Routes from "./Routes.js"
import * as ThreeDSecure from "./ThreeDSecure.js"
import * as WalletAuth from "./wallet/Auth.js"
import * as WalletEnvelope from "./wallet/Envelope.js"
import * as WireContract from "./WireContract.js"

/** The contract's groups: each adds its handlers' routes to HttpApi's router. */
const groups = Layer.mergeAll(
  Parties.layer,
  Shops.layer,
  Contracts.layer,
  Invoices.layer,
  InvoiceTemplates.layer,
  Payments.layer,
  Refunds.layer,
  Customers.layer,
  Search.layer,
  Reference.layer,
  Admin.layer,
  Webhooks.layer,
  Webhooks.adminLayer,
  Wallet.layer,
  AdminWallets.layer
)

/** The API's security and envelope middleware. */
const middleware = Layer.mergeAll(Envelope.layer, Auth.layer, Auth.operatorLayer, WalletEnvelope.layer, WalletAuth.layer)

/** The contract with its handlers. @since 0.1.0 @category layers */
export const api = HttpApiBuilder.api(KassaApi).pipe(Layer.provide(groups), Layer.provide(middleware))

/**
 * The contract without its handlers: the groups are services of `api`'s only in its type (each
 * adds its routes to the router, `HttpApiBuilder.group`), so `lean/Fallback` adds them later.
 */
const apiAlone = HttpApiBuilder.api(KassaApi).pipe(Layer.provide(middleware)) as unknown as Layer.Layer<
  HttpApi.Api,
  never,
  Layer.Layer.Context<typeof middleware>
>

/**
 * The routes beside the contract, added to the API's router in one layer: a layer each was five
 * more for Effect to build at every start.
 */
const plainRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.all([
    Docs.routes(router),
    Routes.routes(router),
    Health.routes(router),
    MetricsEndpoint.routes(router),
    ThreeDSecure.routes(router),
    Downloads.routes(router)
  ], { discard: true })
)

const appWith = (lean: boolean) =>
  Layer.mergeAll(
    WireContract.layer,
    plainRoutes,
    lean ? LeanRouter.layer : Layer.empty
  ).pipe(Layer.provideMerge(lean ? apiAlone : api), Layer.provideMerge(Metrics.layer))

/**
 * Everything `HttpApiBuilder.serve` / `toWebHandler` need besides the domain: API-level
 * middleware, `/openapi.json`, `/docs`, `/health` (and `/health/live`, `/health/ready`), `/metrics`.
 *
 * @since 0.1.0 @category layers
 */
export const app = appWith(false)

/**
 * The router and tracing settings of whatever serves `app`: the server, or the in-process
 * transport (`InProcess`).
 *
 * @since 0.1.0 @category layers
 */
export const configured = (requestSpans: boolean) => <A, E, R>(layer: Layer.Layer<A, E, R>) =>
  layer.pipe(
    // Long path values must reach the schema (400 naming the field), not the router's limit (404).
    Layer.provide(HttpRouter.setRouterConfig({ maxParamLength: 1024 })),
    HttpMiddleware.withTracerDisabledWhen(() => !requestSpans)
  )

// Lean, HttpApi's app is built on the first request the lean router leaves to it (`lean/Fallback`),
// with the middleware its handlers need built then too: as services of the server's layer, they
// would be in every request's context.
const serveWith = (requestSpans: boolean, lean: boolean) =>
  (lean ? Fallback.serve(Layer.provide(groups, middleware)) : HttpApiBuilder.serve()).pipe(Layer.provide(appWith(lean)), configured(requestSpans))

/**
 * Passes these services of the layer it is provided with on, and nothing else of it: in one
 * layer, not one a service (each was a layer and a merge more to build at every start).
 */
const reach = <Tags extends ReadonlyArray<Context.Tag<any, any>>>(...tags: Tags) =>
  Layer.effectContext(Effect.map(Effect.context<Context.Tag.Identifier<Tags[number]>>(), Context.pick(...tags)))

/**
 * What a request reaches of Kassa: core's services, the ledger's account reads, and what health,
 * metrics and replay read of the storage. Not the storage ports behind core's services: every
 * service given to a request's fiber copies its whole context (about six times a request, inside
 * `@effect/platform`), and the ports were half of its 64 entries.
 *
 * @since 0.1.0 @category layers
 */
export const reached = Layer.merge(
  Kassa.services,
  reach(Ledger, SqlClient.SqlClient, Workers.Workers, Database.PoolStats, SqlRequestReplays.RequestReplays)
)

/** @since 0.1.0 @category models */
export type Reached = Layer.Layer.Success<typeof reached>

/** What `reached` is built from: the ports behind core's services. @since 0.1.0 @category models */
export type Behind = Layer.Layer.Context<typeof reached>

/**
 * The server over `kassa` (`Kassa.layer`, or a layer built like it), without a transport: provide
 * an `HttpServer` (Node's, or the test server). The server is built seeing only what a request
 * reaches of `kassa` (`Reached`), so what `kassa` lacks of it stays a requirement of the result;
 * the layer's output is all of `kassa`'s. No per-request tracing span unless `requestSpans`: it
 * costs throughput, and only an exporter needs it. The hot operations go through the lean router
 * (`lean/Router`) unless `lean` is false or spans are asked for (it makes none), on a server that
 * has it in front (`lean/Server`; `Drain.nodeServer` does); the rest through HttpApi, whose app
 * (the contract's groups and their routes) is then built on the first request that needs it
 * (`lean/Fallback`), not at start.
 *
 * @since 0.1.0 @category layers
 */
export const serve = <ROut, E, R>(
  kassa: Layer.Layer<ROut, E, R>,
  options: { readonly requestSpans?: boolean; readonly lean?: boolean } = {}
) => {
  const requestSpans = options.requestSpans ?? false
  return Layer.merge(
    kassa,
    serveWith(requestSpans, (options.lean ?? true) && !requestSpans).pipe(Layer.provide(Layer.provide(reached, kassa)))
  )
}
