/**
 * What every payment module works with: the ports and services a payment's operations, its
 * processing and its settlement read and write through, resolved once by the facade.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { NotFound } from "../Errors.js"
import * as Idempotent from "../internal/idempotent.js"
import { InvoiceChange } from "../invoice/InvoiceChange.js"
import { AGGREGATE as INVOICE, InvoiceService } from "../invoice/InvoiceService.js"
import { Acquirer } from "../ports/Acquirer.js"
import { CardVault } from "../ports/CardVault.js"
import { CustomerRepository } from "../ports/CustomerRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { InvoiceRepository } from "../ports/InvoiceRepository.js"
import { Ledger } from "../ports/Ledger.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { PaymentResourceRepository } from "../ports/PaymentResourceRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import type { PaymentRecord } from "./Payment.js"
import type { UserInteraction } from "./PaymentChange.js"

const encodeChanges = Schema.encodeSync(Schema.Array(InvoiceChange))

/** @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const payments = yield* PaymentRepository
  const settings = yield* KassaSettings
  const events = yield* EventLog
  return {
    payments,
    customers: yield* CustomerRepository,
    invoiceRepo: yield* InvoiceRepository,
    invoices: yield* InvoiceService,
    shops: yield* ShopService,
    resources: yield* PaymentResources,
    resourceRepo: yield* PaymentResourceRepository,
    vault: yield* CardVault,
    acquirer: yield* Acquirer,
    ledger: yield* Ledger,
    events,
    externalIDs: Idempotent.make(yield* Idempotency),
    timers: yield* Timers,
    tx: yield* Transactions,
    ids: yield* Ids,
    settings,
    now: Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms)),
    /** The stored payment, unscoped (the caller checked the party). */
    load: (invoiceID: string, id: string) =>
      Effect.flatMap(payments.findById(invoiceID, id), (o: Option.Option<PaymentRecord>) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Payment", id))),
    /** Records a payment's changes as an event of its invoice (none, no event). */
    appendToInvoice: (invoice: { readonly id: string; readonly partyID: string }, changes: ReadonlyArray<InvoiceChange>) =>
      changes.length === 0
        ? Effect.void
        : events.append({ aggregateType: INVOICE, aggregateID: invoice.id, partyID: invoice.partyID, changes: encodeChanges(changes) }),
    /** The page where the payer answers the challenge `interactionID`. */
    interactionOf: (interactionID: string): UserInteraction => ({
      interactionType: "Redirect",
      request: { requestType: "BrowserGetRequest", uriTemplate: `${settings.publicUrl}/3ds/${interactionID}` }
    })
  }
})

/** @since 0.1.0 @category models */
export type PaymentContext = Effect.Effect.Success<typeof make>
