/**
 * `WalletWebhookRepository` in memory. A delete discards the webhook's queue with it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { WalletWebhookRepository } from "../ports/WalletWebhookRepository.js"
import type { WalletWebhookRecord } from "../wallet-webhook/WalletWebhook.js"
import { compareText } from "./internal/order.js"
import { currentKey, discardQueued, tables } from "./internal/webhookTables.js"
import { MemoryStore } from "./MemoryStore.js"

const oldestFirst = (a: WalletWebhookRecord, b: WalletWebhookRecord) =>
  a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.id, b.id)

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<WalletWebhookRepository, never, MemoryStore> = Layer.effect(
  WalletWebhookRepository,
  Effect.map(MemoryStore, (store) => {
    const t = tables(store)
    const hooks = t.walletWebhooks
    const ofIdentity = (partyID: string, identityID: string) =>
      Effect.map(hooks.values, (all) => all.filter((w) => w.partyID === partyID && w.identityID === identityID).sort(oldestFirst))
    return {
      findById: (partyID, id) => Effect.map(hooks.get(id), Option.filter((w) => w.partyID === partyID)),
      listByIdentity: ofIdentity,
      subscribers: (partyID, topic) =>
        Effect.gen(function*() {
          const key = Option.getOrUndefined(yield* currentKey(t, partyID))
          return (yield* hooks.values)
            .filter((w) => w.partyID === partyID && w.scope.topic === topic)
            .sort(oldestFirst)
            .map((hook) => ({ hook, keyID: key?.id }))
        }),
      insert: (w) => hooks.insert(w.id, w),
      delete: (partyID, id) =>
        store.transaction(Effect.gen(function*() {
          const found = yield* hooks.get(id)
          if (Option.isNone(found) || found.value.partyID !== partyID) return false
          yield* hooks.delete(id)
          yield* discardQueued(t, id)
          return true
        }))
    }
  })
)
