/**
 * Bearer authentication of the wallet and card-token interfaces: the party's API key, the same
 * keys as the payments interface's.
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import { Principal } from "@kassa/core"
import { Unauthorized } from "../Errors.js"

/** @since 0.1.0 @category middleware */
export class WalletAuthentication extends HttpApiMiddleware.Tag<WalletAuthentication>()("kassa/http/WalletAuthentication", {
  failure: Unauthorized,
  provides: Principal.CurrentPrincipal,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
