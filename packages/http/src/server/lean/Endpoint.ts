/**
 * One operation of the contract served without HttpApi's router: its endpoint's own schemas
 * decode the path, query and body and encode the answer, its handler (the one HttpApi's route
 * runs) does the work, in the order HttpApi's route does it: authentication, the request
 * envelope, then the path, the body and the query. The answer is encoded without checking it
 * again (`Encoder`): the domain made it.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Authenticator, Principal } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Auth from "../Auth.js"
import * as Edge from "../Edge.js"
import * as Envelope from "../Envelope.js"
import * as Encoder from "./Encoder.js"

/** A handler of the contract, given what it decodes. @since 0.1.0 @category models */
export type Handler = (input: any) => Effect.Effect<unknown, unknown, Principal.CurrentPrincipal>

/** What a request brings besides its body: the path's parameters and the query's. @since 0.1.0 @category models */
export interface Parts {
  readonly params: Readonly<Record<string, string>>
  readonly query: Readonly<Record<string, string | Array<string>>>
}

/** @since 0.1.0 @category models */
export type Served = (
  read: HttpServerRequest.HttpServerRequest,
  parts: Parts,
  now: number
) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>

const bearerLength = "Bearer ".length

/** A part's decoder: synchronous, as the contract's schemas need nothing to decode. */
type Decode = (input: unknown) => Either.Either<unknown, ParseResult.ParseError>

const decoder = (schema: Option.Option<Schema.Schema<unknown, unknown, never>>): Decode | undefined =>
  Option.getOrUndefined(Option.map(schema, (s) => Schema.decodeUnknownEither(s)))

/** @since 0.1.0 @category constructors */
export const make = (
  endpoint: HttpApiEndpoint.HttpApiEndpoint.AnyWithProps,
  handler: Handler,
  authenticator: Authenticator.Authenticator
): Served => {
  const decodePath = decoder(endpoint.pathSchema as Option.Option<Schema.Schema<unknown, unknown, never>>)
  const decodePayload = decoder(endpoint.payloadSchema as Option.Option<Schema.Schema<unknown, unknown, never>>)
  const decodeUrlParams = decoder(endpoint.urlParamsSchema as Option.Option<Schema.Schema<unknown, unknown, never>>)
  const success = endpoint.successSchema as Schema.Schema<unknown, unknown, never>
  const encode = Encoder.make(success)
  const status = HttpApiSchema.getStatusSuccess(success)
  const encoding = HttpApiSchema.getEncoding(success.ast).contentType
  // as the edge answers JSON (`Edge.finish`); the text written as it is (Node writes it with the
  // head in one piece), not encoded to bytes first
  const contentType = encoding.startsWith("application/json") ? Edge.JSON_TYPE : encoding
  const respond = (answer: unknown) => {
    const text = JSON.stringify(encode(answer))
    return HttpServerResponse.raw(text, { status, contentType, contentLength: Buffer.byteLength(text) })
  }

  // The query, then the handler: what follows the body, or the path when there is none.
  const handle = (
    input: Record<string, unknown>,
    parts: Parts
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, Principal.CurrentPrincipal> => {
    if (decodeUrlParams !== undefined) {
      const urlParams = decodeUrlParams(parts.query)
      if (urlParams._tag === "Left") return Effect.fail(urlParams.left)
      input.urlParams = urlParams.right
    }
    return Effect.map(handler(input), respond)
  }

  // In HttpApi's order: the path, the body, the query; the first that does not decode answers.
  const run = (read: HttpServerRequest.HttpServerRequest, parts: Parts, now: number) => {
    const problem = Envelope.check(read, now)
    if (problem !== undefined) return Effect.fail(problem)
    const input: Record<string, unknown> = {}
    if (decodePath !== undefined) {
      const path = decodePath(parts.params)
      if (path._tag === "Left") return Effect.fail(path.left)
      input.path = path.right
    }
    if (decodePayload === undefined) return handle(input, parts)
    // (one match: `Effect.orDie` then `Effect.flatMap` would cost two steps more)
    return Effect.matchEffect(read.json, {
      onFailure: Effect.die,
      onSuccess: (json) => {
        const payload = decodePayload(json)
        if (payload._tag === "Left") return Effect.fail(payload.left)
        input.payload = payload.right
        return handle(input, parts)
      }
    })
  }

  // (the principal it needs is on the fiber, below)
  const decodedAndRun = (read: HttpServerRequest.HttpServerRequest, parts: Parts, now: number) =>
    Effect.catchIf(run(read, parts, now), ParseResult.isParseError, HttpApiError.HttpApiDecodeError.refailParseError) as Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      unknown
    >

  // The principal is set on the request's fiber, which ends with the request: providing it
  // around `run` would cost a scope of its own. The request's id annotates the fiber's logs in
  // the same update (the lean router's edge leaves it to this).
  return (read, parts, now) =>
    Auth.servingMerchant(
      authenticator,
      read,
      (read.headers.authorization ?? "").slice(bearerLength),
      () => decodedAndRun(read, parts, now),
      read.headers["x-request-id"] ?? ""
    )
}
