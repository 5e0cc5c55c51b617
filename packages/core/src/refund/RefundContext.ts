/**
 * What the refund's modules work with, resolved once by the facade.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ChargebackRecord } from "../chargeback/Chargeback.js"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import { InvoiceChange } from "../invoice/InvoiceChange.js"
import { AGGREGATE as INVOICE } from "../invoice/InvoiceService.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { PaymentService } from "../payment/PaymentService.js"
import { Acquirer } from "../ports/Acquirer.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency } from "../ports/Idempotency.js"
import { Ledger } from "../ports/Ledger.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { RefundRepository } from "../ports/RefundRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import * as Ref from "../Ref.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import type { RefundRecord } from "./Refund.js"

const encodeChanges = Schema.encodeSync(Schema.Array(InvoiceChange))

/** The timer subject of a refund. @since 0.1.0 */
export const subjectOf = (r: Pick<RefundRecord, "invoiceID" | "paymentID" | "id">) =>
  Ref.Refund.encode({ invoiceID: r.invoiceID, paymentID: r.paymentID, refundID: r.id })

/** The ledger plan of a refund. @since 0.1.0 */
export const planOf = (r: Pick<RefundRecord, "invoiceID" | "paymentID" | "id">) => `refund/${subjectOf(r)}`

/**
 * What a refund's settlement decides on: its payment with what has been taken back of it. Every
 * change of what has been taken back (a refund's or a chargeback's start, and each of their
 * settlements) bumps the payment's version, so a settlement that writes the payment at the
 * version it read knows the refunds and chargebacks it read with it are still current.
 *
 * @since 0.1.0 @category models
 */
export interface TakenBack {
  readonly payment: PaymentRecord
  readonly refunds: ReadonlyArray<RefundRecord>
  readonly chargebacks: ReadonlyArray<ChargebackRecord>
}

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const refunds = yield* RefundRepository
  const events = yield* EventLog
  return {
    refunds,
    paymentRepo: yield* PaymentRepository,
    payments: yield* PaymentService,
    shops: yield* ShopService,
    acquirer: yield* Acquirer,
    ledger: yield* Ledger,
    externalIDs: Idempotent.make(yield* Idempotency),
    timers: yield* Timers,
    tx: yield* Transactions,
    settings: yield* KassaSettings,
    load: (invoiceID: string, paymentID: string, id: string) =>
      Effect.flatMap(refunds.findById(invoiceID, paymentID, id), (o) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Refund", id))),
    /** Records refund changes as an event of the payment's invoice. */
    appendToInvoice: (partyID: string, invoiceID: string, changes: ReadonlyArray<InvoiceChange>) =>
      events.append({ aggregateType: INVOICE, aggregateID: invoiceID, partyID, changes: encodeChanges(changes) })
  }
})

/** @since 0.1.0 @category models */
export type RefundContext = Effect.Effect.Success<typeof make>
