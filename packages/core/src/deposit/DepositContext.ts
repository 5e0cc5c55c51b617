/**
 * What the deposit's modules work with, resolved once by the facade: storage, the ledger, the
 * plans of deposits, reverts and adjustments, and their settling (`movement/Settlement`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import * as Optimistic from "../internal/optimistic.js"
import { MovementCommand } from "../movement/Movement.js"
import * as Settlement from "../movement/Settlement.js"
import { DepositRepository } from "../ports/DepositRepository.js"
import { Idempotency } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { Ledger } from "../ports/Ledger.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { WalletRepository } from "../ports/WalletRepository.js"
import * as Ref from "../Ref.js"
import { KassaSettings } from "../Settings.js"
import type { AdjustmentRecord, DepositRecord, RevertRecord } from "./Deposit.js"

/** A revert or an adjustment: `depositID/id`. @since 0.1.0 */
export const ChildRef = Ref.make("depositID", "id")

/** @since 0.1.0 */
export const DEPOSIT_TIMER = "deposit.settle"
/** @since 0.1.0 */
export const REVERT_TIMER = "deposit.revert.settle"
/** @since 0.1.0 */
export const ADJUSTMENT_TIMER = "deposit.adjustment.settle"

/** The ledger plans. @since 0.1.0 */
export const depositPlan = (d: Pick<DepositRecord, "id">) => `deposit/${d.id}`
/** @since 0.1.0 */
export const revertPlan = (r: Pick<RevertRecord, "depositID" | "id">) => `deposit-revert/${r.depositID}/${r.id}`
/** @since 0.1.0 */
export const adjustmentPlan = (a: Pick<AdjustmentRecord, "depositID" | "id">) => `deposit-adjustment/${a.depositID}/${a.id}`

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const deposits = yield* DepositRepository
  const ledger = yield* Ledger
  const tx = yield* Transactions
  const timers = yield* Timers
  const settings = yield* KassaSettings
  const orNotFound = <A>(what: string, id: string) => (o: Option.Option<A>) =>
    Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of(what, id))
  const load = (id: string) => Effect.flatMap(deposits.findById(id), orNotFound<DepositRecord>("Deposit", id))
  const loadRevert = (depositID: string, id: string) =>
    Effect.flatMap(deposits.findRevert(depositID, id), orNotFound<RevertRecord>("Deposit revert", id))
  const loadAdjustment = (depositID: string, id: string) =>
    Effect.flatMap(deposits.findAdjustment(depositID, id), orNotFound<AdjustmentRecord>("Deposit adjustment", id))

  /** Writes the deposit's change inside a settling transaction; a lost race retries the settling. */
  const saveDeposit = (depositID: string, change: (d: DepositRecord) => DepositRecord) =>
    Effect.gen(function*() {
      const d = yield* Effect.orDie(load(depositID))
      if (!(yield* deposits.update({ ...change(d), version: d.version + 1 }, d.version))) {
        return yield* new Optimistic.VersionConflict({ what: `deposit ${depositID}` })
      }
    })

  const settleDeposit = (id: string, command: MovementCommand) =>
    Settlement.settle(tx, ledger, { read: load(id), update: deposits.update, what: `deposit ${id}`, plan: depositPlan({ id }) }, command)

  const settleRevert = (depositID: string, id: string, command: MovementCommand) =>
    Settlement.settle(tx, ledger, {
      read: loadRevert(depositID, id),
      update: deposits.updateRevert,
      what: `deposit revert ${depositID}/${id}`,
      plan: revertPlan({ depositID, id }),
      moved: (r) =>
        r.status === "Succeeded" ? saveDeposit(depositID, (d) => ({ ...d, reverted: d.reverted + r.amount })) : Effect.void
    }, command)

  const settleAdjustment = (depositID: string, id: string, command: MovementCommand) =>
    Settlement.settle(tx, ledger, {
      read: loadAdjustment(depositID, id),
      update: deposits.updateAdjustment,
      what: `deposit adjustment ${depositID}/${id}`,
      plan: adjustmentPlan({ depositID, id }),
      moved: (a) =>
        a.status === "Succeeded"
          ? saveDeposit(depositID, (d) => ({ ...d, status: a.target, failure: a.target === "Failed" ? { code: "adjusted" } : undefined }))
          : Effect.void
    }, command)

  const deps = { timers, tx, settings }
  const succeed = MovementCommand.Succeed()
  const deposit = yield* Settlement.processing(deps, DEPOSIT_TIMER, (id) => settleDeposit(id, succeed))
  const revert = yield* Settlement.processing(deps, REVERT_TIMER, (ref) => {
    const { depositID, id } = ChildRef.decode(ref)
    return settleRevert(depositID, id, succeed)
  })
  const adjustment = yield* Settlement.processing(deps, ADJUSTMENT_TIMER, (ref) => {
    const { depositID, id } = ChildRef.decode(ref)
    return settleAdjustment(depositID, id, succeed)
  })

  return {
    deposits,
    wallets: yield* WalletRepository,
    ledger,
    tx,
    ids: yield* Ids,
    externalIDs: Idempotent.make(yield* Idempotency),
    load,
    loadRevert,
    loadAdjustment,
    settleDeposit,
    settleRevert,
    settleAdjustment,
    processing: { deposit, revert, adjustment }
  }
})

/** @since 0.1.0 @category models */
export type DepositContext = Effect.Effect.Success<typeof make>
