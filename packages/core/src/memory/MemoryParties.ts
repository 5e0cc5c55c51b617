/**
 * `PartyRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { PartyRecord } from "../party/Party.js"
import { PartyRepository } from "../ports/PartyRepository.js"
import { MemoryStore, updateIfVersion, withFields } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<PartyRepository, never, MemoryStore> = Layer.effect(
  PartyRepository,
  Effect.map(MemoryStore, (store) => {
    const parties = store.table<PartyRecord>("parties")
    return {
      findById: (id) => parties.get(id),
      insert: (p) => parties.insert(p.id, p),
      // what the SQL adapter writes: the flags and the version
      update: (p, expected) =>
        updateIfVersion(store, parties, p.id, expected, (stored) => withFields(stored, p, ["isBlocked", "isSuspended", "version"]))
    }
  })
)
