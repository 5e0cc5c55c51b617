/**
 * Storage of wallets. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { PageRequest } from "../Page.js"
import type { WalletFilter, WalletRecord } from "../wallet/Wallet.js"

/** @since 0.1.0 @category tags */
export class WalletRepository extends Context.Tag("kassa/WalletRepository")<WalletRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<WalletRecord>>
  /** In creation order, `limit + 1` at most. */
  readonly list: (filter: WalletFilter, page: PageRequest) => Effect.Effect<ReadonlyArray<WalletRecord>>
  readonly insert: (wallet: WalletRecord) => Effect.Effect<void>
  /** Writes `wallet` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (wallet: WalletRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
