/**
 * Runs one command of the payment machine with everything it implies, atomically: the payment
 * as the machine decided it, its invoice and ledger (settlement), the card's CVV session, the
 * invoice's event, and the timers the transition starts and ends.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Optimistic from "../internal/optimistic.js"
import * as Outcomes from "../Outcomes.js"
import * as Ref from "../Ref.js"
import type { PaymentRecord } from "./Payment.js"
import type { PaymentContext } from "./PaymentContext.js"
import { decide, type PaymentCommand, type PaymentState } from "./PaymentMachine.js"
import * as TransitionTimers from "./processing/TransitionTimers.js"
import * as InvoiceSettlement from "./settlement/InvoiceSettlement.js"
import * as LedgerPosting from "./settlement/LedgerPosting.js"

/** The stored payment the machine's decision makes of `before`. */
const recordOf = (before: PaymentRecord, state: PaymentState, at: Date): PaymentRecord => ({
  ...before,
  status: state.status,
  activity: state.activity,
  amount: state.amount,
  capture: state.capture,
  cancelReason: state.cancelReason,
  ...(state.error === undefined ? {} : { error: state.error }),
  ...(state.transactionInfo === undefined ? {} : { transactionInfo: state.transactionInfo }),
  fee: state.fee,
  cart: state.cart,
  ...(state.allocation === undefined ? {} : { allocation: state.allocation }),
  recurrentToken: state.recurrentToken,
  interactionID: state.interactionID,
  statusChangedAt: state.status !== before.status ? at : before.statusChangedAt
})

/** @since 0.1.0 @category constructors */
export const make = (ctx: PaymentContext) => {
  const { load, now, payments, settings, timers, tx, vault } = ctx
  const settleInvoice = InvoiceSettlement.make(ctx)
  const post = LedgerPosting.make(ctx)

  /**
   * `known`, the payment as the caller last saw it, saves the first attempt its read: the write's
   * version check catches a stale one, and a refusal or a no-op decided on it is decided again.
   */
  const decideAndApply = (invoiceID: string, id: string, command: PaymentCommand, known?: PaymentRecord) =>
    Optimistic.command(tx.withTransaction, {
      read: load(invoiceID, id),
      known,
      update: payments.update,
      what: `payment ${Ref.Payment.encode({ invoiceID, paymentID: id })}`
    }, ({ current: before, save, unchanged }) =>
      Effect.gen(function*() {
        const decision = decide(before, command)
        if (Either.isLeft(decision)) return yield* decision.left
        const { changes, state } = decision.right
        if (state.status === before.status && state.activity === before.activity && changes.length === 0) {
          yield* unchanged
          return { payment: before, changed: false, reached: undefined }
        }
        const at = yield* now
        const after = yield* save(recordOf(before, state, at))
        // the invoice before the ledger, whose reads leave the invoice's write waiting
        const settled = yield* settleInvoice(after, at)
        yield* post(before, after)
        // The CVV serves the authorisation only: its session goes with the outcome that ends
        // it (processed, or failed: declined, past the deadline, a challenge abandoned).
        if (before.status === "pending" && after.status !== "pending" && after.vaultSession !== undefined) {
          yield* vault.deleteSession(after.vaultSession)
        }
        yield* ctx.appendToInvoice({ id: invoiceID, partyID: after.partyID }, [...changes, ...settled.changes])
        const timerChanges = TransitionTimers.ofTransition(before, after, at, settings)
        yield* timers.cancelAll([...settled.ended, ...timerChanges.ended])
        for (const timer of timerChanges.scheduled) yield* timers.schedule(timer)
        return { payment: after, changed: true, reached: after.status !== before.status ? after.status : undefined }
      })).pipe(
        // counted once committed
        Effect.tap(({ reached }) => reached === undefined ? Effect.void : Outcomes.count(Outcomes.payments, reached))
      )

  const apply = (invoiceID: string, id: string, command: PaymentCommand, known?: PaymentRecord) =>
    Effect.map(decideAndApply(invoiceID, id, command, known), (r) => r.payment)

  return { decideAndApply, apply } as const
}

/** `decideAndApply`, answering the payment. @since 0.1.0 @category models */
export type Apply = ReturnType<typeof make>["apply"]

/** @since 0.1.0 @category models */
export type ApplyCommand = ReturnType<typeof make>
