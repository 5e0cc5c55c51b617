/**
 * The operator's revert: some of a succeeded deposit back from the wallet to its source, never
 * more than what its other reverts (pending or succeeded) leave. The deposit's version is bumped
 * so concurrent reverts are serialised. Its plan (wallet → source) is held and, when the wallet
 * can no longer cover it, rolled back at once: the revert fails `account_limit_exceeded`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import { accountKey, sourceKey } from "../wallet/WalletAccount.js"
import type { RevertParams, RevertRecord } from "./Deposit.js"
import { ChildRef, type DepositContext, revertPlan } from "./DepositContext.js"
import { OPERATOR_NAMESPACE } from "./CreateDeposit.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.depositRevert"

/** What a deposit leaves to revert: its amount less its reverts that did not fail. @since 0.1.0 */
export const remaining = (amount: number, reverts: ReadonlyArray<Pick<RevertRecord, "amount" | "status">>) =>
  amount - reverts.filter((r) => r.status !== "Failed").reduce((a, r) => a + r.amount, 0)

/** @since 0.1.0 @category constructors */
export const make = (ctx: DepositContext) => {
  const { deposits, externalIDs, ids, ledger, load, loadRevert, processing, tx } = ctx
  return Traced.fn("DepositService.revert")(function*(depositID: string, params: RevertParams) {
    const known = yield* Effect.mapError(load(depositID), () => InvalidOperation.of("No such deposit"))
    const revert = yield* externalIDs.create({
      partyID: known.partyID,
      namespace: OPERATOR_NAMESPACE,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => canonicalJson({ depositID, body: params.body, reason: params.reason ?? null }),
      ref: ChildRef,
      load: (ref) => loadRevert(ref.depositID, ref.id)
    }, (claim) =>
      Optimistic.command(tx.withTransaction, { read: load(depositID), update: deposits.update, what: `deposit ${depositID}` }, ({
        current: d,
        save
      }) =>
        Effect.gen(function*() {
          if (d.status !== "Succeeded") return yield* InvalidOperation.of("Invalid deposit status")
          if (params.body.currency !== d.currency) return yield* InvalidOperation.of("Inconsistent currency")
          if (params.body.amount > remaining(d.amount, yield* deposits.revertsOf(depositID))) {
            return yield* InvalidOperation.of("Insufficient deposit amount")
          }
          yield* save(d)
          const id = yield* ids.next
          yield* claim({ depositID, id })
          const pending: RevertRecord = {
            id,
            depositID,
            partyID: d.partyID,
            walletID: d.walletID,
            identityID: d.identityID,
            sourceID: d.sourceID,
            amount: params.body.amount,
            currency: d.currency,
            ...(params.reason === undefined ? {} : { reason: params.reason }),
            ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
            status: "Pending",
            createdAt: new Date(yield* Clock.currentTimeMillis),
            version: 1
          }
          const plan = revertPlan(pending)
          const wallet = yield* ledger.account(accountKey({ id: d.walletID, partyID: d.partyID, currency: d.currency }))
          const source = yield* ledger.account(sourceKey(d.currency))
          const covered = yield* holdChecked(ledger, plan, [
            { from: wallet, to: source, amount: pending.amount, currency: d.currency, description: "deposit revert" }
          ], wallet)
          if (covered) {
            yield* deposits.insertRevert(pending)
            yield* processing.revert.schedule(ChildRef.encode({ depositID, id }))
            return pending
          }
          yield* ledger.rollback(plan)
          const failed: RevertRecord = { ...pending, ...decide(pending, MovementCommand.Fail({ failure: insufficientFunds })).state }
          yield* deposits.insertRevert(failed)
          return failed
        })))
    if (revert.status === "Pending") yield* processing.revert.kick(ChildRef.encode({ depositID, id: revert.id }))
    return revert
  })
}
