/**
 * The wire contract, written once for the whole API (an API-level middleware sees the raw
 * failures before HttpApi encodes them):
 *
 * - `/v1/…` is served by the `/v2/…` routes;
 * - a schema violation in body, path, query or headers → 400 `{code: "invalidRequest", message}`
 *   naming the field; malformed JSON or an oversized body → the same code;
 * - an unknown route → 404 `{message}`; an unexpected defect → 500 `{message}`, logged;
 * - `X-Request-Deadline` is honoured: past it the request is stopped (its transaction rolls
 *   back) and answered 504 `{message}`;
 * - JSON responses carry exactly `application/json; charset=utf-8`;
 * - a mutating request repeated with its `X-Request-ID` replays the first answer (`RequestReplay`);
 * - every log line of the request carries its `X-Request-ID`; metrics per operation and status;
 *   the SQL statements it issues are counted as its operation's (`Statements`).
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Statements } from "@kassa/adapters"
import { Deadline, Errors } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { KassaApi } from "../api/KassaApi.js"
import { Metrics } from "./Metrics.js"
import { resolver } from "./Operations.js"
import * as RequestReplay from "./RequestReplay.js"

/** The largest request body accepted. @since 0.1.0 */
export const maxBodyBytes = 1024 * 1024

const JSON_TYPE = "application/json; charset=utf-8"

const json = (status: number, body: unknown) =>
  HttpServerResponse.unsafeJson(body, { status, contentType: JSON_TYPE })

/** "<path>: <message>" for each issue of a decode failure. @since 0.1.0 */
export const formatIssues = (error: HttpApiError.HttpApiDecodeError): string =>
  error.issues.length === 0
    ? error.message
    : error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ")

const middleware = HttpApiBuilder.middleware(
  KassaApi,
  Effect.gen(function*() {
    const metrics = yield* Metrics
    const operationOf = resolver(KassaApi)
    const replaying = yield* RequestReplay.make
    // Each service or fiber ref a request sets copies its whole context: only what is used.
    const counting = Option.isSome(yield* Effect.serviceOption(Statements.StatementCounts))

    return (app: HttpApp.Default) =>
      Effect.gen(function*() {
        const original = yield* HttpServerRequest.HttpServerRequest
        const url = original.url.startsWith("/v1/") ? "/v2" + original.url.slice(3) : original.url
        const request = url === original.url ? original : original.modify({ url })
        const path = url.split("?")[0]!
        const started = performance.now()
        const requestId = original.headers["x-request-id"] ?? ""
        const operation = operationOf(request.method, path)

        yield* HttpApp.appendPreResponseHandler((_req, response) =>
          Effect.sync(() => {
            metrics.record(operation, response.status, (performance.now() - started) / 1000)
            return response.body._tag === "Uint8Array" && response.body.contentType.startsWith("application/json")
              ? HttpServerResponse.setBody(response, HttpBody.uint8Array(response.body.body, JSON_TYPE))
              : response
          })
        )

        const length = Number(original.headers["content-length"] ?? 0)
        if (length > maxBodyBytes) {
          return json(400, { code: "invalidRequest", message: `Request body exceeds ${maxBodyBytes} bytes` })
        }

        let handled = counting ? Statements.withWork(operation)(app) : app
        if (request !== original) handled = Effect.provideService(handled, HttpServerRequest.HttpServerRequest, request)
        const deadlineText = original.headers["x-request-deadline"]
        if (deadlineText !== undefined && deadlineText.length <= 40) {
          const now = new Date(yield* Clock.currentTimeMillis)
          const deadline = Deadline.parse(deadlineText, now)
          if (Option.isSome(deadline)) {
            const remaining = deadline.value.getTime() - now.getTime()
            // Past the deadline nothing runs: the answer must not depend on how fast a handler is.
            if (remaining <= 0) return json(504, { message: "Processing time exceeded the request deadline" })
            handled = handled.pipe(
              Effect.timeoutTo({
                duration: remaining,
                onSuccess: (response) => Effect.succeed(response),
                onTimeout: () => Effect.succeed(json(504, { message: "Processing time exceeded the request deadline" }))
              }),
              Effect.flatten
            )
          }
        }

        // Outside the deadline: a retry gets the answer that went out, a 504 as well.
        handled = replaying(request, original.url, handled)

        return yield* handled.pipe(
          Effect.catchAllCause((cause) => {
            const failure = Cause.failureOption(cause as Cause.Cause<unknown>)
            if (Option.isSome(failure)) {
              const f = failure.value
              if (f instanceof HttpApiError.HttpApiDecodeError) {
                return Effect.fail(Errors.invalidRequest(formatIssues(f)))
              }
              if (HttpServerError.isServerError(f) && f._tag === "RouteNotFound") {
                return Effect.succeed(json(404, { message: `Unknown route: ${original.method} ${original.url.split("?")[0]}` }))
              }
              return Effect.failCause(cause)
            }
            const defect = Cause.dieOption(cause)
            if (
              Option.isSome(defect) && HttpServerError.isServerError(defect.value) &&
              defect.value._tag === "RequestError" && defect.value.reason === "Decode"
            ) {
              return Effect.succeed(json(400, { code: "invalidRequest", message: "Malformed JSON body" }))
            }
            if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
            return Effect.logError("Unexpected failure", cause).pipe(
              Effect.as(json(500, { message: "Unexpected failure; contact support" }))
            )
          }),
          Effect.annotateLogs("requestId", requestId)
        )
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
