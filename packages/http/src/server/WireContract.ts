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
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Statements } from "@kassa/adapters"
import { Deadline, Errors, RequestDeadline } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as DefaultServices from "effect/DefaultServices"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { KassaApi } from "../api/KassaApi.js"
import * as AccessLog from "./AccessLog.js"
import { Draining, retryAfterSeconds } from "./Drain.js"
import * as InputLimits from "./InputLimits.js"
import { Metrics } from "./Metrics.js"
import { resolver } from "./Operations.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestReplay from "./RequestReplay.js"
import * as WalletWire from "./wallet/WalletWire.js"

/** The largest request body accepted. @since 0.1.0 */
export const maxBodyBytes = 1024 * 1024

const JSON_TYPE = "application/json; charset=utf-8"

const json = (status: number, body: unknown) =>
  HttpServerResponse.unsafeJson(body, { status, contentType: JSON_TYPE })

/**
 * An issue's message without what it says after "actual": the value sent, which may be a card
 * number, a CVV or personal data, and which the client has anyway.
 */
const expectation = (message: string): string => {
  const actual = message.indexOf(", actual ")
  return actual === -1 ? message : message.slice(0, actual)
}

/** "<path>: <expectation>" for each issue of a decode failure. @since 0.1.0 */
export const formatIssues = (error: HttpApiError.HttpApiDecodeError): string =>
  error.issues.length === 0
    ? "Invalid request"
    : error.issues.map((i) => {
      const message = expectation(i.message)
      return i.path.length > 0 ? `${i.path.join(".")}: ${message}` : message
    }).join("; ")

const invalidRequest = (message: string) => json(400, { code: "invalidRequest", message })

/**
 * Runs `app` with the body read at the edge: refused when too large, malformed or holding what
 * `InputLimits` refuses; otherwise handed over (with its text), parsed once.
 */
const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  refuse: (message: string) => HttpServerResponse.HttpServerResponse,
  serve: (request: HttpServerRequest.HttpServerRequest, body: string) => HttpApp.Default
): HttpApp.Default =>
  // a failed read is the platform's own: a defect, answered below as it answers those
  Effect.flatMap(Effect.orDie(RequestBody.read(request, maxBodyBytes)), (bytes) => {
    if (bytes === "tooLarge") return Effect.succeed(refuse(`Request body exceeds ${maxBodyBytes} bytes`))
    const contentType = request.headers["content-type"]
    const text = RequestBody.textOf(bytes)
    let parsed: { value: unknown } | undefined
    if (bytes.length > 0 && (contentType === undefined || RequestBody.isJson(contentType))) {
      try {
        parsed = { value: JSON.parse(text) }
      } catch {
        return Effect.succeed(refuse("Malformed JSON body"))
      }
      const problem = InputLimits.bodyProblem(text, parsed.value)
      if (problem !== undefined) return Effect.succeed(refuse(problem))
    }
    return serve(RequestBody.provided(request, bytes, text, parsed), text)
  })

const late = () => json(504, { message: "Processing time exceeded the request deadline" })

/**
 * `handled` bounded by the request's deadline `at` (`now` the clock's time, before it): at the
 * deadline a request that has committed nothing is stopped; a committing one is left to finish
 * (the timer then never answers).
 */
const withDeadline = (at: number, now: number, handled: HttpApp.Default): HttpApp.Default => {
  const request = RequestDeadline.make(at)
  // The app runs uninterruptibly, the race's fibers with it: the timer must be interruptible to lose.
  const timer = Effect.sleep(at - now).pipe(
    Effect.zipRight(Effect.suspend(() => RequestDeadline.expire(request) ? Effect.succeed(late()) : Effect.never)),
    Effect.interruptible
  )
  return Effect.raceFirst(
    handled.pipe(
      Effect.locally(RequestDeadline.current, request),
      Effect.catchAllCause((cause) => request.state === "expired" ? Effect.succeed(late()) : Effect.failCause(cause))
    ),
    timer
  )
}

/** The answer to what went wrong that the wire contract answers itself, or the failure as it is. */
const recover = (original: HttpServerRequest.HttpServerRequest) => (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
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
    return Effect.succeed(invalidRequest("Malformed JSON body"))
  }
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  return Effect.logError("Unexpected failure", cause).pipe(
    Effect.as(json(500, { message: "Unexpected failure; contact support" }))
  )
}

