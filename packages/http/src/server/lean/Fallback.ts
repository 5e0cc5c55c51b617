/**
 * What the lean router leaves to HttpApi, without building HttpApi's app at start: the plain
 * routes of a fixed path (`/health`, `/metrics`, `/openapi.json`, `/docs`…) are served by an app
 * of the plain routes alone,
 * and any other request (an operation the router does not serve, a path it does not read
 * plainly, an unknown route) by HttpApi's whole app, built on the first such request, within
 * the server's scope: the contract's groups (their handlers and 190 routes) and the plain routes
 * in one router, and `HttpApiBuilder.httpApp` over it, the app `HttpApiBuilder.serve` serves
 * when eager. A build that fails answers 500 and is tried again on the next request.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Edge from "../Edge.js"
import * as Lazy from "./Lazy.js"

/**
 * How many times HttpApi's whole app was built (0 until a request needs it, then 1).
 *
 * @since 0.1.0 @category tags
 */
export class Builds extends Context.Tag("kassa/http/lean/Fallback/Builds")<Builds, { readonly count: () => number }>() {}

const isStatic = (path: string) => !path.includes(":") && !path.includes("*")

/**
 * Serves the app on the server: the plain routes now, the `groups` (layers adding their routes
 * to `HttpApiBuilder.Router`) on the first request that needs them.
 *
 * @since 0.1.0 @category layers
 */
export const serve = <E, R>(groups: Layer.Layer<never, E, R>) =>
  Layer.scoped(
    Builds,
    Effect.gen(function*() {
      const context = yield* Effect.context<R | HttpApiBuilder.Router | HttpApi.Api | HttpApiBuilder.Middleware>()
      const scope = yield* Effect.scope
      const plain = yield* HttpApiBuilder.httpApp
      const plainRouter = yield* HttpApiBuilder.Router.router
      const plainRoutes = new Set(
        Array.from(plainRouter.routes).filter((route) => isStatic(route.path)).map((route) => `${route.method} ${route.path}`)
      )
      // the router's settings at start, not the first request's fiber's
      const routerConfig = yield* FiberRef.get(HttpRouter.currentRouterConfig)
      let builds = 0
      // The groups' routes in a router of their own (each group provides `Router.Live`, one per
      // build) with the plain ones added: a build that fails changes nothing the next one reads.
      const build = Effect.gen(function*() {
        const groupsScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        return yield* Layer.buildWithScope(Layer.provideMerge(groups, HttpApiBuilder.Router.Live), groupsScope).pipe(
          Effect.provide(context),
          Effect.flatMap((built) =>
            Effect.zipRight(
              Effect.flatMap(HttpApiBuilder.Router, (router) => router.concat(plainRouter)),
              HttpApiBuilder.httpApp
            ).pipe(Effect.provide(Context.merge(context, built)))
          ),
          Effect.tap(() => void builds++),
          Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(groupsScope, exit) : Effect.void)
        )
      }).pipe(HttpRouter.withRouterConfig(routerConfig), Effect.uninterruptible)
      const whole = Lazy.make(build)
      const wholeApp: HttpApp.Default<never, HttpRouter.HttpRouter.DefaultServices> = Effect.matchCauseEffect(whole, {
        onFailure: (cause) =>
          Effect.logError("Unexpected failure", cause).pipe(
            Effect.as(Edge.json(500, { message: "Unexpected failure; contact support" }))
          ),
        onSuccess: (app) => app
      })
      const app: HttpApp.Default<never, HttpRouter.HttpRouter.DefaultServices> = Effect.flatMap(
        HttpServerRequest.HttpServerRequest,
        (request) => {
          const q = request.url.indexOf("?")
          return plainRoutes.has(`${request.method} ${q === -1 ? request.url : request.url.slice(0, q)}`) ? plain : wholeApp
        }
      )
      yield* HttpServer.serveEffect(app)
      return { count: () => builds }
    })
  ).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
