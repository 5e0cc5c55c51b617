/**
 * Storage of withdrawals. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { PageRequest } from "../Page.js"
import type { WithdrawalFilter, WithdrawalRecord } from "../withdrawal/Withdrawal.js"

/** @since 0.1.0 @category tags */
export class WithdrawalRepository extends Context.Tag("kassa/WithdrawalRepository")<WithdrawalRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<WithdrawalRecord>>
  /** In creation order, `limit + 1` at most; every filter applies. */
  readonly list: (filter: WithdrawalFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<WithdrawalRecord>>
  readonly insert: (withdrawal: WithdrawalRecord) => Effect.Effect<void>
  /** Writes the status, failure, attempts, events and version if the stored version is still `expectedVersion`. */
  readonly update: (withdrawal: WithdrawalRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
