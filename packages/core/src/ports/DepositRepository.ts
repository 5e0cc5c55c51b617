/**
 * Storage of deposits, their reverts and adjustments. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { AdjustmentRecord, DepositFilter, DepositRecord, RevertRecord } from "../deposit/Deposit.js"
import type { PageRequest } from "../Page.js"

/** @since 0.1.0 @category tags */
export class DepositRepository extends Context.Tag("kassa/DepositRepository")<DepositRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<DepositRecord>>
  /** In creation order, `limit + 1` at most; every filter applies. */
  readonly list: (filter: DepositFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<DepositRecord>>
  readonly insert: (deposit: DepositRecord) => Effect.Effect<void>
  readonly update: (deposit: DepositRecord, expectedVersion: number) => Effect.Effect<boolean>
  readonly findRevert: (depositID: string, id: string) => Effect.Effect<Option.Option<RevertRecord>>
  /** The deposit's reverts in creation order. */
  readonly revertsOf: (depositID: string) => Effect.Effect<ReadonlyArray<RevertRecord>>
  readonly listReverts: (filter: DepositFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<RevertRecord>>
  readonly insertRevert: (revert: RevertRecord) => Effect.Effect<void>
  readonly updateRevert: (revert: RevertRecord, expectedVersion: number) => Effect.Effect<boolean>
  readonly findAdjustment: (depositID: string, id: string) => Effect.Effect<Option.Option<AdjustmentRecord>>
  /** The deposit's adjustments in creation order. */
  readonly adjustmentsOf: (depositID: string) => Effect.Effect<ReadonlyArray<AdjustmentRecord>>
  readonly listAdjustments: (filter: DepositFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<AdjustmentRecord>>
  readonly insertAdjustment: (adjustment: AdjustmentRecord) => Effect.Effect<void>
  readonly updateAdjustment: (adjustment: AdjustmentRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
