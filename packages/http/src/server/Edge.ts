/**
 * What every request meets before and after its operation, whichever path serves it (HttpApi's
 * router through `WireContract`, or the lean router): the drain, the body's size and reading,
 * the NUL and depth limits, the deadline, `X-Request-ID` replay, statement counting, the
 * wire contract's own answers, and, once answered, metrics, replay's record and the access log.
 * Written once, so that both paths answer alike.
 *
 * @since 0.1.0
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Statements } from "@kassa/adapters"
import { Deadline, Errors, RequestDeadline } from "@kassa/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
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

/** @since 0.1.0 */
export const JSON_TYPE = "application/json; charset=utf-8"

/** @since 0.1.0 */
export const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status, contentType: JSON_TYPE })

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

/** A handled request: the response it answers. */
type Handled<E, R> = Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

/**
 * Runs `serve` with the body read at the edge: refused when too large, malformed or holding what
 * `InputLimits` refuses; otherwise handed over (with its text), parsed once.
 */
const withBody = <E, R>(
  request: HttpServerRequest.HttpServerRequest,
  refuse: (message: string) => HttpServerResponse.HttpServerResponse,
  serve: (request: HttpServerRequest.HttpServerRequest, body: string) => Handled<E, R>
): Handled<E, R> =>
  // a failed read is the platform's own: a defect, answered below as it answers those (one
  // match: `Effect.orDie` then `Effect.flatMap` would cost two steps more)
  Effect.matchEffect(RequestBody.read(request, maxBodyBytes), { onFailure: Effect.die, onSuccess: (bytes) => {
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
  } })

const late = () => json(504, { message: "Processing time exceeded the request deadline" })

/**
 * `handled` bounded by the request's deadline `at` (`now` the clock's time, before it): at the
 * deadline a request that has committed nothing is stopped; a committing one is left to finish
 * (the timer then never answers).
 */
const withDeadline = <E, R>(at: number, now: number, handled: Handled<E, R>): Handled<E, R> => {
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

/**
 * The answer to what went wrong that the wire contract answers itself, or the failure as it is
 * (logged with the request's id: the fiber may have failed before its annotation was set).
 */
const recover = (original: HttpServerRequest.HttpServerRequest, requestId: string) => (cause: Cause.Cause<unknown>) => {
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
    Effect.annotateLogs("requestId", requestId),
    Effect.as(json(500, { message: "Unexpected failure; contact support" }))
  )
}

/**
 * One request at the edge: as the client sent it (`original`), as the routes see it (`request`:
 * `/v1` served by `/v2`), its operation and its exchange with replay.
 *
 * @since 0.1.0 @category models
 */
export interface Started {
  readonly original: HttpServerRequest.HttpServerRequest
  readonly request: HttpServerRequest.HttpServerRequest
  readonly path: string
  readonly operation: string
  readonly requestId: string
  readonly started: number
  readonly exchange: RequestReplay.Exchange
}

/** A request the edge lets through: its handling, and the recovery of its failures. */
interface Prepared<R> {
  readonly handled: Handled<unknown, R>
  readonly recover: (cause: Cause.Cause<unknown>) => Handled<unknown, R>
}

/**
 * The operation of a request, served: the request as read (its body read at the edge) to the
 * operation's answer.
 *
 * @since 0.1.0 @category models
 */
export type Operation<E, R> = (read: HttpServerRequest.HttpServerRequest) => Handled<E, R>

/**
 * What sees the answer go out, done: the answer to send, and the effect writing the access
 * log's line when it is the logger's (the JSON line is written already).
 *
 * @since 0.1.0 @category models
 */
export interface Finished {
  readonly answer: HttpServerResponse.HttpServerResponse
  readonly log: Effect.Effect<void> | undefined
}

/**
 * What becomes of a request `Edge.serve` runs: its answer, or the failure the edge does not
 * answer itself (an error the operation's own, left to its encoder, or an interruption).
 *
 * @since 0.1.0 @category models
 */
export interface Outcome<R> {
  readonly onSuccess: (response: HttpServerResponse.HttpServerResponse) => Effect.Effect<void, never, R>
  readonly onFailure: (cause: Cause.Cause<unknown>) => Effect.Effect<void, never, R>
}

/**
 * The edge of a server: what `start` begins, `handle` runs (everything up to the answer, with
 * errors the operation's own left to its encoder; the request's id set as the fiber's `requestId`
 * log annotation), `serve` the same to its `Outcome`, in one match, the annotation left to the
 * operation (for one that sets it along with its principal, `Auth.servingMerchant`), and
 * `answer` finishes (what sees the answer go out; `finish` the same outside of an effect, for
 * the request's fiber `fiberId`).
 *
 * @since 0.1.0 @category models
 */
export interface Edge {
  readonly start: (
    original: HttpServerRequest.HttpServerRequest,
    request: HttpServerRequest.HttpServerRequest,
    path: string,
    operation?: string
  ) => Started
  readonly handle: <E, R>(started: Started, operation: Operation<E, R>, now: number) => Handled<unknown, R>
  readonly serve: <E, R>(started: Started, operation: Operation<E, R>, now: number, outcome: Outcome<R>) => Effect.Effect<void, never, R>
  readonly answer: (started: Started, response: HttpServerResponse.HttpServerResponse) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  readonly finish: (started: Started, response: HttpServerResponse.HttpServerResponse, fiberId: number) => Finished
}

// Made when the module loads, so the startup snapshot holds it.
const operationOf = resolver(KassaApi)

