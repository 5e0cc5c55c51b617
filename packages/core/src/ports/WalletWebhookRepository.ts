/**
 * Storage of wallet webhooks. Every read is scoped by party; a deleted webhook is gone.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { WalletTopic, WalletWebhookRecord } from "../wallet-webhook/WalletWebhook.js"

/** A webhook notified of a topic, and its party's current key. @since 0.1.0 @category models */
export interface WalletSubscriber {
  readonly hook: WalletWebhookRecord
  /** The party's current key, absent when it has none. */
  readonly keyID: string | undefined
}

/** @since 0.1.0 @category tags */
export class WalletWebhookRepository extends Context.Tag("kassa/WalletWebhookRepository")<WalletWebhookRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<WalletWebhookRecord>>
  /** The identity's webhooks, oldest first. */
  readonly listByIdentity: (partyID: string, identityID: string) => Effect.Effect<ReadonlyArray<WalletWebhookRecord>>
  /** The party's webhooks of `topic`, oldest first, with its current key: whom its events may notify. */
  readonly subscribers: (partyID: string, topic: WalletTopic) => Effect.Effect<ReadonlyArray<WalletSubscriber>>
  readonly insert: (webhook: WalletWebhookRecord) => Effect.Effect<void>
  /** Deletes the webhook and discards what is still queued for it; answers whether it existed. */
  readonly delete: (partyID: string, id: string) => Effect.Effect<boolean>
}>() {}
