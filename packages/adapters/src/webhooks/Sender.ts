/**
 * The signed HTTP sender: one POST of a notification with node:http / node:https, the exact body
 * bytes with their signature, a deadline for the answer, no redirect followed, and only to
 * addresses the SSRF guard allows (with the development allowance when given), checked on the
 * addresses actually connected to. Connections are kept alive between notifications to the same
 * receiver, at most `MAX_SOCKETS_PER_HOST` to one host.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import type { PolicyOptions } from "@kassa/core/webhook/AddressPolicy"
import { refusedAddress, refusedLiteral, type Resolver, systemResolver } from "./Guard.js"

/** What a notification is POSTed with. @since 0.1.0 */
export const CONTENT_TYPE = "application/json; charset=utf-8"

/** The `Content-Signature` value of a signature. @since 0.1.0 */
export const signatureHeader = (digest: string) => `alg=RS256; digest=${digest}`

/** Connections to one receiver's host at once: a merchant's server is not a load balancer's. @since 0.1.0 */
export const MAX_SOCKETS_PER_HOST = 32

/** @since 0.1.0 */
export interface SendOptions {
  readonly timeoutMs: number
  readonly allowPrivateNetworks: boolean
  readonly resolver?: Resolver | undefined
  /** Keep-alive agents (`agents()`); without them every POST opens its own connection. */
  readonly agents?: Agents | undefined
}

/** @since 0.1.0 */
export interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

/**
 * Keep-alive agents. An idle connection is closed after 4 s, before the 5 s after which common
 * servers (Node's among them) close theirs, so a reused connection is rarely a dead one.
 *
 * @since 0.1.0
 */
export const agents = (maxSockets: number): Agents => {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4_000, scheduling: "lifo" as const }
  return { http: new http.Agent(options), https: new https.Agent(options) }
}

/** @since 0.1.0 What came back: a status, or why there was none. */
export interface SendResult {
  readonly statusCode?: number | undefined
  readonly error?: string | undefined
  readonly durationMs: number
}

/** @since 0.1.0 A lookup that refuses hosts resolving to forbidden addresses. */
const guardedLookup = (resolver: Resolver, policy: PolicyOptions): LookupFunction =>
  (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        const family = options.family
        const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`)
          error.code = "ENOTFOUND"
          return callback(error, "")
        }
        const refused = refusedAddress(hostname, addresses, policy)
        if (refused !== undefined) {
          const error: NodeJS.ErrnoException = new Error(refused)
          error.code = "EWEBHOOKREFUSED"
          return callback(error, "")
        }
        if (options.all === true) return callback(null, usable.map((a) => ({ address: a.address, family: a.family })))
        callback(null, usable[0]!.address, usable[0]!.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, "")
    )
  }

/**
 * POSTs `body` to `url`; resolves (never rejects) once a status line arrived, or with the
 * reason there was none. `signal` aborts it (the fiber was interrupted).
 *
 * @since 0.1.0
 */
export const send = (
  url: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  options: SendOptions,
  signal?: AbortSignal
): Promise<SendResult> =>
  sendOnce(url, body, headers, options, signal, true)

const sendOnce = (
  url: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
  options: SendOptions,
  signal: AbortSignal | undefined,
  mayRetry: boolean
): Promise<SendResult> =>
  new Promise((resolve) => {
    const started = Date.now()
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      resolve({ ...result, durationMs: Date.now() - started })
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return finish({ error: "invalid URL" })
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") return finish({ error: "only http and https URLs are allowed" })
    const policy = { allowPrivateNetworks: options.allowPrivateNetworks }
    const refused = refusedLiteral(target.hostname, policy)
    if (refused !== undefined) return finish({ error: `refused: ${refused}` })
    const secure = target.protocol === "https:"
    const agent = options.agents === undefined ? false : secure ? options.agents.https : options.agents.http
    const request = (secure ? https : http).request(target, {
      method: "POST",
      agent,
      headers: { ...headers, "content-length": String(body.length), ...(agent === false ? { connection: "close" } : {}) },
      lookup: guardedLookup(options.resolver ?? systemResolver, policy)
    })
    timer = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs} ms` })
      request.destroy()
    }, options.timeoutMs)
    request.on("response", (response) => {
      finish({ statusCode: response.statusCode })
      // The answer's body is not wanted: drained, so that the connection can serve the next one.
      response.on("error", () => undefined)
      response.resume()
      if (agent === false) setImmediate(() => request.destroy())
    })
    request.on("error", (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the receiver closed meanwhile: once more, on a new connection
      // (delivery is at least once; a rare duplicate is allowed, a needless 30 s retry is not).
      if (mayRetry && !settled && request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
        settled = true
        if (timer !== undefined) clearTimeout(timer)
        return void sendOnce(url, body, headers, options, signal, false).then(resolve)
      }
      finish({ error: error.code === "EWEBHOOKREFUSED" ? `refused: ${error.message}` : error.message || String(error.code) })
    })
    if (signal !== undefined) {
      if (signal.aborted) {
        finish({ error: "interrupted" })
        request.destroy()
        return
      }
      signal.addEventListener("abort", () => {
        finish({ error: "interrupted" })
        request.destroy()
      }, { once: true })
    }
    request.end(body)
  })

/** @since 0.1.0 @category models */
export interface Sender {
  /** POSTs the notification `body` signed with `digest`; never fails (a failure is a result). */
  readonly post: (url: string, body: Buffer, digest: string) => Effect.Effect<SendResult>
}

/**
 * A sender whose keep-alive agents live as long as the scope, with at most `maxSockets`
 * connections (capped at `MAX_SOCKETS_PER_HOST`) to one host.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (
  options: Omit<SendOptions, "agents"> & { readonly maxSockets: number }
): Effect.Effect<Sender, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => agents(Math.min(options.maxSockets, MAX_SOCKETS_PER_HOST))), (a) =>
      Effect.sync(() => {
        a.http.destroy()
        a.https.destroy()
      })),
    (kept): Sender => ({
      post: (url, body, digest) =>
        Effect.async<SendResult>((resume) => {
          const controller = new AbortController()
          void send(url, body, {
            "content-type": CONTENT_TYPE,
            "content-signature": signatureHeader(digest),
            "user-agent": "Kassa-Webhooks/0.1"
          }, { ...options, agents: kept }, controller.signal).then(
            (result) => resume(Effect.succeed(result)),
            (error) => resume(Effect.succeed({ error: `could not send: ${String(error)}`, durationMs: 0 }))
          )
          return Effect.sync(() => controller.abort())
        })
    })
  )
