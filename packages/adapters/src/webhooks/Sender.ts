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
import { urlToHttpOptions } from "node:url"
import type { PolicyOptions } from "@kassa/core/webhook/AddressPolicy"
import { refusedAddress, refusedLiteral, type Resolver, systemResolver } from "./Guard.js"

/** What a notification is POSTed with. @since 0.1.0 */
export const CONTENT_TYPE = "application/json; charset=utf-8"

/** The `Content-Signature` value of a signature. @since 0.1.0 */
export const signatureHeader = (digest: string) => `alg=RS256; digest=${digest}`

/** Who sends. */
const USER_AGENT = "Kassa-Webhooks/0.1"

/** Connections to one receiver's host at once: a merchant's server is not a load balancer's. @since 0.1.0 */
export const MAX_SOCKETS_PER_HOST = 32

/** @since 0.1.0 */
export interface SendOptions {
  readonly timeoutMs: number
  readonly allowPrivateNetworks: boolean
  readonly resolver?: Resolver | undefined
}

/**
 * Keep-alive agents, each built when a notification first needs it: building the `https` one
 * loads Node's `https` and `tls`, which a start need not wait for (the server bundle loads those
 * modules on first use). An idle connection is closed after 4 s, before the 5 s after which
 * common servers (Node's among them) close theirs, so a reused connection is rarely a dead one.
 */
const agents = (maxSockets: number) => {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4_000, scheduling: "lifo" as const }
  let plain: http.Agent | undefined
  let secure: https.Agent | undefined
  return {
    of: (tls: boolean): http.Agent => (tls ? (secure ??= new https.Agent(options)) : (plain ??= new http.Agent(options))),
    destroy: () => {
      plain?.destroy()
      secure?.destroy()
    }
  }
}

/** @since 0.1.0 What came back: a status, or why there was none. */
export interface SendResult {
  readonly statusCode?: number | undefined
  readonly error?: string | undefined
  readonly durationMs: number
}

/** A lookup that refuses hosts resolving to forbidden addresses: it runs for every new connection. */
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
 * Where a webhook's URL leads, parsed once: the request's options, or why nothing is sent to it.
 * What a URL's text says (its scheme, an IP literal host) never changes; a host name's addresses
 * may, so those are checked on every new connection (`guardedLookup`).
 */
type Target =
  | { readonly _tag: "Send"; readonly secure: boolean; readonly options: http.RequestOptions }
  | { readonly _tag: "Refused"; readonly error: string }

const targetOf = (url: string, policy: PolicyOptions): Target => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { _tag: "Refused", error: "invalid URL" }
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { _tag: "Refused", error: "only http and https URLs are allowed" }
  const refused = refusedLiteral(parsed.hostname, policy)
  if (refused !== undefined) return { _tag: "Refused", error: `refused: ${refused}` }
  return { _tag: "Send", secure: parsed.protocol === "https:", options: urlToHttpOptions(parsed) }
}

/** A sender keeps this many webhooks' parsed URLs. */
const TARGETS_KEPT = 10_000

/**
 * POSTs `body` to `target` and calls `done` once (a status line arrived, or the reason there was
 * none); answers a function that cancels it (the fiber was interrupted).
 */
const start = (
  target: Extract<Target, { _tag: "Send" }>,
  body: Buffer,
  headers: http.OutgoingHttpHeaders,
  timeoutMs: number,
  agent: http.Agent,
  lookup: LookupFunction,
  done: (result: SendResult) => void
): () => void => {
  const started = Date.now()
  let settled = false
  let request: http.ClientRequest
  const finish = (result: Omit<SendResult, "durationMs">) => {
    if (settled) return
    settled = true
    clearTimeout(timer)
    done({ ...result, durationMs: Date.now() - started })
  }
  const open = (mayRetry: boolean) => {
    const r = (target.secure ? https : http).request({ ...target.options, method: "POST", agent, headers, lookup })
    request = r
    r.on("response", (response) => {
      finish({ statusCode: response.statusCode })
      // The answer's body is not wanted: drained, so that the connection can serve the next one.
      response.on("error", () => undefined)
      response.resume()
    })
    r.on("error", (error: NodeJS.ErrnoException) => {
      // A kept-alive connection the receiver closed meanwhile: once more, on a new connection
      // (delivery is at least once; a rare duplicate is allowed, a needless 30 s retry is not).
      if (mayRetry && !settled && r.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE")) return open(false)
      finish({ error: error.code === "EWEBHOOKREFUSED" ? `refused: ${error.message}` : error.message || String(error.code) })
    })
    r.end(body)
  }
  // Timers of one duration share one list in Node: setting and clearing one is a constant-time step.
  const timer = setTimeout(() => {
    finish({ error: `no answer within ${timeoutMs} ms` })
    request.destroy()
  }, timeoutMs)
  open(true)
  return () => {
    finish({ error: "interrupted" })
    request.destroy()
  }
}

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
export const make = (options: SendOptions & { readonly maxSockets: number }): Effect.Effect<Sender, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => agents(Math.min(options.maxSockets, MAX_SOCKETS_PER_HOST))), (a) => Effect.sync(a.destroy)),
    (kept): Sender => {
      const policy = { allowPrivateNetworks: options.allowPrivateNetworks }
      const lookup = guardedLookup(options.resolver ?? systemResolver, policy)
      const targets = new Map<string, Target>()
      const targetFor = (url: string) => {
        let target = targets.get(url)
        if (target === undefined) {
          if (targets.size >= TARGETS_KEPT) targets.clear()
          target = targetOf(url, policy)
          targets.set(url, target)
        }
        return target
      }
      return {
        post: (url, body, digest) =>
          Effect.async<SendResult>((resume) => {
            const target = targetFor(url)
            if (target._tag === "Refused") return resume(Effect.succeed({ error: target.error, durationMs: 0 }))
            const headers = {
              "content-type": CONTENT_TYPE,
              "content-signature": signatureHeader(digest),
              "user-agent": USER_AGENT,
              "content-length": String(body.length)
            }
            const cancel = start(target, body, headers, options.timeoutMs, kept.of(target.secure), lookup, (result) =>
              resume(Effect.succeed(result)))
            return Effect.sync(cancel)
          })
      }
    }
  )
