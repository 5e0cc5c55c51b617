/**
 * Storage of wallet grants: what each may spend and has spent. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { WalletGrantRecord } from "../wallet/Wallet.js"

/** @since 0.1.0 @category tags */
export class WalletGrantRepository extends Context.Tag("kassa/WalletGrantRepository")<WalletGrantRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<WalletGrantRecord>>
  readonly insert: (grant: WalletGrantRecord) => Effect.Effect<void>
  /** Writes `grant` if the stored version is still `expectedVersion`; answers whether it did. */
  readonly update: (grant: WalletGrantRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
