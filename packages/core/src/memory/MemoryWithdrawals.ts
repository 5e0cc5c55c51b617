/**
 * `WithdrawalRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isAfter } from "../Page.js"
import { WithdrawalRepository } from "../ports/WithdrawalRepository.js"
import { matches, type WithdrawalRecord } from "../withdrawal/Withdrawal.js"
import { byCreatedAt } from "./internal/order.js"
import { MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const stored = (w: WithdrawalRecord) => omitUndefined(w, ["metadata", "externalID", "walletGrant", "failure"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<WithdrawalRepository, never, MemoryStore> = Layer.effect(
  WithdrawalRepository,
  Effect.map(MemoryStore, (store) => {
    const withdrawals = store.table<WithdrawalRecord>("withdrawals")
    return {
      findById: (id) => withdrawals.get(id),
      list: (filter, page) =>
        Effect.map(withdrawals.values, (all) =>
          byCreatedAt(all.filter((w) => matches(w, filter) && isAfter(w, page.after))).slice(0, page.limit + 1)),
      insert: (w) => withdrawals.insert(w.id, stored(w)),
      // the SQL adapter writes the status, failure, attempts, events and version
      update: (w, expected) =>
        updateIfVersion(store, withdrawals, w.id, expected, (before) =>
          stored(withFields(before, w, ["status", "failure", "attempts", "events", "version"])))
    }
  })
)