const middleware = HttpApiBuilder.middleware(
  KassaApi,
  Effect.gen(function*() {
    const metrics = yield* Metrics
    const operationOf = resolver(KassaApi)
    const replaying = yield* RequestReplay.make
    // Each service or fiber ref a request sets copies its whole context: only what is used.
    const counting = Option.isSome(yield* Effect.serviceOption(Statements.StatementCounts))
    const accessLog = Option.getOrUndefined(yield* Effect.serviceOption(AccessLog.AccessLog))
    const draining = Option.getOrUndefined(yield* Effect.serviceOption(Draining))

    // Every request goes through here: plain functions around the few Effect operations it needs.
    return (app: HttpApp.Default) => {
      const handle = (
        original: HttpServerRequest.HttpServerRequest,
        request: HttpServerRequest.HttpServerRequest,
        path: string,
        operation: string,
        requestId: string,
        exchange: RequestReplay.Exchange,
        defaults: Context.Context<DefaultServices.DefaultServices>
      ) => {
        // A request on a connection still open while the server drains: retry elsewhere.
        if (draining?.isDraining() === true && !path.startsWith("/health")) {
          return Effect.succeed(json(503, { message: "The server is shutting down; retry the request" }).pipe(
            HttpServerResponse.setHeaders({ "retry-after": String(retryAfterSeconds), connection: "close" })
          ))
        }

        // The wallet and card-token interfaces answer 400 in their own shape.
        const wallet = WalletWire.isWalletPath(path)
        const refuse = wallet ? WalletWire.invalidBody : invalidRequest
        const length = Number(original.headers["content-length"] ?? 0)
        if (length > maxBodyBytes) return Effect.succeed(refuse(`Request body exceeds ${maxBodyBytes} bytes`))
        const urlProblem = InputLimits.urlProblem(original.url)
        if (urlProblem?._tag === "Path") return Effect.succeed(json(404, { message: "No resource has a NUL character in its path" }))
        if (urlProblem?._tag === "Query") {
          return Effect.succeed(wallet ? WalletWire.badRequest("SchemaViolated", "query", urlProblem.message) : invalidRequest(urlProblem.message))
        }

        const counted = counting ? Statements.withWork(operation)(app) : app
        let bounded = (handled: HttpApp.Default): HttpApp.Default => handled
        const deadlineText = original.headers["x-request-deadline"]
        if (deadlineText !== undefined && deadlineText.length <= 40) {
          const now = Context.get(defaults, Clock.Clock).unsafeCurrentTimeMillis()
          const deadline = Deadline.parse(deadlineText, new Date(now))
          if (Option.isSome(deadline)) {
            const at = deadline.value.getTime()
            // Past the deadline nothing runs: the answer must not depend on how fast a handler is.
            if (at <= now) return Effect.succeed(late())
            bounded = (handled) => withDeadline(at, now, handled)
          }
        }

        // The body is read once, before anything runs; replay wraps the deadline: a retry gets
        // the answer that went out, a 504 as well.
        const serve = (read: HttpServerRequest.HttpServerRequest, body: string): HttpApp.Default => {
          const provided = read === original ? counted : Effect.provideService(counted, HttpServerRequest.HttpServerRequest, read)
          return replaying(read, original.url, body, bounded(provided), exchange)
        }
        const handled = RequestBody.present(request) ? withBody(request, refuse, serve) : serve(request, "")

        return (wallet ? Effect.catchAllCause(handled, WalletWire.recover(operation)) : handled).pipe(
          Effect.catchAllCause(recover(original)),
          Effect.annotateLogs("requestId", requestId)
        )
      }

      return Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>((fiber) => {
        const original = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
        const url = original.url.startsWith("/v1/") ? "/v2" + original.url.slice(3) : original.url
        const request = url === original.url ? original : original.modify({ url })
        const path = url.split("?")[0]!
        const started = performance.now()
        const requestId = original.headers["x-request-id"] ?? ""
        const operation = operationOf(request.method, path)
        const exchange: RequestReplay.Exchange = { answered: undefined }

        const answered = HttpApp.appendPreResponseHandler((_req, response) => {
          const milliseconds = performance.now() - started
          metrics.record(operation, response.status, milliseconds / 1000)
          exchange.answered?.(response)
          const answer = response.body._tag === "Uint8Array" && response.body.contentType.startsWith("application/json")
            ? HttpServerResponse.setBody(response, HttpBody.uint8Array(response.body.body, JSON_TYPE))
            : response
          return accessLog === undefined
            ? Effect.succeed(answer)
            : Effect.as(accessLog({ request: original, response, operation, requestId, milliseconds }), answer)
        })

        return Effect.zipRight(answered, handle(original, request, path, operation, requestId, exchange, fiber.currentDefaultServices))
      })
    }
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
