/**
 * The deposit's facade: the operator's deposits, reverts and adjustments (`CreateDeposit`,
 * `CreateRevert`, `CreateAdjustment`, settled by `DepositContext`'s background steps) and the
 * party's lists of them, with every filter the interface's list operations take.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Traced from "../internal/traced.js"
import type { MovementCommand } from "../movement/Movement.js"
import * as Page from "../Page.js"
import * as CreateAdjustment from "./CreateAdjustment.js"
import * as CreateDeposit from "./CreateDeposit.js"
import * as CreateRevert from "./CreateRevert.js"
import { type DepositFilter, toAdjustment, toDeposit, toRevert } from "./Deposit.js"
import * as DepositContext from "./DepositContext.js"

/** @since 0.1.0 */
export { ADJUSTMENT_TIMER, DEPOSIT_TIMER, REVERT_TIMER } from "./DepositContext.js"

/** A list request: the filters (`partyID` the caller's, or another's which finds none) and the page. @since 0.1.0 @category models */
export interface ListParams extends Omit<DepositFilter, "partyID"> {
  readonly partyID?: string | undefined
  readonly limit: number
  readonly after?: Page.Cursor | undefined
}

/** What builds the service: `DepositService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* DepositContext.make
  const { deposits } = ctx

  const filterOf = (partyID: string, { after: _a, limit: _l, ...filter }: ListParams): DepositFilter | undefined =>
    filter.partyID !== undefined && filter.partyID !== partyID ? undefined : { ...filter, partyID }

  const list = Traced.fn("DepositService.list")(function*(partyID: string, params: ListParams) {
    const filter = filterOf(partyID, params)
    if (filter === undefined) return { result: [] } as Page.Page<ReturnType<typeof toDeposit>>
    return Page.of(yield* deposits.list(filter, params), params.limit, toDeposit)
  })
  const listReverts = Traced.fn("DepositService.listReverts")(function*(partyID: string, params: ListParams) {
    const filter = filterOf(partyID, params)
    if (filter === undefined) return { result: [] } as Page.Page<ReturnType<typeof toRevert>>
    return Page.of(yield* deposits.listReverts(filter, params), params.limit, toRevert)
  })
  const listAdjustments = Traced.fn("DepositService.listAdjustments")(function*(partyID: string, params: ListParams) {
    const filter = filterOf(partyID, params)
    if (filter === undefined) return { result: [] } as Page.Page<ReturnType<typeof toAdjustment>>
    return Page.of(yield* deposits.listAdjustments(filter, params), params.limit, toAdjustment)
  })

  return {
    create: CreateDeposit.make(ctx),
    revert: CreateRevert.make(ctx),
    adjust: CreateAdjustment.make(ctx),
    /** The operator reads any. */
    get: ctx.load,
    getRevert: ctx.loadRevert,
    getAdjustment: ctx.loadAdjustment,
    /** The operator fails a pending deposit (its money never arrives). */
    fail: (id: string, failure: MovementCommand & { readonly _tag: "Fail" }) => ctx.settleDeposit(id, failure),
    list,
    listReverts,
    listAdjustments
  } as const
})

/** @since 0.1.0 @category services */
export class DepositService extends Effect.Service<DepositService>()("kassa/DepositService", {
  effect: make
}) {}
