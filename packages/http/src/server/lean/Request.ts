/**
 * A request as the lean router hands it to the edge: the few fields of the platform's request
 * the edge, replay, auth and the access log read (method, url, headers, the Node request as its
 * `source`), without the platform's request object or its router's context.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import type { IncomingMessage } from "node:http"

// a request without a body reads as JSON `null`, as the platform's does
const noBody = Effect.succeed(null)

class LeanRequest {
  readonly headers: IncomingMessage["headers"]
  constructor(readonly source: IncomingMessage, readonly url: string, readonly method: string) {
    this.headers = source.headers
  }
  get originalUrl(): string {
    return this.source.url!
  }
  get json() {
    return noBody
  }
}

/**
 * `source` as a request whose URL is `url` (the routes' own: `/v1` served by `/v2`).
 *
 * @since 0.1.0
 */
export const make = (source: IncomingMessage, url: string, method: string): HttpServerRequest.HttpServerRequest =>
  new LeanRequest(source, url, method) as unknown as HttpServerRequest.HttpServerRequest
