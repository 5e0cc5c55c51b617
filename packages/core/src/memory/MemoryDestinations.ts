/**
 * `DestinationRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type DestinationRecord, matches } from "../destination/Destination.js"
import { isAfter } from "../Page.js"
import { DestinationRepository } from "../ports/DestinationRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const stored = (d: DestinationRecord) => omitUndefined(d, ["metadata", "externalID"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<DestinationRepository, never, MemoryStore> = Layer.effect(
  DestinationRepository,
  Effect.map(MemoryStore, (store) => {
    const destinations = store.table<DestinationRecord>("destinations")
    return {
      findById: (id) => destinations.get(id),
      list: (filter, page) =>
        Effect.map(destinations.values, (all) =>
          byCreatedAt(all.filter((d) => matches(d, filter) && isAfter(d, page.after))).slice(0, page.limit + 1)),
      insert: (d) => destinations.insert(d.id, stored(d)),
      // the SQL adapter writes the status, blocking and version
      update: (d, expected) =>
        updateIfVersion(store, destinations, d.id, expected, (before) => stored(withFields(before, d, ["status", "isBlocked", "version"])))
    }
  })
)
