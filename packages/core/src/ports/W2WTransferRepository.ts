/**
 * Storage of wallet-to-wallet transfers. Writes are optimistic.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { W2WTransferRecord } from "../transfer/W2WTransfer.js"

/** @since 0.1.0 @category tags */
export class W2WTransferRepository extends Context.Tag("kassa/W2WTransferRepository")<W2WTransferRepository, {
  readonly findById: (id: string) => Effect.Effect<Option.Option<W2WTransferRecord>>
  readonly insert: (transfer: W2WTransferRecord) => Effect.Effect<void>
  readonly update: (transfer: W2WTransferRecord, expectedVersion: number) => Effect.Effect<boolean>
}>() {}
