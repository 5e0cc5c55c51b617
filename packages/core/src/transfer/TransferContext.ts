/**
 * What the transfer's modules work with, resolved once by the facade, and its settling step.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import { MovementCommand } from "../movement/Movement.js"
import * as Settlement from "../movement/Settlement.js"
import { Idempotency } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { Ledger } from "../ports/Ledger.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { W2WTransferRepository } from "../ports/W2WTransferRepository.js"
import { WalletRepository } from "../ports/WalletRepository.js"
import { KassaSettings } from "../Settings.js"
import type { W2WTransferRecord } from "./W2WTransfer.js"

/** @since 0.1.0 */
export const SETTLE_TIMER = "w2w.settle"

/** The ledger plan of a transfer. @since 0.1.0 */
export const planOf = (t: Pick<W2WTransferRecord, "id">) => `w2w/${t.id}`

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const transfers = yield* W2WTransferRepository
  const ledger = yield* Ledger
  const tx = yield* Transactions
  const load = (id: string) =>
    Effect.flatMap(transfers.findById(id), (o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("W2W transfer", id))))
  const settle = (id: string, command: MovementCommand) =>
    Settlement.settle(tx, ledger, { read: load(id), update: transfers.update, what: `w2w transfer ${id}`, plan: planOf({ id }) }, command)
  const processing = yield* Settlement.processing(
    { timers: yield* Timers, tx, settings: yield* KassaSettings },
    SETTLE_TIMER,
    (id) => settle(id, MovementCommand.Succeed())
  )
  return {
    transfers,
    wallets: yield* WalletRepository,
    ledger,
    tx,
    ids: yield* Ids,
    externalIDs: Idempotent.make(yield* Idempotency),
    load,
    settle,
    processing
  }
})

/** @since 0.1.0 @category models */
export type TransferContext = Effect.Effect.Success<typeof make>
