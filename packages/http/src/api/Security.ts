/**
 * Bearer authentication: merchants (API keys and access tokens) and the operator.
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { Principal } from "@kassa/core"
import { Unauthorized } from "./Errors.js"

/** The merchant side: an API key or an access token. @since 0.1.0 @category middleware */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("kassa/http/Authentication", {
  failure: Unauthorized,
  provides: Principal.CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The operator API: an operator token only. @since 0.1.0 @category middleware */
export class OperatorAuthentication
  extends HttpApiMiddleware.Tag<OperatorAuthentication>()("kassa/http/OperatorAuthentication", {
    failure: Unauthorized,
    provides: Principal.CurrentPrincipal,
    security: { operatorBearer: HttpApiSecurity.bearer }
  })
{}
