/**
 * The operator's revert: some of a succeeded deposit back from the wallet to its source, never
 * more than what its other reverts (pending or succeeded) leave. Held, stored and settled as
 * `DepositChild` does: when the wallet can no longer cover it, it fails `account_limit_exceeded`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidOperation } from "../Errors.js"
import { canonicalJson } from "../internal/canonical.js"
import type { RevertParams, RevertRecord } from "./Deposit.js"
import * as DepositChild from "./DepositChild.js"
import { type DepositContext, revertPlan } from "./DepositContext.js"

/** @since 0.1.0 */
export const OPERATION = "wallet.depositRevert"

/** What a deposit leaves to revert: its amount less its reverts that did not fail. @since 0.1.0 */
export const remaining = (amount: number, reverts: ReadonlyArray<Pick<RevertRecord, "amount" | "status">>) =>
  amount - reverts.filter((r) => r.status !== "Failed").reduce((a, r) => a + r.amount, 0)

/** @since 0.1.0 @category constructors */
export const make = (ctx: DepositContext) =>
  DepositChild.make(ctx, {
    span: "DepositService.revert",
    operation: OPERATION,
    fingerprint: (depositID, params: RevertParams) => canonicalJson({ depositID, body: params.body, reason: params.reason ?? null }),
    externalID: (params) => params.externalID,
    load: ctx.loadRevert,
    check: (d, params) =>
      Effect.gen(function*() {
        if (d.status !== "Succeeded") return yield* InvalidOperation.of("Invalid deposit status")
        if (params.body.currency !== d.currency) return yield* InvalidOperation.of("Inconsistent currency")
        if (params.body.amount > remaining(d.amount, yield* ctx.deposits.revertsOf(d.id))) {
          return yield* InvalidOperation.of("Insufficient deposit amount")
        }
      }),
    pending: (base, _, params): RevertRecord => ({
      ...base,
      amount: params.body.amount,
      ...(params.reason === undefined ? {} : { reason: params.reason })
    }),
    plan: revertPlan,
    outOfWallet: () => true,
    description: "deposit revert",
    insert: ctx.deposits.insertRevert,
    processing: ctx.processing.revert
  })
