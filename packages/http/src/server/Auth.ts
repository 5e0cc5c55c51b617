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
 * The principal a Bearer token names (the `Bearer` scheme word checked here: the framework's
 * decoder slices it off unseen).
 *
 * @since 0.1.0
 */
export const authenticate = (authenticator: Authenticator.Authenticator, token: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!bearerScheme.test(request.headers.authorization ?? "")) {
      return yield* new Errors.Unauthorized({ message: "Expected Authorization: Bearer <token>" })
    }
    const principal = yield* authenticator.authenticate(Redacted.value(token))
    AccessLog.noteCaller(request, principal)
    return principal
  })

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Authentication,
  Effect.map(Authenticator.Authenticator, (authenticator) => ({
    bearer: (token: Redacted.Redacted<string>) =>
      authenticate(authenticator, token).pipe(
        Effect.filterOrFail(
          (p): p is Principal.Principal => p._tag !== "Operator",
          () => new Errors.Unauthorized({ message: "Operator tokens open the operator API only" })
        )
      )
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
