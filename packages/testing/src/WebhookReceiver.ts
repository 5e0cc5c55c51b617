/**
 * A real HTTP receiver for webhook notifications, listening on 127.0.0.1 on a free port: it
 * records each request's raw body and headers and answers 200, or what it was told to answer
 * (a status, after a delay) for the next requests, all of them or those a predicate picks.
 *
 * Waiting for requests runs on the real clock, so it works under `TestClock`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** @since 0.1.0 @category models */
export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  /** Lower-case names, as Node gives them. */
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes received. */
  readonly body: Buffer
  readonly text: string
  /** The body parsed, or undefined when it is not JSON. */
  readonly json: any
  /** What the receiver answered. */
  readonly answeredStatus: number
  /** Real time, epoch ms. */
  readonly receivedAt: number
}

/** @since 0.1.0 @category models */
export interface Reply {
  readonly status: number
  /** Real milliseconds to wait before answering. */
  readonly delayMs?: number | undefined
  readonly body?: string | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** @since 0.1.0 @category models */
export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** The URL of the receiver's root path. */
  readonly url: string
  /** The URL of a path on the receiver (`urlFor("/a")`). */
  readonly urlFor: (path: string) => string
  /** Every request so far, oldest first. */
  readonly requests: Effect.Effect<ReadonlyArray<ReceivedRequest>>
  /**
   * The next requests (those `match` picks, when given) get these answers, one each, in order;
   * numbers are statuses answered at once. Later scripts queue behind earlier ones.
   */
  readonly answer: (replies: ReadonlyArray<Reply | number>, match?: (request: ReceivedRequest) => boolean) => Effect.Effect<void>
  /** What requests no script answers get (default 200). */
  readonly setDefault: (reply: Reply | number) => Effect.Effect<void>
  /** Forgets requests, scripts and the default. */
  readonly reset: Effect.Effect<void>
  /** The most requests that were waiting for their answers at once, so far. */
  readonly peakInFlight: Effect.Effect<number>
  /**
   * Waits (real time, default at most 20 s: suites run side by side on two cores) until `count` requests (that `match` picks) have
   * arrived; answers them. Fails with a defect on timeout, listing what did arrive.
   */
  readonly waitFor: (
    count: number,
    options?: { readonly match?: (request: ReceivedRequest) => boolean; readonly timeoutMs?: number }
  ) => Effect.Effect<ReadonlyArray<ReceivedRequest>>
}

/** @since 0.1.0 @category tags */
export class WebhookReceiver extends Context.Tag("kassa/testing/WebhookReceiver")<WebhookReceiver, Receiver>() {}

const asReply = (r: Reply | number): Reply => (typeof r === "number" ? { status: r } : r)

/** Real-time sleep, whatever clock the fiber has. */
const realSleep = (millis: number) => Effect.sleep(millis).pipe(Effect.withClock(Clock.make()))

/**
 * Starts a receiver for the scope's lifetime.
 *
 * @since 0.1.0 @category constructors
 */
export const make: Effect.Effect<Receiver, never, Scope.Scope> = Effect.gen(function*() {
  const received: Array<ReceivedRequest> = []
  let scripts: Array<{ readonly match: ((r: ReceivedRequest) => boolean) | undefined; readonly replies: Array<Reply> }> = []
  let fallback: Reply = { status: 200 }
  let inFlight = 0
  let peakInFlight = 0

  const pick = (request: ReceivedRequest): Reply => {
    for (const script of scripts) {
      if (script.replies.length > 0 && (script.match === undefined || script.match(request))) return script.replies.shift()!
    }
    return fallback
  }

  const server = http.createServer((req, res) => {
    inFlight++
    peakInFlight = Math.max(peakInFlight, inFlight)
    res.on("close", () => void inFlight--)
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const text = body.toString("utf8")
      let json: unknown = undefined
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value
      }
      const partial = { method: req.method ?? "", path: req.url ?? "", headers, body, text, json, receivedAt: Date.now() }
      const reply = pick({ ...partial, answeredStatus: 0 })
      received.push({ ...partial, answeredStatus: reply.status })
      const respond = () => {
        if (res.destroyed) return
        res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers })
        res.end(reply.body ?? "")
      }
      if (reply.delayMs !== undefined && reply.delayMs > 0) setTimeout(respond, reply.delayMs)
      else respond()
    })
  })

  const port = yield* Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  const origin = `http://127.0.0.1:${port}`

  const waitFor: Receiver["waitFor"] = (count, options = {}) =>
    Effect.gen(function*() {
      const deadline = Date.now() + (options.timeoutMs ?? 20_000)
      const select = () => (options.match === undefined ? [...received] : received.filter(options.match))
      while (true) {
        const got = select()
        if (got.length >= count) return got
        if (Date.now() > deadline) {
          return yield* Effect.dieMessage(
            `WebhookReceiver: waited for ${count} requests, got ${got.length}: ${
              got.map((r) => `${r.json?.eventType ?? r.path} → ${r.answeredStatus}`).join(", ")
            }`
          )
        }
        yield* realSleep(10)
      }
    })

  return {
    origin,
    url: `${origin}/`,
    urlFor: (path) => `${origin}${path.startsWith("/") ? path : `/${path}`}`,
    requests: Effect.sync(() => [...received]),
    answer: (replies, match) => Effect.sync(() => void scripts.push({ match, replies: replies.map(asReply) })),
    setDefault: (reply) => Effect.sync(() => void (fallback = asReply(reply))),
    reset: Effect.sync(() => {
      received.length = 0
      scripts = []
      fallback = { status: 200 }
      peakInFlight = inFlight
    }),
    peakInFlight: Effect.sync(() => peakInFlight),
    waitFor
  } satisfies Receiver
})

/** @since 0.1.0 @category layers */
export const layer: Layer.Layer<WebhookReceiver> = Layer.scoped(WebhookReceiver, make)
