/**
 * The delivery queue as the operator API shows it: one delivery per notification queued for a
 * webhook, and each attempt to send it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * - `pending`: waiting in its subject's queue (or being retried)
 * - `delivered`: answered 200
 * - `discarded`: its subject's last attempt failed, or its webhook was deleted
 *
 * @since 0.1.0 @category schemas
 */
export const DeliveryStatus = Schema.Literal("pending", "delivered", "discarded")

/** @since 0.1.0 @category schemas */
export const Delivery = Schema.Struct({
  id: Schema.String,
  webhookID: Schema.String,
  /** What orders the queue: `invoice`, `customer`, `withdrawal` or `destination`, and its id. */
  subjectType: Schema.String,
  subjectID: Schema.String,
  eventID: Schema.Int,
  topic: Schema.String,
  eventType: Schema.String,
  status: DeliveryStatus,
  createdAt: Schema.DateFromString,
  attempts: Schema.Int,
  lastAttemptAt: Schema.optional(Schema.DateFromString),
  nextAttemptAt: Schema.optional(Schema.DateFromString),
  deliveredAt: Schema.optional(Schema.DateFromString),
  /** The delivery this one repeats (redelivery). */
  redeliveryOf: Schema.optional(Schema.String)
}).annotations({ identifier: "WebhookDelivery" })
/** @since 0.1.0 */
export type Delivery = typeof Delivery.Type

/** @since 0.1.0 @category schemas */
export const Attempt = Schema.Struct({
  deliveryID: Schema.String,
  number: Schema.Int,
  at: Schema.DateFromString,
  /** The HTTP status answered, if any. */
  statusCode: Schema.optional(Schema.Int),
  /** Why the attempt failed without a status (timeout, refused address, connection error). */
  error: Schema.optional(Schema.String),
  durationMs: Schema.Int,
  succeeded: Schema.Boolean
}).annotations({ identifier: "WebhookAttempt" })
/** @since 0.1.0 */
export type Attempt = typeof Attempt.Type
