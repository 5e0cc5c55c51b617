/**
 * The request envelope every operation of the interface shares: `X-Request-ID` (required,
 * 1..32 characters) and `X-Request-Deadline` (optional, 1..40 characters, RFC 3339 or a
 * relative `ms`/`s`/`m` value).
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as Schema from "effect/Schema"
import { BusinessError } from "./Errors.js"

/** @since 0.1.0 @category schemas */
export const RequestIdHeader = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(32))

/** @since 0.1.0 @category schemas */
export const DeadlineHeader = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/**
 * Checks the envelope and provides nothing (each service given to a request copies its context).
 *
 * @since 0.1.0 @category middleware
 */
export class RequestEnvelope extends HttpApiMiddleware.Tag<RequestEnvelope>()("kassa/http/RequestEnvelope", {
  failure: BusinessError
}) {}
