/**
 * Storage of webhooks. Reads are scoped by party; a deleted webhook is gone for every read.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { WebhookRecord } from "../webhook/Webhook.js"

/** @since 0.1.0 @category tags */
export class WebhookRepository extends Context.Tag("kassa/WebhookRepository")<WebhookRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<WebhookRecord>>
  /** The party's webhooks, oldest first. */
  readonly listByParty: (partyID: string) => Effect.Effect<ReadonlyArray<WebhookRecord>>
  /** How many webhooks of `topic` the shop has. */
  readonly countForShop: (partyID: string, shopID: string, topic: string) => Effect.Effect<number>
  /**
   * Stores the webhook unless the shop already has `limit` webhooks of its topic; answers
   * whether it did. Concurrent inserts for one shop are serialised, so the limit holds.
   */
  readonly insertWithin: (webhook: WebhookRecord, limit: number | undefined) => Effect.Effect<boolean>
  /**
   * Deletes the webhook at `at` and discards what is still queued for it; answers whether it
   * existed.
   */
  readonly delete: (partyID: string, id: string, at: Date) => Effect.Effect<boolean>
}>() {}
