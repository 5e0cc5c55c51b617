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
import * as LogLevel from "effect/LogLevel"
import type * as Logging from "./Logging.js"

/** What a request's line says. @since 0.1.0 @category models */
export interface Entry {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly response: HttpServerResponse.HttpServerResponse
  readonly operation: string
  readonly requestId: string
  readonly milliseconds: number
}

/**
 * Writes a request's line, of the request's fiber `fiberId`: the JSON lines at once (the
 * answer's end need not run an effect for them), the logger's as the effect it answers.
 *
 * @since 0.1.0 @category models
 */
export type Write = (entry: Entry, fiberId: number) => Effect.Effect<void> | undefined

/**
 * Writes a request's line. Present when the server writes the lines (the binary does; tests and
 * embedders choose).
 *
 * @since 0.1.0 @category tags
 */
export class AccessLog extends Context.Tag("kassa/http/AccessLog")<AccessLog, Write>() {}

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

/** The line's annotations. */
const annotations = (entry: Entry): Record<string, string | number> => {
  const source = entry.request.source
  const party = typeof source === "object" && source !== null ? callers.get(source) : undefined
  const code = businessCode(entry.response)
  return {
    operationId: entry.operation,
    status: entry.response.status,
    durationMs: Math.round(entry.milliseconds * 10) / 10,
    requestId: entry.requestId,
    ...(party === undefined ? {} : { party }),
    ...(code === undefined ? {} : { code })
  }
}

/** The line through the fiber's logger (any format, an embedder's own logger). */
const viaLogger: Write = (entry) => Effect.annotateLogs(Effect.logInfo("request"), annotations(entry))

// Lines of one turn of the event loop go to stdout in one write (a system call each otherwise);
// the process's exit writes what is left.
let pending: Array<string> = []
let exitHooked = false
const flush = () => {
  if (pending.length === 0) return
  const lines = pending.join("")
  pending = []
  process.stdout.write(lines)
}
const writeLine = (line: string) => {
  if (pending.push(line) > 1) return
  if (!exitHooked) {
    exitHooked = true
    process.once("exit", flush)
  }
  setImmediate(flush)
}

/**
 * The line as `Logger.json` writes it, straight to stdout: one line per request is the busiest
 * logging there is, and Effect's logger machinery (annotations in a fiber ref, the structured
 * message, a circular-safe stringify) cost more than the rest of the line.
 */
const jsonLine: Write = (entry, fiberId) => {
  writeLine(
    JSON.stringify({
      message: "request",
      logLevel: "INFO",
      timestamp: new Date().toISOString(),
      annotations: annotations(entry),
      spans: {},
      fiberId: `#${fiberId}`
    }) + "\n"
  )
  return undefined
}

/** Lines through Effect's logger. @since 0.1.0 @category layers */
export const layer = Layer.succeed(AccessLog, viaLogger)

/**
 * The binary's lines for its log settings: none below info, JSON lines straight to stdout, or
 * the readable form through the logger.
 *
 * @since 0.1.0 @category layers
 */
export const layerFor = (settings: Logging.LogSettings): Layer.Layer<never> | Layer.Layer<AccessLog> =>
  LogLevel.greaterThan(settings.level, LogLevel.Info)
    ? Layer.empty
    : Layer.succeed(AccessLog, settings.format === "json" ? jsonLine : viaLogger)
