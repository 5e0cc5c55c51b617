/**
 * The delivery queue as the operator sees it: each notification queued for a webhook, its
 * attempts, and redelivery.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Attempt, Delivery } from "../webhook/Delivery.js"

/** @since 0.1.0 @category tags */
export class WebhookDeliveries extends Context.Tag("kassa/WebhookDeliveries")<WebhookDeliveries, {
  /** A webhook whatever its party, deleted ones included; or a wallet webhook (a deleted one is gone). */
  readonly webhookExists: (webhookID: string) => Effect.Effect<Option.Option<{ readonly deleted: boolean }>>
  /** The webhook's deliveries, newest first. */
  readonly list: (webhookID: string, query: { readonly limit: number; readonly status?: Delivery["status"] | undefined }) => Effect.Effect<ReadonlyArray<Delivery>>
  readonly get: (webhookID: string, deliveryID: string) => Effect.Effect<Option.Option<Delivery>>
  /** The attempts of one delivery, oldest first. */
  readonly attempts: (webhookID: string, deliveryID: string) => Effect.Effect<ReadonlyArray<Attempt>>
  /** Queues a copy of the delivery's notification at the end of its subject's queue. */
  readonly redeliver: (webhookID: string, deliveryID: string, at: Date) => Effect.Effect<Option.Option<Delivery>>
}>() {}
