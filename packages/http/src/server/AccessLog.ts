/**
 * One log line per request: its operation, status, duration, `X-Request-ID`, the caller's party
 * (or `operator`) and, on a 4xx, the business error code of the answer. Never a header value
 * other than the request id, never a body.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Principal } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Present when the server writes the lines (the binary does; tests and embedders choose). @since 0.1.0 @category tags */
export class AccessLog extends Context.Tag("kassa/http/AccessLog")<AccessLog, true>() {}

/** @since 0.1.0 @category layers */
export const layer = Layer.succeed(AccessLog, true)

// Authentication runs deep inside the request's handler, the line is written around it: the
// caller is passed by the Node request under both (a rewritten URL makes a new request object
// over the same source), with nothing added to the request's context.
const callers = new WeakMap<object, string>()

/** Remembers who makes `request`, for its line. @since 0.1.0 */
export const noteCaller = (request: HttpServerRequest.HttpServerRequest, principal: Principal.Principal): void => {
  if (typeof request.source === "object" && request.source !== null) {
    callers.set(request.source, principal._tag === "Operator" ? "operator" : principal.partyID)
  }
}

const decoder = new TextDecoder()

/** The `code` of a 4xx JSON answer ({code, message}), if it has one. */
const businessCode = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  if (response.status < 400 || response.status >= 500 || response.body._tag !== "Uint8Array") return undefined
  try {
    const code = (JSON.parse(decoder.decode(response.body.body)) as { readonly code?: unknown }).code
    return typeof code === "string" ? code : undefined
  } catch {
    return undefined
  }
}

/** @since 0.1.0 */
export const log = (entry: {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly response: HttpServerResponse.HttpServerResponse
  readonly operation: string
  readonly requestId: string
  readonly milliseconds: number
}) => {
  const source = entry.request.source
  const party = typeof source === "object" && source !== null ? callers.get(source) : undefined
  const code = businessCode(entry.response)
  return Effect.logInfo("request").pipe(
    Effect.annotateLogs({
      operationId: entry.operation,
      status: entry.response.status,
      durationMs: Math.round(entry.milliseconds * 10) / 10,
      requestId: entry.requestId,
      ...(party === undefined ? {} : { party }),
      ...(code === undefined ? {} : { code })
    })
  )
}
