/**
 * The Node server with a graceful drain on shutdown. When the server's scope closes (SIGTERM,
 * SIGINT, or an embedder closing the layer) it stops accepting connections, closes idle
 * keep-alive sockets, lets the requests in flight finish within the grace, answers 503 with
 * `Retry-After` to requests that arrive on connections still open (see `WireContract`), then
 * lets the rest of the shutdown go on (background work has its own grace).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createServer, type Server } from "node:http"
import * as LeanServer from "./lean/Server.js"

/** Whether the server drains: read per request. @since 0.1.0 @category models */
export interface DrainState {
  readonly isDraining: () => boolean
}

/** @since 0.1.0 @category tags */
export class Draining extends Context.Tag("kassa/http/Draining")<Draining, DrainState>() {}

/** The server's own side: drains it. @since 0.1.0 @category tags */
export class Drainer extends Context.Tag("kassa/http/Drainer")<Drainer, { readonly drain: (grace: Duration.Duration) => Effect.Effect<void> }>() {}

/** How long a client waits before retrying a request refused while draining, in seconds. @since 0.1.0 */
export const retryAfterSeconds = 1

/** The default grace for requests in flight (`KASSA_SHUTDOWN_GRACE`). @since 0.1.0 */
export const defaultGrace = Duration.seconds(10)

const track = (server: Server) => {
  let inFlight = 0
  let draining = false
  let onIdle: (() => void) | undefined
  server.on("request", (_request, response) => {
    inFlight++
    response.on("close", () => {
      if (--inFlight === 0) onIdle?.()
    })
  })
  const idle = Effect.async<void>((resume) => {
    if (inFlight === 0) return resume(Effect.void)
    onIdle = () => resume(Effect.void)
    return Effect.sync(() => (onIdle = undefined))
  })
  const drain = (grace: Duration.Duration) =>
    Effect.gen(function*() {
      draining = true
      yield* Effect.logInfo("Shutdown: draining HTTP requests").pipe(
        Effect.annotateLogs({ inFlight, graceMillis: Duration.toMillis(grace) })
      )
      // Stops accepting; Node also closes the keep-alive connections that are idle.
      server.close()
      const finished = yield* idle.pipe(Effect.timeout(grace), Effect.option)
      const unanswered = inFlight
      server.closeIdleConnections()
      if (Option.isNone(finished)) server.closeAllConnections()
      yield* (Option.isSome(finished)
        ? Effect.logInfo("Shutdown: HTTP requests drained")
        : Effect.logWarning("Shutdown: grace over, requests in flight cut off").pipe(Effect.annotateLogs({ unanswered })))
    })
  return {
    draining: Draining.of({ isDraining: () => draining }),
    drainer: Drainer.of({ drain })
  }
}

/**
 * Node's HTTP server listening on `options` (the lean router in front), with the drain state.
 *
 * @since 0.1.0 @category layers
 */
export const nodeServer = (options: { readonly port: number; readonly host: string }) => {
  const server = createServer()
  const { drainer, draining } = track(server)
  return LeanServer.layer(() => server, options).pipe(
    Layer.merge(Layer.succeed(Draining, draining)),
    Layer.merge(Layer.succeed(Drainer, drainer))
  )
}

/**
 * Drains when its scope closes. Build it after the served app (`Layer.provide` it the app) so
 * that the drain runs while the app still answers.
 *
 * @since 0.1.0 @category layers
 */
export const onShutdown = (grace: Duration.Duration) =>
  Layer.scopedDiscard(Effect.flatMap(Drainer, (drainer) => Effect.addFinalizer(() => drainer.drain(grace))))
