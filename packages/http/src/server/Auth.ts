/**
 * Bearer authentication middleware for merchants and for the operator.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Authenticator, Errors, type Principal } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { Authentication, OperatorAuthentication } from "../api/Security.js"
import * as AccessLog from "./AccessLog.js"

const bearerScheme = /^Bearer [^\s]+$/

/**
 * The principal `request`'s Bearer token (`token`, the header's value past the scheme) names:
 * the `Bearer` scheme word checked here, the framework's decoder slices it off unseen.
 *
 * @since 0.1.0
 */
export const authenticateRequest = (
  authenticator: Authenticator.Authenticator,
  request: HttpServerRequest.HttpServerRequest,
  token: string
) => {
  if (!bearerScheme.test(request.headers.authorization ?? "")) {
    return Effect.fail(new Errors.Unauthorized({ message: "Expected Authorization: Bearer <token>" }))
  }
  return Effect.tap(authenticator.authenticate(token), (principal) => AccessLog.noteCaller(request, principal))
}

/**
 * The principal a Bearer token names, of the request being served.
 *
 * @since 0.1.0
 */
export const authenticate = (authenticator: Authenticator.Authenticator, token: Redacted.Redacted<string>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => authenticateRequest(authenticator, request, Redacted.value(token)))

const notOperator = (p: Principal.Principal) => p._tag !== "Operator"

/**
 * A merchant's principal (an API key or an access token) or 401.
 *
 * @since 0.1.0
 */
export const merchant = <E, R>(principal: Effect.Effect<Principal.Principal, E, R>) =>
  Effect.filterOrFail(
    principal,
    notOperator,
    () => new Errors.Unauthorized({ message: "Operator tokens open the operator API only" })
  )

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Authentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    bearer: (token: Redacted.Redacted<string>) => merchant(authenticate(authenticator, token))
  }))
)

/** @since 0.1.0 @category layers */
export const operatorLayer = Layer.effect(
  OperatorAuthentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    operatorBearer: (token: Redacted.Redacted<string>) =>
      authenticate(authenticator, token).pipe(
        Effect.filterOrFail(
          (p): p is Principal.Principal => p._tag === "Operator",
          () => new Errors.Unauthorized({ message: "This API needs an operator token" })
        )
      )
  }))
)
