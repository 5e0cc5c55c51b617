/**
 * What every start would compute the same way, done once while the startup snapshot is built
 * (`Snapshot.ts`): nothing here reads the environment or opens a file, socket or database.
 *
 * - The contract's parsers. `effect/Schema` compiles a schema's decoder or encoder the first
 *   time one is asked for and keeps it, per schema, for the process: the snapshot keeps them, so
 *   building the HTTP routes at start finds them compiled. So are the lean router's encoders of
 *   the answers.
 * - Effect's run loop and layer builder, run once on a small layer graph of every kind of layer
 *   the server's has: the snapshot keeps the bytecode V8 compiled for them, which a start would
 *   otherwise compile while it builds its layers.
 * - The settings read from a made-up environment, every variable set and none: the bytecode of
 *   the settings' readers and Effect's config, the first thing a start runs.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Config from "./Config.js"
import * as Encoder from "./lean/Encoder.js"
import * as Logging from "./Logging.js"

type AnySchema = Schema.Schema<any, any, any>

const endpointsOf = (groups: HttpApi.HttpApi.AnyWithProps["groups"]) =>
  Object.values(groups).flatMap((group) => Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>)

/**
 * Compiles what `HttpApiBuilder` asks of `api`'s schemas when it builds its routes: each
 * endpoint's decoders of its path, query, headers and body, and the encoders of its answers and
 * errors. Answers how many schemas it compiled.
 *
 * @since 0.1.0
 */
export const compileParsers = (api: HttpApi.HttpApi.Any): number => {
  const { errorSchema, groups } = api as unknown as HttpApi.HttpApi.AnyWithProps
  let compiled = 0
  const decoder = (schema: AnySchema) => void (Schema.decodeUnknown(schema), compiled++)
  const encoder = (schema: AnySchema) => void (Schema.encodeUnknown(schema), compiled++)
  encoder(errorSchema)
  for (const group of Object.values(groups)) encoder(group.errorSchema)
  for (const endpoint of endpointsOf(groups)) {
    for (const schema of [endpoint.pathSchema, endpoint.urlParamsSchema, endpoint.headersSchema, endpoint.payloadSchema]) {
      Option.map(schema, decoder)
    }
    encoder(endpoint.successSchema)
    encoder(endpoint.errorSchema)
  }
  return compiled
}

/**
 * Compiles the lean router's encoder of each endpoint's answer (`lean/Encoder.ts`), which it
 * keeps for the process as `Schema` keeps its own. Answers the encoders, one per endpoint.
 *
 * @since 0.1.0
 */
export const compileEncoders = (api: HttpApi.HttpApi.Any): ReadonlyArray<Encoder.Encode> =>
  endpointsOf((api as unknown as HttpApi.HttpApi.AnyWithProps).groups).map((endpoint) =>
    Encoder.make(endpoint.successSchema as Schema.Schema<unknown, unknown, never>)
  )

class One extends Context.Tag("kassa/http/Warmup/One")<One, number>() {}
class Two extends Context.Tag("kassa/http/Warmup/Two")<Two, number>() {}
class Three extends Context.Tag("kassa/http/Warmup/Three")<Three, number>() {}

/** A layer graph with every kind of layer the server's has: effects, scoped resources, merges, provides, suspends. */
const layers = Layer.mergeAll(
  Layer.effect(Two, Effect.map(One, (n) => n + 1)),
  Layer.scoped(Three, Effect.acquireRelease(Effect.map(One, (n) => n + 2), () => Effect.void)),
  Layer.effectDiscard(Effect.logDebug("warm-up")),
  Layer.suspend(() => Layer.scopedDiscard(Effect.addFinalizer(() => Effect.void)))
).pipe(
  Layer.provideMerge(Layer.merge(Layer.succeed(One, 1), Layer.empty)),
  Layer.provide(Layer.effectDiscard(Effect.void))
)

/**
 * Builds `layers` and closes them, a few times over. Answers the services built (`[1, 2, 3]`
 * each time).
 *
 * @since 0.1.0
 */
export const runLayers = (times = 3): Promise<ReadonlyArray<ReadonlyArray<number>>> =>
  Effect.runPromise(Effect.forEach(
    Array.from({ length: times }),
    () =>
      Effect.scoped(Effect.map(Layer.build(layers), (context) => [Context.get(context, One), Context.get(context, Two), Context.get(context, Three)]))
  ))

/** Every setting a start reads, set; none reads a file or the network when parsed. */
const everySetting: NodeJS.ProcessEnv = {
  PORT: "8022",
  HOST: "127.0.0.1",
  KASSA_DATA_DIR: "/var/lib/kassa",
  DATABASE_URL: "postgres://kassa:secret@127.0.0.1:5432/kassa",
  KASSA_DB_POOL_SIZE: "10",
  KASSA_DB_PREPARED_STATEMENTS: "true",
  KASSA_DB_WAIT_SECONDS: "30",
  KASSA_PUBLIC_URL: "https://kassa.example",
  KASSA_PROVISION_DEMO: "false",
  KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
  KASSA_WEBHOOK_CONCURRENCY: "16",
  KASSA_TRACING: "false",
  KASSA_COUNT_STATEMENTS: "false",
  KASSA_HTTP_LEAN: "true",
  KASSA_SHUTDOWN_GRACE: "10",
  KASSA_METRICS_TOKEN: "token",
  KASSA_METRICS_ADDRESS: "127.0.0.1:9464",
  KASSA_LOG_FORMAT: "json",
  KASSA_LOG_LEVEL: "info"
}

/**
 * Reads the log's and the server's settings as a start does (`Start.ts`), from `everySetting` and
 * from an empty environment. Answers the server's settings of each.
 *
 * @since 0.1.0
 */
export const readSettings = (): ReadonlyArray<Config.ServerConfig> =>
  [everySetting, {}].map((env) => {
    Effect.runSync(Effect.withConfigProvider(Logging.config, Config.provider(env)))
    return Config.fromEnv(env)
  })
