/**
 * The lean router: the hot operations of the interface served straight from Node's request,
 * without HttpApi's router, middleware chain and per-request contexts, through the same edge
 * (`Edge`), the same schemas, handlers and error table. Anything else (another route, a path it
 * does not read plainly: percent-escapes, `;`, a trailing slash) is left to HttpApi.
 *
 * @since 0.1.0
 */
import type * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Authenticator, Now } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { IncomingMessage, ServerResponse } from "node:http"
import { KassaApi } from "../../api/KassaApi.js"
import * as Edge from "../Edge.js"
import * as Invoices from "../handlers/Invoices.js"
import * as Payments from "../handlers/Payments.js"
import * as Refunds from "../handlers/Refunds.js"
import * as Endpoint from "./Endpoint.js"
import * as LeanRequest from "./Request.js"

/**
 * The operations served: the requests of a payment's life and the reads clients poll.
 *
 * @since 0.1.0
 */
export const operations = [
  "createInvoice",
  "getInvoiceByID",
  "getInvoiceEvents",
  "createPayment",
  "getPaymentByID",
  "createRefund",
  "createPaymentResource"
] as const

/**
 * The program answering one Node request, or `undefined` for a request the router leaves to
 * HttpApi. The program writes the answer itself.
 *
 * @since 0.1.0 @category models
 */
export type Route = (request: IncomingMessage, response: ServerResponse) => Effect.Effect<void> | undefined

/** @since 0.1.0 @category tags */
export class LeanRouter extends Context.Tag("kassa/http/LeanRouter")<LeanRouter, Route>() {}

/** A hot operation's endpoint and how its path is read. */
export interface Path {
  readonly name: (typeof operations)[number]
  readonly endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
  readonly pattern: RegExp
  readonly params: ReadonlyArray<string>
}

interface Entry extends Path {
  readonly served: Endpoint.Served
}

// What a path parameter may hold to be read plainly, as HttpApi's router reads it.
const segment = "([^/%;#?]+)"

const pathOf = (name: Path["name"], endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps): Path => {
  const params: Array<string> = []
  const source = endpoint.path.split("/").map((s) => {
    if (!s.startsWith(":")) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    params.push(s.slice(1))
    return segment
  }).join("/")
  // the contract's paths are under `/v2`, also served at `/v1`
  return { name, endpoint, pattern: new RegExp(`^/v[12]${source.slice(3)}$`), params }
}

/**
 * The hot operations' paths, read from the contract's groups when the module loads, so the
 * startup snapshot holds them: `HttpApi.reflect`, which also merges every endpoint's error
 * schemas, took about 10 ms of every start.
 *
 * @since 0.1.0 @category models
 */
export const paths: ReadonlyArray<Path> = (() => {
  const contract = new Map<string, HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>()
  for (const group of Object.values((KassaApi as unknown as HttpApi.HttpApi.AnyWithProps).groups)) {
    for (const endpoint of Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.HttpApiEndpoint.AnyWithProps>) {
      contract.set(endpoint.name, endpoint)
    }
  }
  return operations.map((name) => pathOf(name, contract.get(name)!))
})()

const queryOf = (search: string): Record<string, string | Array<string>> => {
  const out: Record<string, string | Array<string>> = {}
  if (search === "") return out
  for (const [key, value] of new URLSearchParams(search)) {
    const entry = out[key]
    out[key] = entry === undefined ? value : Array.isArray(entry) ? [...entry, value] : [entry, value]
  }
  return out
}

const write = (response: ServerResponse, answer: HttpServerResponse.HttpServerResponse): void => {
  if (response.writableEnded) return
  response.writeHead(answer.status, answer.headers)
  const body = answer.body
  if (body._tag === "Uint8Array") response.end(body.body)
  else if (body._tag === "Raw" && (typeof body.body === "string" || body.body instanceof Uint8Array)) response.end(body.body)
  else response.end()
}

/**
 * The router over the server's services.
 *
 * @since 0.1.0 @category constructors
 */
export const make = Effect.gen(function*() {
  const edge = yield* Edge.make
  const authenticator = yield* Authenticator.Authenticator
  // the table HttpApi answers errors with: the same bodies and statuses
  const encodeErrors = yield* HttpApiBuilder.buildMiddleware(KassaApi)
  const handlers = { ...(yield* Invoices.hot), ...(yield* Payments.hot), ...(yield* Refunds.hot) }
  const byMethod = new Map<string, Array<Entry>>()
  for (const path of paths) {
    const entry: Entry = { ...path, served: Endpoint.make(path.endpoint, handlers[path.name] as Endpoint.Handler, authenticator) }
    byMethod.set(path.endpoint.method, [...(byMethod.get(path.endpoint.method) ?? []), entry])
  }

  const route: Route = (source, response) => {
    const entries = byMethod.get(source.method ?? "")
    if (entries === undefined) return undefined
    const url = source.url ?? ""
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    let entry: Entry | undefined
    let match: RegExpExecArray | null = null
    for (const candidate of entries) {
      match = candidate.pattern.exec(path)
      if (match !== null) {
        entry = candidate
        break
      }
    }
    if (entry === undefined || match === null) return undefined
    const params: Record<string, string> = {}
    for (let i = 0; i < entry.params.length; i++) params[entry.params[i]!] = match[i + 1]!
    const served = entry.served
    const method = source.method!
    const original = LeanRequest.make(source, url, method)
    const v1 = url.startsWith("/v1/")
    const request = v1 ? LeanRequest.make(source, "/v2" + url.slice(3), method) : original
    const started = edge.start(original, request, v1 ? "/v2" + path.slice(3) : path, entry.name)
    const parts: Endpoint.Parts = { params, query: queryOf(q === -1 ? "" : url.slice(q + 1)) }

    // (the request's id annotates the fiber's logs with its principal: `Endpoint`)
    return Effect.withFiberRuntime<void>((fiber) => {
      const now = Now.unsafeOf(fiber)
      // the answer's end without effects but the logger's line, when the access log is the logger's
      const send = (answer: HttpServerResponse.HttpServerResponse): Effect.Effect<void> => {
        const finished = edge.finish(started, answer, fiber.id().id)
        if (finished.log === undefined) {
          write(response, finished.answer)
          return Effect.void
        }
        return Effect.map(finished.log, () => write(response, finished.answer))
      }
      // errors encoded by HttpApi's table only when there is one: around the request it would
      // cost a step of every answer
      return edge.serve(started, (read) => served(read, parts, now), now, {
        onFailure: (cause) =>
          Effect.matchCauseEffect(encodeErrors(Effect.failCause(cause)), {
            onFailure: (cause) => Effect.flatMap(HttpServerError.causeResponse(cause), ([answer]) => send(answer)),
            onSuccess: send
          }),
        onSuccess: send
      })
    })
  }
  return route
})

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(LeanRouter, make)
