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
import type { InvoiceRecord } from "../invoice/Invoice.js"
import * as Outcomes from "../Outcomes.js"
import * as Ref from "../Ref.js"
import type { PaymentRecord } from "./Payment.js"
import type { PaymentChange } from "./PaymentChange.js"
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

const commandsOf = (command: PaymentCommand | ReadonlyArray<PaymentCommand>): ReadonlyArray<PaymentCommand> =>
  Array.isArray(command) ? command : [command as PaymentCommand]

/** @since 0.1.0 @category constructors */
export const make = (ctx: PaymentContext) => {
  const { load, now, payments, settings, timers, tx, vault } = ctx
  const settleInvoice = InvoiceSettlement.make(ctx)
  const post = LedgerPosting.make(ctx)

  /**
   * `known`, the payment as the caller last saw it, saves the first attempt its read: the write's
   * version check catches a stale one, and a refusal or a no-op decided on it is decided again.
   * `knownInvoice`, its invoice as the caller last saw it, saves that attempt the invoice's read
   * (and lock) the same way when the transition settles the invoice.
   * Several commands are decided one after the other and applied as one transition (an instant
   * payment authorised and captured at once), each step's ledger work in turn.
   */
  const decideAndApply = (
    invoiceID: string,
    id: string,
    command: PaymentCommand | ReadonlyArray<PaymentCommand>,
    known?: PaymentRecord,
    knownInvoice?: InvoiceRecord
  ) =>
    Optimistic.command(tx.withTransaction, {
      read: load(invoiceID, id),
      known,
      update: payments.update,
      what: `payment ${Ref.Payment.encode({ invoiceID, paymentID: id })}`
    }, ({ current: before, save, stale, unchanged }) =>
      Effect.gen(function*() {
        const at = yield* now
        const steps: Array<PaymentRecord> = [before]
        const changes: Array<PaymentChange> = []
        for (const c of commandsOf(command)) {
          const last = steps[steps.length - 1]!
          const decision = decide(last, c)
          if (Either.isLeft(decision)) return yield* decision.left
          const { state } = decision.right
          changes.push(...decision.right.changes)
          if (state.status !== last.status || state.activity !== last.activity || decision.right.changes.length > 0) {
            steps.push(recordOf(last, state, at))
          }
        }
        if (steps.length === 1) {
          yield* unchanged
          return { payment: before, changed: false, reached: [] }
        }
        const after = yield* save(steps[steps.length - 1]!)
        // the invoice before the ledger, whose reads leave the invoice's write waiting
        const settled = yield* settleInvoice(after, at, stale ? knownInvoice : undefined)
        yield* post(steps)
        // The CVV serves the authorisation only: its session goes with the outcome that ends
        // it (processed, or failed: declined, past the deadline, a challenge abandoned).
        if (before.status === "pending" && after.status !== "pending" && after.vaultSession !== undefined) {
          yield* vault.deleteSession(after.vaultSession)
        }
        yield* ctx.appendToInvoice({ id: invoiceID, partyID: after.partyID }, [...changes, ...settled.changes])
        const timerChanges = TransitionTimers.ofTransition(before, after, at, settings)
        yield* timers.cancelAll([...settled.ended, ...timerChanges.ended])
        yield* timers.scheduleAll(timerChanges.scheduled)
        const reached = steps.slice(1).filter((s, i) => s.status !== steps[i]!.status).map((s) => s.status)
        return { payment: after, changed: true, reached }
      })).pipe(
        // counted once committed
        Effect.tap(({ reached }) => Effect.forEach(reached, (status) => Outcomes.count(Outcomes.payments, status), { discard: true }))
      )

  const apply = (
    invoiceID: string,
    id: string,
    command: PaymentCommand | ReadonlyArray<PaymentCommand>,
    known?: PaymentRecord,
    knownInvoice?: InvoiceRecord
  ) => Effect.map(decideAndApply(invoiceID, id, command, known, knownInvoice), (r) => r.payment)

  return { decideAndApply, apply } as const
}

/** `decideAndApply`, answering the payment. @since 0.1.0 @category models */
export type Apply = ReturnType<typeof make>["apply"]

/** @since 0.1.0 @category models */
export type ApplyCommand = ReturnType<typeof make>
