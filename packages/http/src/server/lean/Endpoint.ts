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
import { type Authenticator, Principal } from "@kassa/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Auth from "../Auth.js"
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

const decoder = <A, I>(schema: Option.Option<Schema.Schema<A, I, never>>) =>
  Option.getOrUndefined(Option.map(schema, (s) => Schema.decodeUnknown(s)))

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
  const contentType = HttpApiSchema.getEncoding(success.ast).contentType

  const run = (read: HttpServerRequest.HttpServerRequest, parts: Parts, now: number) =>
    Effect.suspend(() => {
      const problem = Envelope.check(read, now)
      if (problem !== undefined) return Effect.fail(problem)
      const input: Record<string, unknown> = {}
      let decoded: Effect.Effect<unknown, unknown, Principal.CurrentPrincipal> = Effect.void
      if (decodePath !== undefined) {
        decoded = Effect.map(decodePath(parts.params), (path) => (input.path = path))
      }
      if (decodePayload !== undefined) {
        const decodePayload_ = decodePayload
        decoded = Effect.zipRight(
          decoded,
          Effect.map(Effect.flatMap(Effect.orDie(read.json), decodePayload_), (payload) => (input.payload = payload))
        )
      }
      if (decodeUrlParams !== undefined) {
        decoded = Effect.zipRight(decoded, Effect.map(decodeUrlParams(parts.query), (urlParams) => (input.urlParams = urlParams)))
      }
      return decoded.pipe(
        Effect.zipRight(Effect.suspend(() => handler(input))),
        Effect.map((answer) => HttpServerResponse.unsafeJson(encode(answer), { status, contentType })),
        Effect.catchIf(ParseResult.isParseError, HttpApiError.HttpApiDecodeError.refailParseError)
      )
    })

  // The principal is set on the request's fiber, which ends with the request: providing it
  // around `run` would cost a scope of its own.
  return (read, parts, now) =>
    Effect.flatMap(
      Auth.merchant(Auth.authenticateRequest(authenticator, read, (read.headers.authorization ?? "").slice(bearerLength))),
      (principal) =>
        Effect.zipRight(
          FiberRef.update(FiberRef.currentContext, Context.add(Principal.CurrentPrincipal, principal)),
          run(read, parts, now) as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>
        )
    )
}
