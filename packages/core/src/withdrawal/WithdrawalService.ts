/**
 * The withdrawal's facade for handlers and embedders: create one (`CreateWithdrawal`), read
 * them (the party that made one, and the owner of its wallet), list them by every filter, and read their events (`WithdrawalStatusChanged`, numbered
 * from 1; a poll answers those after `eventCursor`, at most `limit`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { NotFound } from "../Errors.js"
import * as PartyReads from "../internal/partyReads.js"
import * as Traced from "../internal/traced.js"
import type { MovementStatus } from "../movement/Movement.js"
import type * as Page from "../Page.js"
import { WalletService } from "../wallet/WalletService.js"
import * as CreateQuote from "./CreateQuote.js"
import * as CreateWithdrawal from "./CreateWithdrawal.js"
import { toWithdrawal, toWithdrawalEvent, visibleTo, type WithdrawalFilter } from "./Withdrawal.js"
import * as WithdrawalContext from "./WithdrawalContext.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateWithdrawal.js"
/** @since 0.1.0 */
export { MAX_ATTEMPTS, PAYOUT_TIMER } from "./WithdrawalContext.js"

/** @since 0.1.0 @category models */
export interface ListParams extends Omit<WithdrawalFilter, "partyID" | "status"> {
  readonly partyID?: string | undefined
  readonly status?: MovementStatus | undefined
  readonly limit: number
  readonly after?: Page.Cursor | undefined
}

/** What builds the service: `WithdrawalService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* WithdrawalContext.make
  const { externalIDs, withdrawals } = ctx
  const { get, getByExternalID, list } = PartyReads.make({
    service: "WithdrawalService",
    what: "Withdrawal",
    operation: CreateWithdrawal.OPERATION,
    externalIDs,
    findById: withdrawals.findById,
    list: withdrawals.list,
    show: toWithdrawal,
    visibleTo
  })

  const events = Traced.fn("WithdrawalService.events")(function*(
    partyID: string,
    id: string,
    params: { readonly limit: number; readonly eventCursor?: number | undefined }
  ) {
    const w = yield* get(partyID, id)
    return w.events.filter((e) => params.eventCursor === undefined || e.eventID > params.eventCursor).slice(0, params.limit).map(
      toWithdrawalEvent
    )
  })

  const event = Traced.fn("WithdrawalService.event")(function*(partyID: string, id: string, eventID: number) {
    const w = yield* get(partyID, id)
    const found = w.events.find((e) => e.eventID === eventID)
    if (found === undefined) return yield* NotFound.of("Withdrawal event", String(eventID))
    return toWithdrawalEvent(found)
  })

  return { create: CreateWithdrawal.make(ctx), quote: CreateQuote.make(ctx), get, getByExternalID, list, events, event, settle: ctx.settle } as const
})

/** @since 0.1.0 @category services */
export class WithdrawalService extends Effect.Service<WithdrawalService>()("kassa/WithdrawalService", {
  effect: make,
  dependencies: [WalletService.Default]
}) {}
