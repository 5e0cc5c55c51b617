/**
 * The HTTP API in-process: the contract's typed client (`HttpApiClient` of `JsonApi`, the
 * contract with JSON request bodies) over a transport that hands each request to the server's
 * own web handler, with no socket. The same operation names, request bodies as the wire's JSON
 * decoded by the server's schemas (bad input is the typed 400 `BusinessError` naming the field,
 * never a defect), the same answers, and the same authentication, scoping, `X-Request-ID`
 * replay and error mapping as the wire, because it is the wire's code.
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ApiKeyService } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import { JsonApi } from "./api/JsonApi.js"
import * as Http from "./server/Http.js"

// Only the URL's path reaches the handler; the origin just makes the URL absolute.
const origin = "http://kassa.in-process"

const currentRequestId = FiberRef.unsafeMake(Option.none<string>())

/**
 * Sends the requests of `effect` with this `X-Request-ID` (1..32 characters): a mutating request
 * repeated with the same id, operation and body gets the first answer replayed, as on the wire.
 * Without it each request gets a fresh random id.
 *
 * @since 0.1.0
 */
export const withRequestId: {
  (requestId: string): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, requestId: string): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(effect: Effect.Effect<A, E, R>, requestId: string) =>
    Effect.locally(effect, currentRequestId, Option.some(requestId))
)

const freshRequestId = () => crypto.randomUUID().replaceAll("-", "")

/**
 * The typed client of the whole contract with JSON request bodies, as
 * `HttpApiClient.make(JsonApi)` derives it.
 *
 * @since 0.1.0 @category models
 */
export type Client = typeof JsonApi extends HttpApi.HttpApi<string, infer Groups, infer E, infer _R> ?
  HttpApiClient.Client<Groups, E | HttpClientError.HttpClientError | ParseResult.ParseError, never>
  : never

const clientOf = (fetch: typeof globalThis.fetch, token: string): Effect.Effect<Client> =>
  HttpApiClient.make(JsonApi, {
    baseUrl: origin,
    transformClient: HttpClient.mapRequestEffect((request) =>
      Effect.map(FiberRef.get(currentRequestId), (id) =>
        request.pipe(
          HttpClientRequest.setHeader("x-request-id", Option.getOrElse(id, freshRequestId)),
          HttpClientRequest.bearerToken(token)
        ))
    )
  }).pipe(Effect.provide(FetchHttpClient.layer), Effect.provideService(FetchHttpClient.Fetch, fetch))

type IssueError = Effect.Effect.Error<ReturnType<Client["Admin"]["issueApiKey"]>>

/**
 * Callers of the in-process API. `asOperator` acts with an operator token issued when the layer
 * is built. `asParty` asks the operator API for a new API key of the party (`issueApiKey`: an
 * unknown party is `NotFound`; the key is listed and revocable like any other) and answers a
 * client acting with it: keep the client rather than asking again.
 *
 * @since 0.1.0 @category models
 */
export interface Callers {
  readonly asParty: (partyID: string) => Effect.Effect<Client, IssueError>
  readonly asOperator: Client
}

/** @since 0.1.0 @category tags */
export class InProcess extends Context.Tag("kassa/http/InProcess")<InProcess, Callers>() {}

/**
 * Builds the callers over the contract's app, the one `Http.serve` serves.
 *
 * @since 0.1.0 @category constructors
 */
export const make = Effect.gen(function*() {
  const app = yield* HttpApiBuilder.httpApp
  const runtime = yield* Effect.runtime<HttpRouter.HttpRouter.DefaultServices>()
  const handler = HttpApp.toWebHandlerRuntime(runtime)(app)
  const fetch: typeof globalThis.fetch = (input, init) => handler(new Request(input, init))
  const { token } = yield* Effect.orDie((yield* ApiKeyService.ApiKeyService).issueOperator())
  const operator = yield* clientOf(fetch, token)
  return InProcess.of({
    asParty: (partyID) =>
      Effect.flatMap(operator.Admin.issueApiKey({ path: { partyID } }), ({ apiKey }) => clientOf(fetch, apiKey)),
    asOperator: operator
  })
})

/**
 * `InProcess` over `kassa` (`Kassa.layer`, or a layer built like it), beside all of `kassa`'s
 * services, built as `Http.serve` builds the server but with no `HttpServer`.
 *
 * @since 0.1.0 @category layers
 */
export const layer = <ROut, E, R>(kassa: Layer.Layer<ROut, E, R>) =>
  Layer.merge(
    kassa,
    Layer.effect(InProcess, make).pipe(
      Layer.provide([Http.app, HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
      Http.configured(false),
      Layer.provide(Layer.provide(Http.reached, kassa)),
      Layer.provide(NodeHttpServer.layerContext)
    )
  )
