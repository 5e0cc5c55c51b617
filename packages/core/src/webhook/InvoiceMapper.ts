/**
 * The invoice aggregate's notifications (`InvoicesTopic`), ordered per invoice: each event's
 * notifications with the snapshots as they stood right after it (`NotificationMapping`). The
 * batch's invoices are read together.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { InvoiceRecord } from "../invoice/Invoice.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { InvoiceHistories } from "../ports/InvoiceHistories.js"
import type { NotificationMapper, Notified } from "./NotificationMapper.js"
import { decodeChanges, type InvoiceEvent, notificationsOf, snapshotsAt } from "./NotificationMapping.js"

interface Decoded {
  readonly history: ReadonlyArray<InvoiceEvent>
  readonly invoice: InvoiceRecord | undefined
  readonly payments: ReadonlyArray<PaymentRecord>
}

/** The notifications of the invoice's event `eventID`. */
const notified = (invoiceID: string, data: Decoded | undefined, eventID: number): Notified | undefined => {
  if (data === undefined) return undefined
  const history = data.history.filter((e) => e.id <= eventID)
  const event = history.find((e) => e.id === eventID)
  const snapshots = snapshotsAt(history, eventID, { invoice: data.invoice, payments: data.payments })
  if (event === undefined || Option.isNone(snapshots)) return undefined
  return {
    subject: { type: "invoice", id: invoiceID, shopID: snapshots.value.invoice.shopID },
    eventID,
    notifications: notificationsOf(event, snapshots.value)
  }
}

/** @since 0.1.0 */
export const InvoiceMapper: Effect.Effect<NotificationMapper, never, InvoiceHistories> = Effect.map(InvoiceHistories, (histories) => ({
  topic: "InvoicesTopic",
  prepare: (entries) =>
    Effect.map(histories.load([...new Set(entries.map((e) => e.aggregateID))]), (loaded) => {
      const decoded = new Map<string, Decoded>()
      for (const [id, h] of loaded) {
        decoded.set(id, {
          history: h.events.map((e) => ({ id: e.id, createdAt: e.createdAt, changes: decodeChanges(e.changes) })),
          invoice: h.invoice,
          payments: h.payments
        })
      }
      return (entry) => Effect.sync(() => notified(entry.aggregateID, decoded.get(entry.aggregateID), entry.eventID))
    })
}))
