/**
 * The request body, read once at the edge and handed to the handlers already read (and, for
 * JSON, parsed), so the edge can look at it first.
 *
 * The platform's own reader stops a body over its limit by destroying the request, which resets
 * the connection before any answer leaves. This one stops keeping bytes instead and lets the
 * rest of the body drain, so the client reads its 400.
 *
 * @since 0.1.0
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as UrlParams from "@effect/platform/UrlParams"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { IncomingMessage } from "node:http"

const jsonType = /^application\/json\s*(;|$)/i

/** Whether a content type is JSON's (any parameters). @since 0.1.0 */
export const isJson = (contentType: string): boolean => jsonType.test(contentType)

/** The body as text (UTF-8). @since 0.1.0 */
export const textOf = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/** Whether the request carries a body (a length above zero, or a chunked one). @since 0.1.0 */
export const present = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0

const decodeError = (request: HttpServerRequest.HttpServerRequest, cause: unknown) =>
  new HttpServerError.RequestError({ request, reason: "Decode", cause })

// No canceller: given one, `Effect.async` runs in an interruption handler of its own (seven steps
// of every request with a body). The listeners go with the first of the body's end, its error
// or its limit; a fiber interrupted before then (its connection closed) leaves them to the
// request's own end, an error for an aborted one, whose answer reaches no fiber.
const readNode = (request: HttpServerRequest.HttpServerRequest, source: IncomingMessage, maxBytes: number) =>
  Effect.async<Uint8Array | "tooLarge", HttpServerError.RequestError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) {
        chunks.push(chunk)
        return
      }
      stop()
      // drop the rest as it comes: the connection stays whole for the answer
      source.resume()
      resume(Effect.succeed("tooLarge"))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size)))
    }
    const onError = (cause: unknown) => {
      stop()
      resume(Effect.fail(decodeError(request, cause)))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
  })

/**
 * The body's bytes, or `"tooLarge"` past `maxBytes`. Off Node (a web handler) the platform reads
 * it, with the same limit.
 *
 * @since 0.1.0
 */
export const read = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<Uint8Array | "tooLarge", HttpServerError.RequestError> => {
  const source = NodeHttpServerRequest.toIncomingMessage(request) as unknown
  return source instanceof IncomingMessage
    ? readNode(request, source, maxBytes)
    : Effect.map(request.arrayBuffer, (buffer) => new Uint8Array(buffer))
}

interface ReadBody {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly bytes: Uint8Array
  readonly text: string
  readonly json: { readonly value: unknown } | undefined
}

const readBody = Symbol("kassa/http/RequestBody/read")

type Provided = HttpServerRequest.HttpServerRequest & { readonly [readBody]: ReadBody }

// One set of getters for every request, each making its effect only when a handler asks: a
// request's handler reads its body one way, if at all.
const getters: PropertyDescriptorMap = {
  text: { get(this: Provided) { return Effect.succeed(this[readBody].text) } },
  json: {
    get(this: Provided) {
      const { json, request, text } = this[readBody]
      return json === undefined
        ? Effect.try({ try: () => (text === "" ? null : JSON.parse(text)) as unknown, catch: (cause) => decodeError(request, cause) })
        : Effect.succeed(json.value)
    }
  },
  urlParamsBody: {
    get(this: Provided) {
      const { request, text } = this[readBody]
      return Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: (cause) => decodeError(request, cause) })
    }
  },
  arrayBuffer: { get(this: Provided) { return Effect.succeed(this[readBody].bytes.slice().buffer) } },
  stream: { get(this: Provided) { return Stream.succeed(this[readBody].bytes) } },
  modify: {
    value(this: Provided, options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]) {
      const { bytes, json, request, text } = this[readBody]
      return provided(request.modify(options), bytes, text, json)
    }
  }
}

/**
 * The getters above over a kind of request (its class's prototype), made once per kind: defining
 * them on every request (`Object.create(request, getters)`) left each request a slow
 * dictionary-mode object, over ten microseconds to make.
 */
const prototypes = new WeakMap<object, object>()

const prototypeFor = (request: HttpServerRequest.HttpServerRequest): object => {
  const kind = Object.getPrototypeOf(request) as object
  let prototype = prototypes.get(kind)
  if (prototype === undefined) {
    prototype = Object.create(kind, getters) as object
    prototypes.set(kind, prototype)
  }
  return prototype
}

/**
 * The request as handlers see it, its body served from `bytes` (`text`, decoded); `json`, when
 * given, is the body already parsed. A copy of the request's own fields (the platform's requests
 * keep their state in plain fields) over its class's prototype with the getters.
 *
 * @since 0.1.0
 */
export const provided = (
  request: HttpServerRequest.HttpServerRequest,
  bytes: Uint8Array,
  text: string,
  json?: { readonly value: unknown }
): HttpServerRequest.HttpServerRequest => {
  const self = Object.assign(Object.create(prototypeFor(request)) as object, request) as unknown as { [readBody]: ReadBody }
  self[readBody] = { request, bytes, text, json }
  return self as unknown as HttpServerRequest.HttpServerRequest
}
