/**
 * Storage of webhooks. Reads are scoped by party; a deleted webhook is gone for every read.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Topic, WebhookRecord, WebhookScope } from "../webhook/Webhook.js"

/** A webhook notified of a topic: its scope, and its party's current key. @since 0.1.0 @category models */
export interface Subscriber {
  readonly webhookID: string
  readonly scope: WebhookScope
  /** The party's current key, absent when it has none. */
  readonly keyID: string | undefined
}

/** @since 0.1.0 @category tags */
export class WebhookRepository extends Context.Tag("kassa/WebhookRepository")<WebhookRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<WebhookRecord>>
  /** The party's webhooks, oldest first. */
  readonly listByParty: (partyID: string) => Effect.Effect<ReadonlyArray<WebhookRecord>>
  /** The party's live webhooks of `topic`, oldest first. */
  readonly subscribers: (partyID: string, topic: Topic) => Effect.Effect<ReadonlyArray<Subscriber>>
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
