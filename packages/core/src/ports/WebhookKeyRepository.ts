/**
 * Storage of the parties' webhook key pairs: at most one current key per party, and the retired
 * ones that may still sign what was queued before their rotation.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { PartyWebhookKey } from "../webhook/WebhookKey.js"

/** @since 0.1.0 @category tags */
export class WebhookKeyRepository extends Context.Tag("kassa/WebhookKeyRepository")<WebhookKeyRepository, {
  /** The party's current key. */
  readonly current: (partyID: string) => Effect.Effect<Option.Option<PartyWebhookKey>>
  /**
   * Stores `key` as the party's current key unless it has one already (a concurrent creation
   * won); answers the party's current key either way.
   */
  readonly insertIfAbsent: (key: PartyWebhookKey) => Effect.Effect<PartyWebhookKey>
  /**
   * Retires the party's current key at `key.createdAt` and stores `key` as its current one, in
   * one transaction; answers the retired key, if there was one.
   */
  readonly rotate: (key: PartyWebhookKey) => Effect.Effect<Option.Option<PartyWebhookKey>>
}>() {}
