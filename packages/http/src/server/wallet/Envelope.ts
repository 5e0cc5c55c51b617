/**
 * The wallet and card-token request envelope: `X-Request-ID`, `X-Request-Deadline` and the body's
 * content type, refused as 400 `BadRequest` naming the header.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Deadline, Errors } from "@kassa/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WalletEnvelope } from "../../api/wallet/Envelope.js"
import * as RequestBody from "../RequestBody.js"

const withBody = new Set(["POST", "PUT", "PATCH"])

/** @since 0.1.0 @category layers */
export const layer = Layer.succeed(
  WalletEnvelope,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = request.headers["x-request-id"]
    if (requestId === undefined) {
      return yield* Errors.InvalidParameter.of("NotFound", "X-Request-ID", "Missing required header")
    }
    if (requestId.length < 1 || requestId.length > 32) {
      return yield* Errors.InvalidParameter.of("WrongLength", "X-Request-ID", "Expected 1..32 characters")
    }
    const deadlineText = request.headers["x-request-deadline"]
    if (deadlineText !== undefined) {
      if (deadlineText.length < 1 || deadlineText.length > 40) {
        return yield* Errors.InvalidParameter.of("WrongLength", "X-Request-Deadline", "Expected 1..40 characters")
      }
      const now = new Date(yield* Clock.currentTimeMillis)
      if (Option.isNone(Deadline.parse(deadlineText, now))) {
        return yield* Errors.InvalidParameter.of(
          "SchemaViolated",
          "X-Request-Deadline",
          "Expected an RFC 3339 date-time or a relative value such as 30s, 1.5m, 500ms"
        )
      }
    }
    const contentType = request.headers["content-type"]
    if (withBody.has(request.method) && contentType !== undefined && !RequestBody.isJson(contentType)) {
      return yield* Errors.InvalidParameter.of("WrongType", "Content-Type", "Expected application/json")
    }
  })
)
