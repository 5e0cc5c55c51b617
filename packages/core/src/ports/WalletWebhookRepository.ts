/**
 * Storage of wallet webhooks. Every read is scoped by party; a deleted webhook is gone.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { WalletTopic, WalletWebhookRecord } from "../wallet-webhook/WalletWebhook.js"

/** @since 0.1.0 @category tags */
export class WalletWebhookRepository extends Context.Tag("kassa/WalletWebhookRepository")<WalletWebhookRepository, {
  readonly findById: (partyID: string, id: string) => Effect.Effect<Option.Option<WalletWebhookRecord>>
  /** The identity's webhooks, oldest first. */
  readonly listByIdentity: (partyID: string, identityID: string) => Effect.Effect<ReadonlyArray<WalletWebhookRecord>>
  /** The identity's webhooks of `topic`, oldest first: whom its events notify. */
  readonly subscribers: (partyID: string, identityID: string, topic: WalletTopic) => Effect.Effect<ReadonlyArray<WalletWebhookRecord>>
  readonly insert: (webhook: WalletWebhookRecord) => Effect.Effect<void>
  /** Deletes the webhook; answers whether it existed. */
  readonly delete: (partyID: string, id: string) => Effect.Effect<boolean>
}>() {}
