/**
 * `WalletRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isAfter } from "../Page.js"
import { WalletRepository } from "../ports/WalletRepository.js"
import type { WalletRecord } from "../wallet/Wallet.js"
import { byCreatedAt } from "./internal/order.js"
import { MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const stored = (w: WalletRecord) => omitUndefined(w, ["metadata", "externalID"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<WalletRepository, never, MemoryStore> = Layer.effect(
  WalletRepository,
  Effect.map(MemoryStore, (store) => {
    const wallets = store.table<WalletRecord>("wallets")
    return {
      findById: (id) => wallets.get(id),
      list: (filter, page) =>
        Effect.map(wallets.values, (all) =>
          byCreatedAt(all.filter((w) =>
            w.partyID === filter.partyID &&
            (filter.identityID === undefined || w.identityID === filter.identityID) &&
            (filter.currencyID === undefined || w.currency === filter.currencyID) &&
            isAfter(w, page.after)
          )).slice(0, page.limit + 1)),
      insert: (w) => wallets.insert(w.id, stored(w)),
      // the SQL adapter writes the blocking and version
      update: (w, expected) =>
        updateIfVersion(store, wallets, w.id, expected, (before) => stored(withFields(before, w, ["isBlocked", "version"])))
    }
  })
)
