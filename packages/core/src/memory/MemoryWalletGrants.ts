/**
 * `WalletGrantRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { WalletGrantRepository } from "../ports/WalletGrantRepository.js"
import type { WalletGrantRecord } from "../wallet/Wallet.js"
import { MemoryStore, updateIfVersion, withFields } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<WalletGrantRepository, never, MemoryStore> = Layer.effect(
  WalletGrantRepository,
  Effect.map(MemoryStore, (store) => {
    const grants = store.table<WalletGrantRecord>("wallet_grants")
    return {
      findById: (id) => grants.get(id),
      insert: (g) => grants.insert(g.id, g),
      // the SQL adapter writes what was spent and the version
      update: (g, expected) => updateIfVersion(store, grants, g.id, expected, (before) => withFields(before, g, ["spent", "version"]))
    }
  })
)