/**
 * The edge over the server's services. Every request goes through it: plain functions around
 * the few Effect operations it needs.
 *
 * @since 0.1.0 @category constructors
 */
export const make = Effect.gen(function*() {
  const metrics = yield* Metrics
  const replaying = yield* RequestReplay.make
  // Each service or fiber ref a request sets copies its whole context: only what is used.
  const counting = Option.isSome(yield* Effect.serviceOption(Statements.StatementCounts))
  const accessLog = Option.getOrUndefined(yield* Effect.serviceOption(AccessLog.AccessLog))
  const draining = Option.getOrUndefined(yield* Effect.serviceOption(Draining))

  const start: Edge["start"] = (original, request, path, operation) => ({
    original,
    request,
    path,
    operation: operation ?? operationOf(request.method, path),
    requestId: original.headers["x-request-id"] ?? "",
    started: performance.now(),
    exchange: { answered: undefined }
  })

  // A request's answer at once (the edge refuses it), or its handling and the recovery of its failures.
  const prepare = <E, R>(
    started: Started,
    operation: Operation<E, R>,
    now: number
  ): HttpServerResponse.HttpServerResponse | Prepared<R> => {
    const { original, path, request } = started
    // A request on a connection still open while the server drains: retry elsewhere.
    if (draining?.isDraining() === true && !path.startsWith("/health")) {
      return json(503, { message: "The server is shutting down; retry the request" }).pipe(
        HttpServerResponse.setHeaders({ "retry-after": String(retryAfterSeconds), connection: "close" })
      )
    }

    // The wallet and card-token interfaces answer 400 in their own shape.
    const wallet = WalletWire.isWalletPath(path)
    const refuse = wallet ? WalletWire.invalidBody : invalidRequest
    const length = Number(original.headers["content-length"] ?? 0)
    if (length > maxBodyBytes) return refuse(`Request body exceeds ${maxBodyBytes} bytes`)
    const urlProblem = InputLimits.urlProblem(original.url)
    if (urlProblem?._tag === "Path") return json(404, { message: "No resource has a NUL character in its path" })
    if (urlProblem?._tag === "Query") {
      return wallet ? WalletWire.badRequest("SchemaViolated", "query", urlProblem.message) : invalidRequest(urlProblem.message)
    }

    const counted = counting ? Statements.withWork(started.operation) : undefined
    let bounded = (handled: Handled<E, R>): Handled<E, R> => handled
    const deadlineText = original.headers["x-request-deadline"]
    if (deadlineText !== undefined && deadlineText.length <= 40) {
      const deadline = Deadline.parse(deadlineText, new Date(now))
      if (Option.isSome(deadline)) {
        const at = deadline.value.getTime()
        // Past the deadline nothing runs: the answer must not depend on how fast a handler is.
        if (at <= now) return late()
        bounded = (handled) => withDeadline(at, now, handled)
      }
    }

    // The body is read once, before anything runs; replay wraps the deadline: a retry gets
    // the answer that went out, a 504 as well.
    const serve = (read: HttpServerRequest.HttpServerRequest, body: string): Handled<E, R> => {
      const run = operation(read)
      return replaying(read, original.url, body, bounded(counted === undefined ? run : counted(run)), started.exchange)
    }
    const handled = RequestBody.present(request) ? withBody(request, refuse, serve) : serve(request, "")

    return {
      handled: (wallet ? Effect.catchAllCause(handled, WalletWire.recover(started.operation)) : handled) as Handled<unknown, R>,
      recover: recover(original, started.requestId) as (cause: Cause.Cause<unknown>) => Handled<unknown, R>
    }
  }

  const handle: Edge["handle"] = (started, operation, now) => {
    const prepared = prepare(started, operation, now)
    if (HttpServerResponse.isServerResponse(prepared)) return Effect.succeed(prepared)
    // The request id annotates the logs of the request's fiber, which ends with the request:
    // `Effect.annotateLogs` around it would cost a scope of its own.
    return Effect.zipRight(
      FiberRef.update(FiberRef.currentLogAnnotations, HashMap.set("requestId", started.requestId as unknown)),
      Effect.catchAllCause(prepared.handled, prepared.recover)
    )
  }

  // One match for the answer and the failures: a recovery, then the caller's match, cost a step more.
  const serve: Edge["serve"] = (started, operation, now, outcome) => {
    const prepared = prepare(started, operation, now)
    if (HttpServerResponse.isServerResponse(prepared)) return outcome.onSuccess(prepared)
    return Effect.matchCauseEffect(prepared.handled, {
      onFailure: (cause) => Effect.matchCauseEffect(prepared.recover(cause), outcome),
      onSuccess: outcome.onSuccess
    })
  }

  const finish: Edge["finish"] = (started, response, fiberId) => {
    const milliseconds = performance.now() - started.started
    metrics.record(started.operation, response.status, milliseconds / 1000)
    started.exchange.answered?.(response)
    const answer = response.body._tag === "Uint8Array" && response.body.contentType.startsWith("application/json")
      ? HttpServerResponse.setBody(response, HttpBody.uint8Array(response.body.body, JSON_TYPE))
      : response
    const log = accessLog?.(
      { request: started.original, response, operation: started.operation, requestId: started.requestId, milliseconds },
      fiberId
    )
    return { answer, log }
  }

  const answer: Edge["answer"] = (started, response) =>
    Effect.withFiberRuntime((fiber) => {
      const { answer, log } = finish(started, response, fiber.id().id)
      return log === undefined ? Effect.succeed(answer) : Effect.as(log, answer)
    })

  const edge: Edge = { start, handle, serve, answer, finish }
  return edge
})
