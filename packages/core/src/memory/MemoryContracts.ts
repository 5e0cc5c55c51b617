/**
 * `ContractRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ContractRecord } from "../contract/Contract.js"
import { ContractRepository } from "../ports/ContractRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { key, MemoryStore, omitUndefined } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<ContractRepository, never, MemoryStore> = Layer.effect(
  ContractRepository,
  Effect.map(MemoryStore, (store) => {
    const contracts = store.table<ContractRecord>("contracts")
    return {
      findById: (partyID, id) => contracts.get(key(partyID, id)),
      listByParty: (partyID) =>
        Effect.map(contracts.values, (all) => byCreatedAt(all.filter((c) => c.partyID === partyID))),
      insert: (c) =>
        contracts.insert(key(c.partyID, c.id), omitUndefined(c, ["validSince", "validUntil", "terminatedAt", "legalAgreement"]))
    }
  })
)
