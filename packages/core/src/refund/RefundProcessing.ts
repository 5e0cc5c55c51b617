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
import * as Contention from "../Contention.js"
import type { InvoiceChange } from "../invoice/InvoiceChange.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Outcomes from "../Outcomes.js"
import * as Recovery from "../Recovery.js"
import * as Ref from "../Ref.js"
import type { RefundError, RefundRecord } from "./Refund.js"
import { planOf, type RefundContext, subjectOf } from "./RefundContext.js"
import { decide, type RefundCommand, refundsPayment } from "./RefundMachine.js"

/** Resumes a refund's background work after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "refund.advance"

/** The error of a refund the acquirer kept failing transiently until its retry window closed. @since 0.1.0 */
export const windowClosed: RefundError = {
  code: "timeout",
  message: "The acquirer did not complete the refund within its retry window"
}

/** Starts `advance` in the background. @since 0.1.0 @category models */
export type Kick = (known: RefundRecord) => Effect.Effect<void>

/** @since 0.1.0 @category constructors */
export const make = (ctx: RefundContext) =>
  Effect.gen(function*() {
    const endOf = (r: RefundRecord) => r.createdAt.getTime() + ctx.settings.refundRetryWindowMs
    const { acquirer, ledger, load, paymentRepo, refunds, settings, timers, tx } = ctx

    /** Settles a refund with the acquirer's answer, atomically with the ledger and the events. */
    const settle = (known: RefundRecord, command: RefundCommand) => {
      const { invoiceID, paymentID } = known
      return Optimistic.command(tx.withTransaction, {
        read: load(invoiceID, paymentID, known.id),
        known,
        update: refunds.update,
        what: `refund ${subjectOf(known)}`
      }, ({ current: r, save, unchanged }) =>
        Effect.gen(function*() {
          const { changes, state } = decide(r, command)
          if (changes.length === 0) {
            yield* unchanged
            return { refund: r, settled: undefined }
          }
          const updated = yield* save({ ...r, ...state })
          const all: Array<InvoiceChange> = [...changes]
          if (updated.status === "succeeded") {
            // The payment before the ledger, as a refund's creation takes them: one order, no deadlock.
            const p = yield* Contention.expected(paymentRepo.findById(invoiceID, paymentID)).pipe(Effect.flatMap(Effect.orDie))
            yield* ledger.commit(planOf(r))
            const payment = { ...p, ...(yield* refunds.listWithChargebacks(invoiceID, paymentID)) }
            if (refundsPayment(payment)) {
              const at = new Date(yield* Clock.currentTimeMillis)
              if (!(yield* paymentRepo.update({ ...p, status: "refunded", statusChangedAt: at, version: p.version + 1 }, p.version))) {
                return yield* new Optimistic.VersionConflict({ what: `payment ${invoiceID}/${paymentID}` })
              }
              all.push({ changeType: "PaymentStatusChanged", paymentID, status: "refunded" })
            }
          } else {
            yield* ledger.rollback(planOf(r))
          }
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

    const advance = (invoiceID: string, paymentID: string, id: string, known?: RefundRecord): Effect.Effect<void> =>
      Effect.gen(function*() {
        const r = known ?? (yield* load(invoiceID, paymentID, id))
        if (r.status !== "pending") return yield* timers.cancel(ADVANCE_TIMER, subjectOf(r))
        const result = yield* acquirer.refund(`${invoiceID}.${paymentID}`, id, r.amount, r.currency)
        yield* settle(
          r,
          result._tag === "Done"
            ? { _tag: "Succeeded" }
            : { _tag: "Failed", error: { code: result.error.code, message: result.message } }
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

    const kick: Kick = (r) => tx.background(advance(r.invoiceID, r.paymentID, r.id, r))

    return { advance, kick } as const
  })
