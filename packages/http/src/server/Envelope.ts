/**
 * The request envelope middleware: `X-Request-ID`, `X-Request-Deadline` and the body's
 * content type, checked once for every operation of the interface.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Deadline, Errors } from "@kassa/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { RequestEnvelope } from "../api/Envelope.js"
import * as RequestBody from "./RequestBody.js"

const withBody = new Set(["POST", "PUT", "PATCH"])

/**
 * What is wrong with `request`'s envelope (`now` the clock's time), as the error the interface
 * answers, or nothing.
 *
 * @since 0.1.0
 */
export const check = (request: HttpServerRequest.HttpServerRequest, now: number): Errors.BusinessError | undefined => {
  const requestId = request.headers["x-request-id"]
  if (requestId === undefined || requestId.length < 1 || requestId.length > 32) {
    return Errors.invalidRequest("X-Request-ID: required, 1..32 characters")
  }
  const deadlineText = request.headers["x-request-deadline"]
  if (deadlineText !== undefined) {
    if (deadlineText.length > 40 || Option.isNone(Deadline.parse(deadlineText, new Date(now)))) {
      return Errors.BusinessError.of(
        "invalidDeadline",
        "X-Request-Deadline: expected an RFC 3339 date-time or a relative value such as 30s, 1.5m, 500ms"
      )
    }
  }
  const contentType = request.headers["content-type"]
  if (withBody.has(request.method) && contentType !== undefined && !RequestBody.isJson(contentType)) {
    return Errors.invalidRequest(`Content-Type: expected application/json, got ${contentType}`)
  }
  return undefined
}

/** @since 0.1.0 @category layers */
export const layer = Layer.succeed(
  RequestEnvelope,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const problem = check(request, yield* Clock.currentTimeMillis)
    if (problem !== undefined) return yield* problem
  })
)
