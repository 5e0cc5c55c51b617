/**
 * The HTTP server in-process on a throw-away database, with clients that speak to it: the
 * typed client derived from the contract, and a raw one for wire-level assertions.
 *
 * @since 0.1.0
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { KassaApi } from "@kassa/http/api/KassaApi"
import type { Kassa } from "@kassa/adapters"
import * as Http from "@kassa/http/server/Http"
import * as LeanServer from "@kassa/http/server/lean/Server"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Dialect } from "./Dialects.js"
import * as TestKassa from "./TestKassa.js"

/**
 * Whether the hot operations go through the lean router (the server's default) or through
 * HttpApi like the rest: `KASSA_HTTP_PATH=framework` runs a test file on the latter, so the same
 * files check both paths answer alike.
 *
 * @since 0.1.0
 */
export const lean = process.env.KASSA_HTTP_PATH !== "framework"

/**
 * The test server over `kassa` (a layer built like `Kassa.layer`), on the path `lean` chooses.
 *
 * @since 0.1.0 @category layers
 */
export const serving = <ROut, E, R>(kassa: Layer.Layer<ROut, E, R>) =>
  Http.serve(kassa, { lean }).pipe(Layer.provideMerge(LeanServer.layerTest))

/** @since 0.1.0 @category layers */
export const layer = (dialect: Dialect, overrides: Partial<Kassa.Options> = {}) => serving(TestKassa.layer(dialect, overrides))

let requestCounter = 0
/** A fresh `X-Request-ID`. @since 0.1.0 */
export const requestId = () => `t-${process.pid}-${++requestCounter}`

/**
 * The typed client of the whole contract, sending `X-Request-ID` and, when given, the bearer
 * token.
 *
 * @since 0.1.0
 */
export const client = (token?: string) =>
  HttpApiClient.make(KassaApi, {
    transformClient: HttpClient.mapRequest((request) => {
      const withId = HttpClientRequest.setHeader(request, "x-request-id", requestId())
      return token === undefined ? withId : HttpClientRequest.bearerToken(withId, token)
    })
  })

/** `X-Request-ID` and, when given, the bearer token. @since 0.1.0 */
export const headers = (token?: string): Record<string, string> => ({
  "x-request-id": requestId(),
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
})

/** @since 0.1.0 @category models */
export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly json: any
}

/**
 * A raw request: exact method, path, headers and body text; the answer as status, headers and
 * body. Use it to assert the wire itself.
 *
 * @since 0.1.0
 */
export const raw = (
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: string } = {}
) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(options.headers ?? {}))
    if (options.body !== undefined) {
      request = HttpClientRequest.bodyText(
        request,
        options.body,
        options.headers?.["content-type"] ?? options.headers?.["Content-Type"] ?? "application/json"
      )
    }
    const response = yield* http.execute(request)
    const text = yield* response.text
    let json: unknown = undefined
    try {
      json = text === "" ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    const result: RawResponse = { status: response.status, headers: response.headers, text, json }
    return result
  }).pipe(Effect.scoped, Effect.orDie)

/**
 * A raw request with a fresh `X-Request-ID`, the bearer token when given, and `body` as JSON.
 *
 * @since 0.1.0
 */
export const call = (
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH",
  path: string,
  token?: string,
  body?: unknown
) => raw(method, path, { headers: headers(token), ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
