/**
 * The operator's adjustment: a settled deposit's status changed afterwards. To `Failed`, what the
 * deposit left in the wallet (its amount less succeeded reverts) goes back to the source, if the
 * wallet still covers it (else the adjustment fails `account_limit_exceeded`); to `Succeeded`, it
 * comes in again. Never to `Pending`, never to the status it has, one at a time and not while a
 * revert is pending (409). Held, stored and settled as `DepositChild` does.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Conflict, InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import type { AdjustmentParams, AdjustmentRecord } from "./Deposit.js"
import * as DepositChild from "./DepositChild.js"
import { adjustmentPlan, type DepositContext } from "./DepositContext.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.depositAdjustment"

/** @since 0.1.0 @category constructors */
export const make = (ctx: DepositContext) =>
  DepositChild.make(ctx, {
    span: "DepositService.adjust",
    operation: OPERATION,
    fingerprint: (depositID, params: AdjustmentParams) => canonicalJson({ depositID, status: params.status }),
    externalID: (params) => params.externalID,
    load: ctx.loadAdjustment,
    check: (d, params) =>
      Effect.gen(function*() {
        if (d.status === "Pending") return yield* InvalidOperation.of("Invalid deposit status")
        if (d.status === params.status) return yield* InvalidOperation.of("Invalid adjustment status")
        const busy = [...(yield* ctx.deposits.adjustmentsOf(d.id)), ...(yield* ctx.deposits.revertsOf(d.id))].find((m) =>
          m.status === "Pending"
        )
        if (busy !== undefined) return yield* new Conflict({ id: busy.id, message: "The deposit has a pending revert or adjustment" })
        // a deposit reverted in full leaves nothing to move
        if (d.amount - d.reverted === 0) return yield* InvalidOperation.of("Insufficient deposit amount")
      }),
    pending: (base, d, params): AdjustmentRecord => ({ ...base, amount: d.amount - d.reverted, target: params.status }),
    plan: adjustmentPlan,
    outOfWallet: (params) => params.status === "Failed",
    description: "deposit adjustment",
    insert: ctx.deposits.insertAdjustment,
    processing: ctx.processing.adjustment
  })
