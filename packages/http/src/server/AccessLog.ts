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
// caller is passed on the Node request under both (a rewritten URL makes a new request object
// over the same source), with nothing added to the request's context. A property of the
// request's own, not a WeakMap's entry: every request sets one.
const callerKey = Symbol("kassa/http/AccessLog/caller")

const callerOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const source = request.source
  return typeof source === "object" && source !== null ? (source as { [callerKey]?: string })[callerKey] : undefined
}

/** Remembers who makes `request`, for its line. @since 0.1.0 */
export const noteCaller = (request: HttpServerRequest.HttpServerRequest, principal: Principal.Principal): void => {
  if (typeof request.source === "object" && request.source !== null) {
    ;(request.source as { [callerKey]?: string })[callerKey] = principal._tag === "Operator" ? "operator" : principal.partyID
  }
}

const decoder = new TextDecoder()

/** The `code` of a 4xx JSON answer ({code, message}, as bytes or as text), if it has one. */
const businessCode = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  if (response.status < 400 || response.status >= 500) return undefined
  const body = response.body
  const text = body._tag === "Uint8Array" ? decoder.decode(body.body) : body._tag === "Raw" && typeof body.body === "string" ? body.body : undefined
  if (text === undefined) return undefined
  try {
    const code = (JSON.parse(text) as { readonly code?: unknown }).code
    return typeof code === "string" ? code : undefined
  } catch {
    return undefined
  }
}

/** The line's annotations. */
const annotations = (entry: Entry): Record<string, string | number> => {
  const party = callerOf(entry.request)
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

// Lines go to stdout in one write every few milliseconds (a system call each otherwise); the
// process's exit writes what is left.
const flushMs = 20
const flushBytes = 64 * 1024
let pending = ""
let timer: ReturnType<typeof setTimeout> | undefined
let exitHooked = false
const flush = () => {
  if (timer !== undefined) clearTimeout(timer)
  timer = undefined
  if (pending.length === 0) return
  const lines = pending
  pending = ""
  process.stdout.write(lines)
}
const writeLine = (line: string) => {
  if (!exitHooked) {
    exitHooked = true
    process.once("exit", flush)
  }
  pending += line
  if (pending.length >= flushBytes) flush()
  else if (timer === undefined) timer = setTimeout(flush, flushMs).unref()
}

// The line's time, to the millisecond: formatted once per millisecond.
let lastMillis = -1
let lastTimestamp = ""
const timestampAt = (millis: number): string => {
  if (millis !== lastMillis) {
    lastMillis = millis
    lastTimestamp = new Date(millis).toISOString()
  }
  return lastTimestamp
}

/**
 * The JSON line of a request, as `Logger.json` writes it (the keys in its order), at `millis`.
 *
 * @since 0.1.0
 */
export const jsonLineOf = (entry: Entry, fiberId: number, millis: number): string => {
  const party = callerOf(entry.request)
  const code = businessCode(entry.response)
  return `{"message":"request","logLevel":"INFO","timestamp":"${timestampAt(millis)}","annotations":{"operationId":${
    JSON.stringify(entry.operation)
  },"status":${entry.response.status},"durationMs":${JSON.stringify(Math.round(entry.milliseconds * 10) / 10)},"requestId":${
    JSON.stringify(entry.requestId)
  }${party === undefined ? "" : `,"party":${JSON.stringify(party)}`}${
    code === undefined ? "" : `,"code":${JSON.stringify(code)}`
  }},"spans":{},"fiberId":"#${fiberId}"}\n`
}

/**
 * The line as `Logger.json` writes it, straight to stdout: one line per request is the busiest
 * logging there is, and Effect's logger machinery (annotations in a fiber ref, the structured
 * message, a circular-safe stringify) cost more than the rest of the line.
 */
const jsonLine: Write = (entry, fiberId) => {
  writeLine(jsonLineOf(entry, fiberId, Date.now()))
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
