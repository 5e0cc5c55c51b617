/**
 * Deposits (money the operator puts into a wallet from a source), their reverts (some of it
 * back to the source, never more than remains) and adjustments (a settled deposit's status
 * changed afterwards, its money moved accordingly). All are made by the operator and read by
 * the party; each is a movement (`movement/Movement`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { type MovementStatus, type SubFailure, toStatus } from "../movement/Movement.js"

/** @since 0.1.0 @category schemas */
export const RevertStatus = Schema.Literal("None", "Partial", "Full")
/** @since 0.1.0 */
export type RevertStatus = typeof RevertStatus.Type

/** The operator's deposit. @since 0.1.0 @category schemas */
export const DepositParams = Schema.Struct({
  wallet: Identifier,
  source: Identifier,
  body: Schema.Struct({ amount: Amount, currency: Currency }),
  externalID: Schema.optional(Identifier),
  desc: Schema.optional(Schema.String.pipe(Schema.maxLength(1000)))
}).annotations({ identifier: "DepositParams" })
/** @since 0.1.0 */
export type DepositParams = typeof DepositParams.Type

/** The operator's revert of a deposit. @since 0.1.0 @category schemas */
export const RevertParams = Schema.Struct({
  body: Schema.Struct({ amount: Amount, currency: Currency }),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  externalID: Schema.optional(Identifier)
}).annotations({ identifier: "DepositRevertParams" })
/** @since 0.1.0 */
export type RevertParams = typeof RevertParams.Type

/** The operator's adjustment: the status the deposit should have. @since 0.1.0 @category schemas */
export const AdjustmentParams = Schema.Struct({
  status: Schema.Literal("Succeeded", "Failed"),
  externalID: Schema.optional(Identifier)
}).annotations({ identifier: "DepositAdjustmentParams" })
/** @since 0.1.0 */
export type AdjustmentParams = typeof AdjustmentParams.Type

/** What deposits, reverts and adjustments share as stored. @since 0.1.0 @category models */
interface Movement {
  readonly id: string
  readonly partyID: string
  readonly walletID: string
  readonly identityID: string
  readonly sourceID: string
  readonly amount: number
  readonly currency: string
  readonly externalID?: string | undefined
  readonly status: MovementStatus
  readonly failure?: SubFailure | undefined
  readonly createdAt: Date
  readonly version: number
}

/** @since 0.1.0 @category models */
export interface DepositRecord extends Movement {
  readonly description?: string | undefined
  /** The sum of its reverts that succeeded. */
  readonly reverted: number
}

/** @since 0.1.0 @category models */
export interface RevertRecord extends Movement {
  readonly depositID: string
  readonly reason?: string | undefined
}

/** @since 0.1.0 @category models */
export interface AdjustmentRecord extends Movement {
  readonly depositID: string
  /** The status the deposit gets when the adjustment succeeds. */
  readonly target: "Succeeded" | "Failed"
}

/** @since 0.1.0 */
export const revertStatusOf = (d: Pick<DepositRecord, "amount" | "reverted">): RevertStatus =>
  d.reverted === 0 ? "None" : d.reverted >= d.amount ? "Full" : "Partial"

const cash = (m: Movement) => ({ amount: m.amount, currency: m.currency })

/** @since 0.1.0 */
export const toDeposit = (d: DepositRecord) => ({
  id: d.id,
  createdAt: d.createdAt,
  wallet: d.walletID,
  source: d.sourceID,
  body: cash(d),
  ...(d.externalID === undefined ? {} : { externalID: d.externalID }),
  ...(d.description === undefined ? {} : { desc: d.description }),
  ...toStatus(d),
  revertStatus: revertStatusOf(d)
})

/** @since 0.1.0 */
export const toRevert = (r: RevertRecord) => ({
  id: r.id,
  createdAt: r.createdAt,
  depositID: r.depositID,
  wallet: r.walletID,
  source: r.sourceID,
  body: cash(r),
  ...(r.reason === undefined ? {} : { reason: r.reason }),
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  ...toStatus(r)
})

/** @since 0.1.0 */
export const toAdjustment = (a: AdjustmentRecord) => ({
  id: a.id,
  createdAt: a.createdAt,
  depositID: a.depositID,
  changesStatusTo: a.target,
  ...(a.externalID === undefined ? {} : { externalID: a.externalID }),
  ...toStatus(a)
})

/** Every filter of `listDeposits`, `listDepositReverts` and `listDepositAdjustments`. @since 0.1.0 @category models */
export interface DepositFilter {
  readonly partyID: string
  readonly walletID?: string | undefined
  readonly identityID?: string | undefined
  readonly depositID?: string | undefined
  readonly sourceID?: string | undefined
  readonly status?: MovementStatus | undefined
  readonly createdAtFrom?: Date | undefined
  readonly createdAtTo?: Date | undefined
  readonly amountFrom?: number | undefined
  readonly amountTo?: number | undefined
  readonly currencyID?: string | undefined
  /** Deposits only. */
  readonly revertStatus?: RevertStatus | undefined
}

/** Whether a deposit, revert or adjustment passes `filter` (the memory adapter's and the tests' reading). @since 0.1.0 */
export const matches = (
  m: Movement & { readonly depositID?: string | undefined; readonly reverted?: number | undefined },
  filter: DepositFilter
): boolean =>
  m.partyID === filter.partyID &&
  (filter.walletID === undefined || m.walletID === filter.walletID) &&
  (filter.identityID === undefined || m.identityID === filter.identityID) &&
  (filter.depositID === undefined || (m.depositID ?? m.id) === filter.depositID) &&
  (filter.sourceID === undefined || m.sourceID === filter.sourceID) &&
  (filter.status === undefined || m.status === filter.status) &&
  (filter.createdAtFrom === undefined || m.createdAt.getTime() >= filter.createdAtFrom.getTime()) &&
  (filter.createdAtTo === undefined || m.createdAt.getTime() <= filter.createdAtTo.getTime()) &&
  (filter.amountFrom === undefined || m.amount >= filter.amountFrom) &&
  (filter.amountTo === undefined || m.amount <= filter.amountTo) &&
  (filter.currencyID === undefined || m.currency === filter.currencyID) &&
  (filter.revertStatus === undefined ||
    (m.reverted !== undefined && revertStatusOf({ amount: m.amount, reverted: m.reverted }) === filter.revertStatus))
