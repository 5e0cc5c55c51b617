/**
 * What every start would compute the same way, done once while the startup snapshot is built
 * (`Snapshot.ts`): nothing here reads the environment or opens a file, socket or database.
 *
 * - The contract's parsers. `effect/Schema` compiles a schema's decoder or encoder the first
 *   time one is asked for and keeps it, per schema, for the process: the snapshot keeps them, so
 *   building the HTTP routes at start finds them compiled.
 * - Effect's run loop and layer builder, run once on a small layer graph of every kind of layer
 *   the server's has: the snapshot keeps the bytecode V8 compiled for them, which a start would
 *   otherwise compile while it builds its layers.
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

type AnySchema = Schema.Schema<any, any, any>

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
  for (const group of Object.values(groups)) {
    encoder(group.errorSchema)
    for (const endpoint of Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      for (const schema of [endpoint.pathSchema, endpoint.urlParamsSchema, endpoint.headersSchema, endpoint.payloadSchema]) {
        Option.map(schema, decoder)
      }
      encoder(endpoint.successSchema)
      encoder(endpoint.errorSchema)
    }
  }
  return compiled
}

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
