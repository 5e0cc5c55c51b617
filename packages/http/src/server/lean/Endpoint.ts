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
import * as Cause from "effect/Cause"
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

// A part that does not decode answers as HttpApi's route answers it.
const refail = (error: ParseResult.ParseError) => HttpApiError.HttpApiDecodeError.refailParseError(error)

/** A handler's failure, a decode failure refailed so (what `Effect.catchIf` does, in a match). */
const refailCause = (cause: Cause.Cause<unknown>): Effect.Effect<never, unknown> => {
  const failure = Cause.failureOrCause(cause)
  if (failure._tag === "Right") return Effect.failCause(failure.right)
  return ParseResult.isParseError(failure.left) ? refail(failure.left) : Effect.failCause(cause)
}

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
      if (urlParams._tag === "Left") return refail(urlParams.left)
      input.urlParams = urlParams.right
    }
    // the handler's answer and its decode failures in one match: `Effect.map` and a `catchIf`
    // around the whole request would cost a step more
    return Effect.matchCauseEffect(handler(input), { onFailure: refailCause, onSuccess: (answer) => Effect.succeed(respond(answer)) })
  }

  // In HttpApi's order: the path, the body, the query; the first that does not decode answers.
  const run = (read: HttpServerRequest.HttpServerRequest, parts: Parts, now: number) => {
    const problem = Envelope.check(read, now)
    if (problem !== undefined) return Effect.fail(problem)
    const input: Record<string, unknown> = {}
    if (decodePath !== undefined) {
      const path = decodePath(parts.params)
      if (path._tag === "Left") return refail(path.left)
      input.path = path.right
    }
    if (decodePayload === undefined) return handle(input, parts)
    // (one match: `Effect.orDie` then `Effect.flatMap` would cost two steps more)
    return Effect.matchEffect(read.json, {
      onFailure: Effect.die,
      onSuccess: (json) => {
        const payload = decodePayload(json)
        if (payload._tag === "Left") return refail(payload.left)
        input.payload = payload.right
        return handle(input, parts)
      }
    })
  }

  // The principal is set on the request's fiber, which ends with the request: providing it
  // around `run` would cost a scope of its own. The request's id annotates the fiber's logs in
  // the same update (the lean router's edge leaves it to this).
  return (read, parts, now) =>
    Auth.servingMerchant(
      authenticator,
      read,
      (read.headers.authorization ?? "").slice(bearerLength),
      // (the principal it needs is on the fiber)
      () => run(read, parts, now) as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>,
      read.headers["x-request-id"] ?? ""
    )
}
