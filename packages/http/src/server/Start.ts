/**
 * The server's start: configuration, the layers in their order (ready before listen), the
 * start's log lines and how a failed start is told. `main.ts` runs it; so does the startup
 * snapshot (`Snapshot.ts`), from which `npm start` starts.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpServer from "@effect/platform/HttpServer"
import { Database, Kassa, Migrations, Statements } from "@kassa/adapters"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as AccessLog from "./AccessLog.js"
import * as Config from "./Config.js"
import * as Drain from "./Drain.js"
import * as Http from "./Http.js"
import * as Logging from "./Logging.js"
import * as MetricsEndpoint from "./MetricsEndpoint.js"
import * as Preflight from "./Preflight.js"
import * as Provisioning from "./Provisioning.js"
import * as Tracing from "./Tracing.js"
import { version } from "./Version.js"

const roles = ["HTTP API", "timers", "webhook dispatcher"]

const migrationsLine = Layer.effectDiscard(
  Effect.flatMap(Migrations.Applied, ({ applied, total }) =>
    Effect.logInfo(
      applied.length === 0
        ? `migrations: none to apply (${total} applied before)`
        : `migrations: applied ${applied.length} of ${total} (${applied[0]} to ${applied[applied.length - 1]})`
    ))
)

// Ready before listen: the domain (database, migrations) is built first, then the demo
// merchant, then the HTTP server, which opens its port last. On shutdown the drain runs first,
// while the app still answers.
const server = (config: Config.ServerConfig, logging: Logging.LogSettings, ready: Ref.Ref<boolean>) => {
  const kassa = Kassa.layer(config)
  const beforeListening = Layer.merge(migrationsLine, config.provisionDemo ? Provisioning.layer(config.dataDir) : Layer.empty).pipe(
    Layer.provide(kassa)
  )
  return Layer.effectDiscard(
    HttpServer.addressFormattedWith((address) =>
      Effect.logInfo(`ready on ${address}; running: ${roles.join(", ")}`).pipe(Effect.zipRight(Ref.set(ready, true)))
    )
  ).pipe(
    Layer.provideMerge(Drain.onShutdown(config.shutdownGrace ?? Drain.defaultGrace)),
    Layer.provideMerge(Http.serve(kassa, { requestSpans: config.otlp !== undefined, lean: config.lean })),
    Layer.provide(Drain.nodeServer({ port: config.port, host: config.host })),
    Layer.provide(Layer.succeed(MetricsEndpoint.MetricsAccess, config.metrics)),
    Layer.provide(beforeListening),
    Layer.provideMerge(config.countStatements ? Statements.layer : Layer.empty),
    Layer.provideMerge(AccessLog.layerFor(logging)),
    // Spans cost throughput: off unless exported over OTLP or KASSA_TRACING asks.
    Layer.provide(
      config.otlp !== undefined ? Tracing.layer(config.otlp) : config.tracing ? Layer.empty : Layer.setTracerEnabled(false)
    )
  )
}

const start = (logging: Logging.LogSettings, ready: Ref.Ref<boolean>) => Effect.gen(function*() {
  const config = yield* Config.server.pipe(
    Effect.mapError((error) => new Preflight.StartError({ message: Config.render(error) }))
  )
  yield* Effect.logInfo(`store: ${Database.describe(config.database)}`)
  yield* Effect.logInfo(`data dir: ${config.dataDir}`)
  yield* Effect.logInfo(`listen: ${config.host}:${config.port}`)
  yield* Preflight.check(config)
  return yield* Layer.launch(server(config, logging, ready))
})

/** Every way a start or a run ends badly, as one line of the log. */
const report = (ready: Ref.Ref<boolean>) => (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.void
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof Preflight.StartError) return Effect.logFatal(`start failed: ${failure.value.message}`)
  return Effect.flatMap(Ref.get(ready), (running) => Effect.logFatal(running ? "stopped by an unexpected failure" : "start failed", cause))
}

const main = (env: NodeJS.ProcessEnv) => Effect.gen(function*() {
  const logging = yield* Effect.either(Logging.config)
  const ready = yield* Ref.make(false)
  const settings = Either.getOrElse(logging, () => Logging.defaults)
  yield* Effect.gen(function*() {
    yield* Effect.logInfo(`Kassa ${version}`)
    if (Either.isLeft(logging)) return yield* new Preflight.StartError({ message: Config.render(logging.left) })
    return yield* start(settings, ready)
  }).pipe(
    Effect.tapErrorCause(report(ready)),
    Effect.provide(Logging.layer(settings))
  )
}).pipe(
  Effect.withConfigProvider(Config.provider(env)),
  // seeded here, not when Effect's module loaded: a start from the startup snapshot would
  // otherwise draw the same numbers in every process
  Effect.withRandom(Random.make(Math.random()))
)

/** Runs the server until it stops (SIGTERM, SIGINT or a failure), with the settings of `process.env`. */
export const run = (): void => NodeRuntime.runMain(main(process.env), { disableErrorReporting: true, disablePrettyLogger: true })
