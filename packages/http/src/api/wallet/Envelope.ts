/**
 * The request envelope of the wallet and card-token interfaces: `X-Request-ID` (required, 1..32
 * characters), `X-Request-Deadline` (optional, 1..40) and a JSON body, refused as 400
 * `BadRequest` naming the header.
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import { BadRequest } from "./Errors.js"

/** @since 0.1.0 @category middleware */
export class WalletEnvelope extends HttpApiMiddleware.Tag<WalletEnvelope>()("kassa/http/WalletEnvelope", {
  failure: BadRequest
}) {}
