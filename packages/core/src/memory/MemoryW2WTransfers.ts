/**
 * `W2WTransferRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { W2WTransferRepository } from "../ports/W2WTransferRepository.js"
import type { W2WTransferRecord } from "../transfer/W2WTransfer.js"
import { MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const stored = (t: W2WTransferRecord) => omitUndefined(t, ["externalID", "failure"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<W2WTransferRepository, never, MemoryStore> = Layer.effect(
  W2WTransferRepository,
  Effect.map(MemoryStore, (store) => {
    const transfers = store.table<W2WTransferRecord>("w2w_transfers")
    return {
      findById: (id) => transfers.get(id),
      insert: (t) => transfers.insert(t.id, stored(t)),
      // the SQL adapter writes the status, failure and version
      update: (t, expected) =>
        updateIfVersion(store, transfers, t.id, expected, (before) => stored(withFields(before, t, ["status", "failure", "version"])))
    }
  })
)
