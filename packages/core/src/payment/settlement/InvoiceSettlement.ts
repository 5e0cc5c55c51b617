/**
 * The invoice's part of a payment's transition: a captured payment pays it, a failed or cancelled
 * one reopens it. Runs inside the payment's transaction.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Contention from "../../Contention.js"
import { VersionConflict } from "../../internal/optimistic.js"
import type { InvoiceRecord } from "../../invoice/Invoice.js"
import type { InvoiceChange } from "../../invoice/InvoiceChange.js"
import { decide as decideInvoice } from "../../invoice/InvoiceMachine.js"
import { DUE_TIMER } from "../../invoice/InvoiceService.js"
import type { Timer } from "../../ports/Timers.js"
import type { PaymentRecord } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"

/** @since 0.1.0 @category models */
export interface Settled {
  readonly changes: ReadonlyArray<InvoiceChange>
  /** The timers that end with the invoice's changes (its due date, once paid). */
  readonly ended: ReadonlyArray<Pick<Timer, "kind" | "subject">>
}

const none: Settled = { changes: [], ended: [] }

/** @since 0.1.0 @category constructors */
export const make = ({ invoiceRepo }: PaymentContext) =>
(after: PaymentRecord, at: Date, known?: InvoiceRecord): Effect.Effect<Settled, VersionConflict> =>
  Effect.gen(function*() {
    const outcome = after.status === "captured" || after.status === "failed" || after.status === "cancelled"
      ? after.status
      : undefined
    if (outcome === undefined) return none
    // `known`, the invoice as the caller last saw it, saves the read: its update's version check
    // catches a stale one, and a refusal decided on it is decided again on a fresh read. Else,
    // contended (its payments settle it): kept till the transaction ends, its update cannot lose.
    const invoice = known ?? (yield* Contention.expected(invoiceRepo.findById(after.partyID, after.invoiceID)).pipe(
      Effect.flatMap(Effect.orDie)
    ))
    const decision = decideInvoice(invoice, { _tag: "SettlePayment", paymentID: after.id, outcome }, at)
    if (Either.isLeft(decision)) {
      return yield* (known === undefined ? Effect.die(decision.left) : new VersionConflict({ what: `invoice ${invoice.id}` }))
    }
    const { state, changes } = decision.right
    if (changes.length === 0 && state.activePaymentID === invoice.activePaymentID) return { ...none, changes }
    const updated: InvoiceRecord = {
      ...invoice,
      status: state.status,
      ...(state.reason === undefined ? {} : { reason: state.reason }),
      activePaymentID: state.activePaymentID,
      version: invoice.version + 1
    }
    if (!(yield* invoiceRepo.update(updated, invoice.version))) {
      return yield* new VersionConflict({ what: `invoice ${invoice.id}` })
    }
    return { changes, ended: updated.status !== "unpaid" ? [{ kind: DUE_TIMER, subject: invoice.id }] : [] }
  })
