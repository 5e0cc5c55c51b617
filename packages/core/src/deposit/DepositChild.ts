/**
 * What the operator's revert and adjustment of a deposit do alike: find the deposit ("No such
 * deposit"), claim the `externalID` in the operator's namespace, and, in one transaction that
 * bumps the deposit's version (so they are serialised), check, hold the movement's plan between
 * the wallet and the source and store the movement: `Pending` and scheduled to settle when the
 * wallet covers it (or the source pays: it may go below zero), else with the plan rolled back,
 * `Failed` `account_limit_exceeded`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { InvalidOperation, type NotFound } from "../Errors.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { decide, insufficientFunds, MovementCommand } from "../movement/Movement.js"
import { holdChecked } from "../movement/Settlement.js"
import { accountKey, sourceKey } from "../wallet/WalletAccount.js"
import { OPERATOR_NAMESPACE } from "./CreateDeposit.js"
import type { AdjustmentRecord, DepositRecord, RevertRecord } from "./Deposit.js"
import { ChildRef, type DepositContext } from "./DepositContext.js"

/** What a revert or an adjustment takes of its deposit, as it starts. @since 0.1.0 @category models */
export type ChildBase = Omit<RevertRecord, "amount" | "reason">

/** @since 0.1.0 @category models */
export interface ChildSpec<C extends RevertRecord | AdjustmentRecord, P, E> {
  /** The facade's method, as the spans name it. */
  readonly span: string
  readonly operation: string
  /** The parameters that make a repeated `externalID` the same request. */
  readonly fingerprint: (depositID: string, params: P) => string
  readonly externalID: (params: P) => string | undefined
  readonly load: (depositID: string, id: string) => Effect.Effect<C, NotFound>
  /** The refusals, before anything is written. */
  readonly check: (d: DepositRecord, params: P) => Effect.Effect<void, E>
  readonly pending: (base: ChildBase, d: DepositRecord, params: P) => C
  readonly plan: (c: C) => string
  /** Out of the wallet to the source, or back in. */
  readonly outOfWallet: (params: P) => boolean
  readonly description: string
  readonly insert: (c: C) => Effect.Effect<void>
  readonly processing: DepositContext["processing"]["revert"]
}

/** @since 0.1.0 @category constructors */
export const make = <C extends RevertRecord | AdjustmentRecord, P, E>(ctx: DepositContext, spec: ChildSpec<C, P, E>) => {
  const { deposits, externalIDs, ids, ledger, load, tx } = ctx
  return Traced.fn(spec.span)(function*(depositID: string, params: P) {
    const known = yield* Effect.mapError(load(depositID), () => InvalidOperation.of("No such deposit"))
    const child = yield* externalIDs.create({
      partyID: known.partyID,
      namespace: OPERATOR_NAMESPACE,
      operation: spec.operation,
      externalID: spec.externalID(params),
      fingerprint: () => spec.fingerprint(depositID, params),
      ref: ChildRef,
      load: (ref) => spec.load(ref.depositID, ref.id)
    }, (claim) =>
      Optimistic.command(tx.withTransaction, { read: load(depositID), update: deposits.update, what: `deposit ${depositID}` }, ({
        current: d,
        save
      }) =>
        Effect.gen(function*() {
          yield* spec.check(d, params)
          yield* save(d)
          const id = yield* ids.next
          yield* claim({ depositID, id })
          const externalID = spec.externalID(params)
          const pending = spec.pending({
            id,
            depositID,
            partyID: d.partyID,
            walletID: d.walletID,
            identityID: d.identityID,
            sourceID: d.sourceID,
            currency: d.currency,
            ...(externalID === undefined ? {} : { externalID }),
            status: "Pending",
            createdAt: new Date(yield* Clock.currentTimeMillis),
            version: 1
          }, d, params)
          const plan = spec.plan(pending)
          const wallet = yield* ledger.account(accountKey({ id: d.walletID, partyID: d.partyID, currency: d.currency }))
          const source = yield* ledger.account(sourceKey(d.currency))
          const out = spec.outOfWallet(params)
          const [from, to] = out ? [wallet, source] : [source, wallet]
          const covered = yield* holdChecked(ledger, plan, [
            { from, to, amount: pending.amount, currency: d.currency, description: spec.description }
          ], from)
          if (covered || !out) {
            yield* spec.insert(pending)
            yield* spec.processing.schedule(ChildRef.encode({ depositID, id }))
            return pending
          }
          yield* ledger.rollback(plan)
          const failed = { ...pending, ...decide(pending, MovementCommand.Fail({ failure: insufficientFunds })).state }
          yield* spec.insert(failed)
          return failed
        })))
    if (child.status === "Pending") yield* spec.processing.kick(ChildRef.encode({ depositID, id: child.id }))
    return child
  })
}
