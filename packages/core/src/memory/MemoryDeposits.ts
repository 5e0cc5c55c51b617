/**
 * `DepositRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type AdjustmentRecord, type DepositRecord, matches, type RevertRecord } from "../deposit/Deposit.js"
import { isAfter } from "../Page.js"
import { DepositRepository } from "../ports/DepositRepository.js"
import { byCreatedAt } from "./internal/order.js"
import { key, MemoryStore, omitUndefined, updateIfVersion, withFields } from "./MemoryStore.js"

const storedDeposit = (d: DepositRecord) => omitUndefined(d, ["externalID", "failure", "description"])
const storedRevert = (r: RevertRecord) => omitUndefined(r, ["externalID", "failure", "reason"])
const storedAdjustment = (a: AdjustmentRecord) => omitUndefined(a, ["externalID", "failure"])

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<DepositRepository, never, MemoryStore> = Layer.effect(
  DepositRepository,
  Effect.map(MemoryStore, (store) => {
    const deposits = store.table<DepositRecord>("deposits")
    const reverts = store.table<RevertRecord>("deposit_reverts")
    const adjustments = store.table<AdjustmentRecord>("deposit_adjustments")
    const page = <A extends DepositRecord | RevertRecord | AdjustmentRecord>(
      all: ReadonlyArray<A>,
      filter: Parameters<typeof matches>[1],
      request: { readonly limit: number; readonly after?: { readonly createdAt: Date; readonly id: string } | undefined }
    ) => byCreatedAt(all.filter((m) => matches(m, filter) && isAfter(m, request.after))).slice(0, request.limit + 1)
    return {
      findById: (id) => deposits.get(id),
      list: (filter, request) => Effect.map(deposits.values, (all) => page(all, filter, request)),
      insert: (d) => deposits.insert(d.id, storedDeposit(d)),
      // the SQL adapter writes the status, failure, reverted sum and version
      update: (d, expected) =>
        updateIfVersion(store, deposits, d.id, expected, (before) =>
          storedDeposit(withFields(before, d, ["status", "failure", "reverted", "version"]))),
      findRevert: (depositID, id) => reverts.get(key(depositID, id)),
      revertsOf: (depositID) => Effect.map(reverts.values, (all) => byCreatedAt(all.filter((r) => r.depositID === depositID))),
      listReverts: (filter, request) => Effect.map(reverts.values, (all) => page(all, filter, request)),
      insertRevert: (r) => reverts.insert(key(r.depositID, r.id), storedRevert(r)),
      updateRevert: (r, expected) =>
        updateIfVersion(store, reverts, key(r.depositID, r.id), expected, (before) =>
          storedRevert(withFields(before, r, ["status", "failure", "version"]))),
      findAdjustment: (depositID, id) => adjustments.get(key(depositID, id)),
      adjustmentsOf: (depositID) =>
        Effect.map(adjustments.values, (all) => byCreatedAt(all.filter((a) => a.depositID === depositID))),
      listAdjustments: (filter, request) => Effect.map(adjustments.values, (all) => page(all, filter, request)),
      insertAdjustment: (a) => adjustments.insert(key(a.depositID, a.id), storedAdjustment(a)),
      updateAdjustment: (a, expected) =>
        updateIfVersion(store, adjustments, key(a.depositID, a.id), expected, (before) =>
          storedAdjustment(withFields(before, a, ["status", "failure", "version"])))
    }
  })
)
