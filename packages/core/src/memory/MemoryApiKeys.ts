/**
 * `ApiKeyRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type ApiKeyRecord, ApiKeyRepository } from "../ports/ApiKeyRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { MemoryStore } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<ApiKeyRepository, never, MemoryStore> = Layer.effect(
  ApiKeyRepository,
  Effect.map(MemoryStore, (store) => {
    const keys = store.table<ApiKeyRecord>("api_keys")
    return {
      insert: (k) => keys.insert(k.id, k),
      findById: (id) => keys.get(id),
      listByParty: (partyID) => Effect.map(keys.values, (all) => byCreatedAt(all.filter((k) => k.partyID === partyID))),
      revoke: (partyID, id, at) =>
        store.transaction(Effect.flatMap(keys.get(id), (found) =>
          Option.isNone(found) || found.value.partyID !== partyID || found.value.revokedAt !== undefined
            ? Effect.succeed(false)
            : Effect.as(keys.set(id, { ...found.value, revokedAt: at }), true)))
    }
  })
)
