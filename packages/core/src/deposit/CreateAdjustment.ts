/**
 * The operator's adjustment: a settled deposit's status changed afterwards. To `Failed`, what the
 * deposit left in the wallet (its amount less succeeded reverts) goes back to the source, if the
 * wallet still covers it (else the adjustment fails `account_limit_exceeded`); to `Succeeded`, it
 * comes in again. Never to `Pending`, never to the status it has, one at a time and not while a
 * revert is pending (409).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Conflict, InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import { accountKey, sourceKey } from "../wallet/WalletAccount.js"
import type { AdjustmentParams, AdjustmentRecord } from "./Deposit.js"
import { OPERATOR_NAMESPACE } from "./CreateDeposit.js"
import { adjustmentPlan, ChildRef, type DepositContext } from "./DepositContext.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.depositAdjustment"

/** @since 0.1.0 @category constructors */
export const make = (ctx: DepositContext) => {
  const { deposits, externalIDs, ids, ledger, load, loadAdjustment, processing, tx } = ctx
  return Traced.fn("DepositService.adjust")(function*(depositID: string, params: AdjustmentParams) {
    const known = yield* Effect.mapError(load(depositID), () => InvalidOperation.of("No such deposit"))
    const adjustment = yield* externalIDs.create({
      partyID: known.partyID,
      namespace: OPERATOR_NAMESPACE,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ depositID, status: params.status }),
      ref: ChildRef,
      load: (ref) => loadAdjustment(ref.depositID, ref.id)
    }, (claim) =>
      Optimistic.command(tx.withTransaction, { read: load(depositID), update: deposits.update, what: `deposit ${depositID}` }, ({
        current: d,
        save
      }) =>
        Effect.gen(function*() {
          if (d.status === "Pending") return yield* InvalidOperation.of("Invalid deposit status")
          if (d.status === params.status) return yield* InvalidOperation.of("Invalid adjustment status")
          const busy = [
            ...(yield* deposits.adjustmentsOf(depositID)),
            ...(yield* deposits.revertsOf(depositID))
          ].find((m) => m.status === "Pending")
          if (busy !== undefined) return yield* new Conflict({ id: busy.id, message: "The deposit has a pending revert or adjustment" })
          // a deposit reverted in full leaves nothing to move
          if (d.amount - d.reverted === 0) return yield* InvalidOperation.of("Insufficient deposit amount")
          yield* save(d)
          const id = yield* ids.next
          yield* claim({ depositID, id })
          const pending: AdjustmentRecord = {
            id,
            depositID,
            partyID: d.partyID,
            walletID: d.walletID,
            identityID: d.identityID,
            sourceID: d.sourceID,
            amount: d.amount - d.reverted,
            currency: d.currency,
            target: params.status,
            ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
            status: "Pending",
            createdAt: new Date(yield* Clock.currentTimeMillis),
            version: 1
          }
          const plan = adjustmentPlan(pending)
          const wallet = yield* ledger.account(accountKey({ id: d.walletID, partyID: d.partyID, currency: d.currency }))
          const source = yield* ledger.account(sourceKey(d.currency))
          const [from, to] = params.status === "Failed" ? [wallet, source] : [source, wallet]
          const covered = yield* holdChecked(ledger, plan, [
            { from, to, amount: pending.amount, currency: d.currency, description: "deposit adjustment" }
          ], from)
          // the source may go below zero: it is where deposits come from
          if (covered || params.status === "Succeeded") {
            yield* deposits.insertAdjustment(pending)
            yield* processing.adjustment.schedule(ChildRef.encode({ depositID, id }))
            return pending
          }
          yield* ledger.rollback(plan)
          const failed: AdjustmentRecord = { ...pending, ...decide(pending, MovementCommand.Fail({ failure: insufficientFunds })).state }
          yield* deposits.insertAdjustment(failed)
          return failed
        })))
    if (adjustment.status === "Pending") yield* processing.adjustment.kick(ChildRef.encode({ depositID, id: adjustment.id }))
    return adjustment
  })
}
