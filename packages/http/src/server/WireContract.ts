/**
 * The wire contract, written once for the whole API (an API-level middleware sees the raw
 * failures before HttpApi encodes them):
 *
 * - `/v1/…` is served by the `/v2/…` routes;
 * - a schema violation in body, path, query or headers → 400 `{code: "invalidRequest", message}`
 *   naming the field, never repeating the value sent (card data, personal data); malformed JSON,
 *   a body over `maxBodyBytes` (with a Content-Length or chunked), a NUL character in the query or
 *   the body, or a body nested too deep → the same code (`InputLimits`); a NUL in the path → 404;
 * - an unknown route → 404 `{message}`; an unexpected defect → 500 `{message}`, logged;
 * - while the server drains (`Drain`), a request is answered 503 `{message}` with `Retry-After`;
 * - `X-Request-Deadline` is honoured: past it a request that has committed nothing is stopped
 *   (its transaction rolls back) and answered 504 `{message}`; one that has committed runs to
 *   its end and answers what it did (`RequestDeadline`);
 * - JSON responses carry exactly `application/json; charset=utf-8`;
 * - a mutating request repeated with its `X-Request-ID` replays the first answer (`RequestReplay`);
 * - every log line of the request carries its `X-Request-ID`; one access-log line and metrics
 *   per request, by operation and status;
 *   the SQL statements it issues are counted as its operation's (`Statements`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Now } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { KassaApi } from "../api/KassaApi.js"
import * as Edge from "./Edge.js"

/** The largest request body accepted. @since 0.1.0 */
export const maxBodyBytes = Edge.maxBodyBytes

/** "<path>: <expectation>" for each issue of a decode failure. @since 0.1.0 */
export const formatIssues = Edge.formatIssues

const middleware = HttpApiBuilder.middleware(
  KassaApi,
  Effect.gen(function*() {
    const edge = yield* Edge.make
    return (app: HttpApp.Default) =>
      Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>((fiber) => {
        const original = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        const url = original.url.startsWith("/v1/") ? "/v2" + original.url.slice(3) : original.url
        const request = url === original.url ? original : original.modify({ url })
        const started = edge.start(original, request, url.split("?")[0]!)
        const answered = HttpApp.appendPreResponseHandler((_req, response) => edge.answer(started, response))
        const now = Now.unsafeOf(fiber)
        // the router reads the request from the context: the one read at the edge, when it is another
        const operation = (read: HttpServerRequest.HttpServerRequest) =>
          read === original ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, read)
        return Effect.zipRight(answered, edge.handle(started, operation, now))
      })
  })
)

/**
 * The middleware, and the body limit of every request: a service of the server's runtime, not
 * provided again per request.
 *
 * @since 0.1.0 @category layers
 */
export const layer = Layer.merge(
  middleware,
  Layer.succeed(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes)))
)
