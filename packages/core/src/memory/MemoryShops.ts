/**
 * `ShopRepository` in memory: shops, read with their party and contract from the same store.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ContractRecord } from "../contract/Contract.js"
import type { PartyRecord } from "../party/Party.js"
import { ShopRepository } from "../ports/ShopRepository.js"
import type { ShopRecord } from "../shop/Shop.js"
import { byCreatedAt } from "./internal/order.js"
import { key, MemoryStore, updateIfVersion, withFields } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<ShopRepository, never, MemoryStore> = Layer.effect(
  ShopRepository,
  Effect.map(MemoryStore, (store) => {
    const shops = store.table<ShopRecord>("shops")
    const parties = store.table<PartyRecord>("parties")
    const contracts = store.table<ContractRecord>("contracts")
    return {
      findById: (partyID, id) => shops.get(key(partyID, id)),
      findGoverned: (partyID, id) =>
        Effect.gen(function*() {
          const shop = yield* shops.get(key(partyID, id))
          if (Option.isNone(shop)) return Option.none()
          const party = yield* parties.get(partyID)
          if (Option.isNone(party)) return Option.none()
          const contract = yield* contracts.get(key(partyID, shop.value.contractID))
          return Option.some({ shop: shop.value, party: party.value, contract })
        }),
      listByParty: (partyID) => Effect.map(shops.values, (all) => byCreatedAt(all.filter((s) => s.partyID === partyID))),
      insert: (s) => shops.insert(key(s.partyID, s.id), s),
      update: (s, expected) =>
        // the flags and the version, as the SQL adapter writes
        updateIfVersion(store, shops, key(s.partyID, s.id), expected, (stored) =>
          withFields(stored, s, ["isBlocked", "isSuspended", "version"]))
    }
  })
)
