/**
 * A refund's background work: the acquirer refunds, and the answer settles the refund (the
 * machine's `decide`), its ledger plan, and the payment once nothing of it remains. The recovery
 * timer, registered here, resumes whatever a crash interrupted.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import type { InvoiceChange } from "../invoice/InvoiceChange.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Outcomes from "../Outcomes.js"
import * as Recovery from "../Recovery.js"
import * as Ref from "../Ref.js"
import type { RefundError, RefundRecord } from "./Refund.js"
import { planOf, type RefundContext, subjectOf, type TakenBack } from "./RefundContext.js"
import { decide, type RefundCommand, refundsPayment } from "./RefundMachine.js"

/** Resumes a refund's background work after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "refund.advance"

/** The error of a refund the acquirer kept failing transiently until its retry window closed. @since 0.1.0 */
export const windowClosed: RefundError = {
  code: "timeout",
  message: "The acquirer did not complete the refund within its retry window"
}

/** Starts `advance` in the background, on the refund and its payment as its creation left them. @since 0.1.0 @category models */
export type Kick = (known: RefundRecord, taken: TakenBack) => Effect.Effect<void>

/** @since 0.1.0 @category constructors */
export const make = (ctx: RefundContext) =>
  Effect.gen(function*() {
    const endOf = (r: RefundRecord) => r.createdAt.getTime() + ctx.settings.refundRetryWindowMs
    const { acquirer, ledger, load, paymentRepo, refunds, settings, timers, tx } = ctx
    // the payment's version is the command's: its write at that version is the check
    const settling = (t: TakenBack) => ({ ...t, version: t.payment.version })

    /**
     * What a settlement decides on, read fresh: the refund's payment, then its refunds and
     * chargebacks in a statement of their own. A retry reads the payment under
     * `Contention.expected` (locked where storage locks), so settlements of one payment queue, and
     * what has been taken back is read after the lock, as it stands. Unlocked, the payment's write
     * at the version read catches any change between the two reads.
     */
    const readTakenBack = (r: RefundRecord) =>
      Effect.gen(function*() {
        const payment = yield* paymentRepo.findById(r.invoiceID, r.paymentID)
        if (Option.isNone(payment)) return yield* NotFound.of("Payment", r.paymentID)
        return settling({ payment: payment.value, ...(yield* refunds.listWithChargebacks(r.invoiceID, r.paymentID)) })
      })

    /**
     * Settles a refund with the acquirer's answer, atomically with the ledger and the events. The
     * first attempt decides on `taken`, the copy the refund's creation left (when given); the
     * refund's write and the payment's, each at the version read, catch a stale one (every change
     * of what has been taken back bumps the payment's version: `TakenBack`), and the command runs
     * again on a fresh read. So no read waits on the payment's lock in the statement that takes
     * it: two refunds settling at once cannot both miss the other's success (the second one's
     * payment write loses and reads again). The payment's write comes first, then the refund's,
     * then the ledger's locks, as at a refund's creation: one order, no deadlock.
     */
    const settle = (known: RefundRecord, command: RefundCommand, taken?: TakenBack) => {
      const { invoiceID, paymentID } = known
      return Optimistic.command(tx.withTransaction, {
        read: readTakenBack(known),
        known: taken === undefined ? undefined : settling(taken),
        update: (next, expected) => paymentRepo.update({ ...next.payment, version: next.version }, expected),
        what: `payment ${invoiceID}/${paymentID}`
      }, ({ current, save, unchanged }) =>
        Effect.gen(function*() {
          const r = current.refunds.find((x) => x.id === known.id)
          if (r === undefined) return yield* NotFound.of("Refund", known.id)
          const { changes, state } = decide(r, command)
          if (changes.length === 0) {
            yield* unchanged
            return { refund: r, settled: undefined }
          }
          const updated: RefundRecord = { ...r, ...state, version: r.version + 1 }
          const all: Array<InvoiceChange> = [...changes]
          const p = current.payment
          const after = { ...p, refunds: current.refunds.map((x) => (x.id === r.id ? updated : x)), chargebacks: current.chargebacks }
          if (updated.status === "succeeded" && refundsPayment(after)) {
            const at = new Date(yield* Clock.currentTimeMillis)
            yield* save({ ...current, payment: { ...p, status: "refunded", statusChangedAt: at } })
            all.push({ changeType: "PaymentStatusChanged", paymentID, status: "refunded" })
          } else {
            yield* save(current)
          }
          if (!(yield* refunds.update(updated, r.version))) {
            return yield* new Optimistic.VersionConflict({ what: `refund ${subjectOf(r)}` })
          }
          yield* (updated.status === "succeeded" ? ledger.commit(planOf(r)) : ledger.rollback(planOf(r)))
          yield* ctx.appendToInvoice(r.partyID, invoiceID, all)
          yield* timers.cancel(ADVANCE_TIMER, subjectOf(r))
          return { refund: updated, settled: { status: updated.status, paymentRefunded: all.length > changes.length } }
        })).pipe(Effect.tap(({ settled }) =>
          // counted once committed
          settled === undefined ? Effect.void : Effect.zipRight(
            Outcomes.count(Outcomes.refunds, settled.status),
            settled.paymentRefunded ? Outcomes.count(Outcomes.payments, "refunded") : Effect.void
          )
        ))
    }

    const advance = (invoiceID: string, paymentID: string, id: string, known?: RefundRecord, taken?: TakenBack): Effect.Effect<void> =>
      Effect.gen(function*() {
        const r = known ?? (yield* load(invoiceID, paymentID, id))
        if (r.status !== "pending") return yield* timers.cancel(ADVANCE_TIMER, subjectOf(r))
        const result = yield* acquirer.refund(`${invoiceID}.${paymentID}`, id, r.amount, r.currency)
        yield* settle(
          r,
          result._tag === "Done"
            ? { _tag: "Succeeded" }
            : { _tag: "Failed", error: { code: result.error.code, message: result.message } },
          taken
        )
      }).pipe(
        Effect.catchAll((e) => Effect.logWarning("refund step refused", e)),
        Effect.withSpan("RefundService.advance")
      )

    // Retried with the recovery backoff until its window closes: then the refund fails (the
    // acquirer's last call may still be in flight; a later answer to a settled refund changes nothing).
    yield* timers.register(ADVANCE_TIMER, (timer) =>
      Effect.gen(function*() {
        const { invoiceID, paymentID, refundID } = Ref.Refund.decode(timer.subject)
        const now = yield* Clock.currentTimeMillis
        const r = yield* load(invoiceID, paymentID, refundID).pipe(Effect.option)
        const end = Option.getOrUndefined(Option.map(r, endOf))
        if (Option.isSome(r) && r.value.status === "pending" && end !== undefined && now >= end) {
          yield* settle(r.value, { _tag: "Failed", error: windowClosed }).pipe(
            Effect.catchAll((e) => Effect.logWarning("refund step refused", e))
          )
          return
        }
        yield* timers.schedule(yield* Recovery.next(settings, timer, now, end))
        yield* tx.background(advance(invoiceID, paymentID, refundID))
      }))

    const kick: Kick = (r, taken) => tx.background(advance(r.invoiceID, r.paymentID, r.id, r, taken))

    return { advance, kick } as const
  })
