/**
 * The withdrawal's facade for handlers and embedders: create one (`CreateWithdrawal`), read
 * them, list them by every filter, and read their events (`WithdrawalStatusChanged`, numbered
 * from 1; a poll answers those after `eventCursor`, at most `limit`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import type { MovementStatus } from "../movement/Movement.js"
import * as Page from "../Page.js"
import * as Ref from "../Ref.js"
import { WalletService } from "../wallet/WalletService.js"
import * as CreateQuote from "./CreateQuote.js"
import * as CreateWithdrawal from "./CreateWithdrawal.js"
import { toWithdrawal, toWithdrawalEvent, type WithdrawalFilter } from "./Withdrawal.js"
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

/** @since 0.1.0 @category services */
export class WithdrawalService extends Effect.Service<WithdrawalService>()("kassa/WithdrawalService", {
  effect: Effect.gen(function*() {
    const ctx = yield* WithdrawalContext.make
    const { externalIDs, withdrawals } = ctx

    const get = Traced.fn("WithdrawalService.get")(function*(partyID: string, id: string) {
      const found = Option.filter(yield* withdrawals.findById(id), (w) => w.partyID === partyID)
      if (Option.isNone(found)) return yield* NotFound.of("Withdrawal", id)
      return found.value
    })

    const getByExternalID = Traced.fn("WithdrawalService.getByExternalID")(function*(partyID: string, externalID: string) {
      const ref = yield* externalIDs.find(Ref.Id, partyID, CreateWithdrawal.OPERATION, externalID, "Withdrawal")
      return yield* get(partyID, ref.id)
    })

    const list = Traced.fn("WithdrawalService.list")(function*(partyID: string, params: ListParams) {
      if (params.partyID !== undefined && params.partyID !== partyID) return { result: [] } as Page.Page<ReturnType<typeof toWithdrawal>>
      const { after, limit, partyID: _, ...filter } = params
      return Page.of(yield* withdrawals.list({ ...filter, partyID }, { limit, after }), limit, toWithdrawal)
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
  }),
  dependencies: [WalletService.Default]
}) {}
