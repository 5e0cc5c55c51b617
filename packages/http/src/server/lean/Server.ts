/**
 * Node's HTTP server with the lean router in front: a request the router serves (`LeanRouter`,
 * when the served layer has one) runs as one fiber of the server's runtime; any other goes to
 * the platform's handler of the HttpApi app. Otherwise the platform's Node server, listening,
 * closing and all.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpPlatform from "@effect/platform-node/NodeHttpPlatform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Etag from "@effect/platform/Etag"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Http from "node:http"
import type * as Net from "node:net"
import { LeanRouter } from "./Router.js"

/** @since 0.1.0 @category constructors */
export const make = (evaluate: () => Http.Server, options: Net.ListenOptions) =>
  Effect.gen(function*() {
    const server = evaluate()
    const platform = yield* NodeHttpServer.make(() => server, options)
    return HttpServer.make({
      address: platform.address,
      serve: (app, middleware) =>
        Effect.gen(function*() {
          const fallback = yield* NodeHttpServer.makeHandler(app, middleware!)
          const lean = yield* Effect.serviceOption(LeanRouter)
          // Each fork copies every fiber ref of the runtime: not the two only the platform's
          // handler (the fallback) reads, the router's settings and the request spans' switch.
          const runFork = Runtime.runFork(
            (yield* Effect.runtime<never>()).pipe(
              Runtime.deleteFiberRef(HttpRouter.currentRouterConfig),
              Runtime.deleteFiberRef(HttpMiddleware.currentTracerDisabledWhen)
            )
          )
          const handler = Option.isNone(lean) ? fallback : (request: Http.IncomingMessage, response: Http.ServerResponse) => {
            const program = lean.value(request, response)
            if (program === undefined) return fallback(request, response)
            const fiber = runFork(program)
            response.on("close", () => {
              if (!response.writableEnded) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
            })
          }
          yield* Effect.addFinalizer(() => Effect.sync(() => server.off("request", handler)))
          server.on("request", handler)
        })
    })
  })

/**
 * What serving an app needs beside the server: the platform's file responses, ETags, the file
 * system and paths. Not the rest of `NodeContext` (`NodeHttpServer.layerContext` gives it), a
 * command executor, a terminal and a worker manager that nothing here uses: 14 layers fewer to
 * build at every start.
 */
const serving = Layer.mergeAll(NodeHttpPlatform.layer, Etag.layerWeak, NodeFileSystem.layer, NodePath.layer)

/**
 * The server on `options`, with what serving an app needs beside it.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (evaluate: () => Http.Server, options: Net.ListenOptions) =>
  Layer.merge(Layer.scoped(HttpServer.HttpServer, make(evaluate, options)), serving)

/**
 * `NodeHttpServer.layerTest` over this server: a random port and a client of it.
 *
 * @since 0.1.0 @category layers
 */
export const layerTest = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
  Layer.provideMerge(layer(Http.createServer, { port: 0 }))
)
