/**
 * `WebhookKeyRepository` in memory: at most one current key per party, and the retired ones.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WebhookKeyRepository } from "../ports/WebhookKeyRepository.js"
import type { PartyWebhookKey } from "../webhook/WebhookKey.js"
import { currentKey, tables } from "./internal/webhookTables.js"
import { MemoryStore } from "./MemoryStore.js"

/** A key as the SQL adapter stores a new one: current. */
const fresh = ({ retiredAt: _, ...key }: PartyWebhookKey): PartyWebhookKey => key

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<WebhookKeyRepository, never, MemoryStore> = Layer.effect(
  WebhookKeyRepository,
  Effect.map(MemoryStore, (store) => {
    const t = tables(store)
    return {
      current: (partyID) => currentKey(t, partyID),
      insertIfAbsent: (key) =>
        store.transaction(Effect.flatMap(currentKey(t, key.partyID), (current) =>
          Option.isSome(current) ? Effect.succeed(current.value) : Effect.as(t.keys.insert(key.id, fresh(key)), fresh(key)))),
      rotate: (key) =>
        store.transaction(Effect.gen(function*() {
          const current = yield* currentKey(t, key.partyID)
          const retired = Option.map(current, (k): PartyWebhookKey => ({ ...k, retiredAt: key.createdAt }))
          if (Option.isSome(retired)) yield* t.keys.set(retired.value.id, retired.value)
          yield* t.keys.insert(key.id, fresh(key))
          return retired
        }))
    }
  })
)
