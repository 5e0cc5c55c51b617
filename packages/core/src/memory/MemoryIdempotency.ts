/**
 * `Idempotency` in memory: the first claim of a key wins, later ones read its record.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Idempotency, type IdempotencyKey, type IdempotencyRecord } from "../ports/Idempotency.js"
import { key, MemoryStore } from "./MemoryStore.js"

const keyOf = (k: IdempotencyKey) => key(k.partyID, k.namespace, k.operation, k.externalID)

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Idempotency, never, MemoryStore> = Layer.effect(
  Idempotency,
  Effect.map(MemoryStore, (store) => {
    const keys = store.table<IdempotencyRecord>("idempotency_keys")
    return {
      find: (k) => keys.get(keyOf(k)),
      claim: (k, record) =>
        store.transaction(Effect.flatMap(keys.get(keyOf(k)), (found) =>
          Option.isSome(found)
            ? Effect.succeed(found)
            : Effect.as(keys.insert(keyOf(k), { entityID: record.entityID, fingerprint: record.fingerprint }), Option.none())))
    }
  })
)
