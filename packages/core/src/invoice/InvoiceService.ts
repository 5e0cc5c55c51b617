/**
 * Use cases of the invoice: create (idempotent by `externalID`), read, events, access tokens,
 * fulfil, rescind, payment methods, and expiry at the due date by a durable timer.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AccessTokens, INVOICE_TOKEN_DAYS } from "../auth/AccessTokens.js"
import { NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson, canonicalSet } from "../internal/canonical.js"
import * as Idempotent from "../internal/idempotent.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import * as Now from "../Now.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency, PARTY_NAMESPACE } from "../ports/Idempotency.js"
import { Ids } from "../ports/Ids.js"
import { InvoiceRepository } from "../ports/InvoiceRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import type { PaymentMethod, PaymentMethodTerms } from "../reference/Reference.js"
import * as Ref from "../Ref.js"
import { ShopService } from "../shop/ShopService.js"
import { type Invoice, type InvoiceParams, type InvoiceRecord, toInvoice } from "./Invoice.js"
import { type InvoiceChange, InvoiceChange as InvoiceChangeSchema, type InvoiceEvent, listedChanges } from "./InvoiceChange.js"
import { type InvoiceCommand, decide } from "./InvoiceMachine.js"
import * as BuildInvoice from "./BuildInvoice.js"

/** The aggregate type of invoice events. @since 0.1.0 */
export const AGGREGATE = "invoice"
/** The timer that expires an invoice at its due date. @since 0.1.0 */
export const DUE_TIMER = "invoice.due"
/** The idempotency operation shared by createInvoice and createInvoiceWithTemplate. @since 0.1.0 */
export const OPERATION = "invoice"

const encodeChanges = Schema.encodeSync(Schema.Array(InvoiceChangeSchema))
const decodeChanges = Schema.decodeUnknownSync(Schema.Array(InvoiceChangeSchema))

/**
 * The features two requests with one `externalID` must share (reference: bender features):
 * carts and allocations compare as sets, objects whatever their key order.
 */
const fingerprint = (params: InvoiceParams): string =>
  canonicalJson({
    shopID: params.shopID,
    amount: params.amount ?? null,
    currency: params.currency,
    product: params.product,
    dueDate: params.dueDate.getTime(),
    cart: canonicalSet(params.cart?.map((l: any) => ({ ...l, quantity: l?.quantity ?? 1 }))),
    bankAccount: params.bankAccount ?? null,
    allocation: canonicalSet(params.allocation)
  })

/** The interface's payment method shape of a term: empty lists left out. @since 0.1.0 */
export const paymentMethodOf = (m: PaymentMethodTerms): PaymentMethod =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as PaymentMethod

/** What builds the service: `InvoiceService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const invoices = yield* InvoiceRepository
  const shops = yield* ShopService
  const events = yield* EventLog
  const externalIDs = Idempotent.make(yield* Idempotency)
  const ids = yield* Ids
  const timers = yield* Timers
  const tx = yield* Transactions
  const accessTokens = yield* AccessTokens

  const now = Now.map((ms) => new Date(ms))

  const get = Traced.fn("InvoiceService.get")(function*(partyID: string, id: string) {
    const found = yield* invoices.findById(partyID, id)
    if (Option.isNone(found)) return yield* NotFound.of("Invoice", id)
    return found.value
  })

  const append = (invoice: InvoiceRecord, changes: ReadonlyArray<InvoiceChange>) =>
    changes.length === 0
      ? Effect.void
      : events.append({
        aggregateType: AGGREGATE,
        aggregateID: invoice.id,
        partyID: invoice.partyID,
        changes: encodeChanges(changes)
      })

  const build = BuildInvoice.make(shops, ids, now)

  const insert = (invoice: InvoiceRecord) =>
    Effect.gen(function*() {
      yield* invoices.insert(invoice)
      yield* append(invoice, [{ changeType: "InvoiceCreated", invoice: toInvoice(invoice) }])
      yield* timers.schedule({ kind: DUE_TIMER, subject: invoice.id, dueAt: invoice.dueDate, payload: null })
    })

  /**
   * Creates an invoice (or answers the one an earlier request with the same `externalID` and
   * the same parameters created) with a new access token. An invoice from a template compares
   * the template and the request's features instead (its due date moves with time). The
   * `externalID` is looked up in `namespace`: the party's own unless an access token sent it.
   */
  const create = Traced.fn("InvoiceService.create")(
    function*(
      caller: string,
      params: InvoiceParams,
      fromTemplate?: { readonly invoiceTemplateID: string; readonly features: unknown },
      namespace: string = PARTY_NAMESPACE
    ) {
      const invoiceTemplateID = fromTemplate?.invoiceTemplateID
      const invoice = yield* externalIDs.create({
        partyID: caller,
        namespace,
        operation: OPERATION,
        externalID: params.externalID,
        fingerprint: () =>
          fromTemplate === undefined
            ? fingerprint(params)
            : canonicalJson({ invoiceTemplateID, features: fromTemplate.features }),
        ref: Ref.Id,
        load: ({ id }) => get(caller, id)
      }, (claim) =>
        Effect.flatMap(build(caller, params, invoiceTemplateID), (built) =>
          tx.withTransaction(Effect.gen(function*() {
            yield* claim({ id: built.id })
            yield* insert(built)
            return built
          }))))
      return { invoice, invoiceAccessToken: yield* accessTokens.issue(caller, "invoice", invoice.id, INVOICE_TOKEN_DAYS) }
    }
  )

  const getByExternalID = Traced.fn("InvoiceService.getByExternalID")(function*(partyID: string, externalID: string) {
    const { id } = yield* externalIDs.find(Ref.Id, partyID, OPERATION, externalID, "Invoice")
    return yield* get(partyID, id)
  })

  const accessToken = Traced.fn("InvoiceService.accessToken")(function*(partyID: string, id: string) {
    yield* get(partyID, id)
    return yield* accessTokens.issue(partyID, "invoice", id, INVOICE_TOKEN_DAYS)
  })

  /** Runs one command of the machine on a stored invoice, with its events, atomically. */
  const command = (load: Effect.Effect<InvoiceRecord, NotFound>, cmd: InvoiceCommand) =>
    Optimistic.command(tx.withTransaction, { read: load, update: invoices.update, what: "invoice" }, ({ current: invoice, save }) =>
      Effect.gen(function*() {
        const decision = decide(invoice, cmd, yield* now)
        if (Either.isLeft(decision)) return yield* decision.left
        const { state, changes } = decision.right
        if (changes.length === 0 && state.activePaymentID === invoice.activePaymentID) return invoice
        const updated = yield* save({
          ...invoice,
          status: state.status,
          ...(state.reason === undefined ? {} : { reason: state.reason }),
          activePaymentID: state.activePaymentID
        })
        yield* append(updated, changes)
        if (state.status !== "unpaid") yield* timers.cancel(DUE_TIMER, invoice.id)
        return updated
      }))

  const fulfill = Traced.fn("InvoiceService.fulfill")(function*(partyID: string, id: string, reason: string) {
    yield* shops.requireActive(PartyID.make(partyID), ShopID.make((yield* get(partyID, id)).shopID))
    return yield* command(get(partyID, id), { _tag: "Fulfill", reason })
  })

  const rescind = Traced.fn("InvoiceService.rescind")(function*(partyID: string, id: string, reason: string) {
    yield* shops.requireActive(PartyID.make(partyID), ShopID.make((yield* get(partyID, id)).shopID))
    return yield* command(get(partyID, id), { _tag: "Rescind", reason })
  })

  /** The due-date timer: an unpaid invoice with no payment in flight is cancelled as overdue. */
  const expire = (id: string) =>
    command(
      Effect.flatMap(invoices.findByIdUnscoped(id), (o) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Invoice", id))),
      { _tag: "Expire" }
    ).pipe(Effect.catchAll(() => Effect.void), Effect.asVoid)

  yield* timers.register(DUE_TIMER, (timer) => expire(timer.subject))

  const listEvents = Traced.fn("InvoiceService.events")(
    function*(partyID: string, id: string, limit: number, after: number | undefined) {
      // One read, scoped by the events' party, from event `after` itself (it must exist); only
      // when nothing comes back does the invoice say which of the two is missing.
      const from = after !== undefined && after > 0 ? after : undefined
      const read = yield* events.list({
        aggregateType: AGGREGATE,
        aggregateID: id,
        partyID,
        after: from === undefined ? 0 : from - 1,
        limit: from === undefined ? limit : limit + 1
      })
      if (from !== undefined && read[0]?.id !== from) {
        yield* get(partyID, id)
        return yield* NotFound.of("Event", from)
      }
      if (read.length === 0) yield* get(partyID, id)
      const stored = from === undefined ? read : read.slice(1)
      // An event of Kassa's own changes only (no change type of the specification) is left out.
      return stored.flatMap((e): Array<InvoiceEvent> => {
        const listed = listedChanges(e.changes)
        return listed.length === 0 ? [] : [{ id: e.id, createdAt: e.createdAt, changes: decodeChanges(listed) }]
      })
    }
  )

  const paymentMethods = Traced.fn("InvoiceService.paymentMethods")(function*(partyID: string, id: string) {
    const invoice = yield* get(partyID, id)
    const shop = yield* shops.get(PartyID.make(partyID), ShopID.make(invoice.shopID))
    const { institution } = yield* shops.terms(shop)
    return institution.terms.paymentMethods.map(paymentMethodOf)
  })

  return {
    create,
    get,
    getByExternalID,
    accessToken,
    events: listEvents,
    fulfill,
    rescind,
    expire,
    paymentMethods,
    /** Commands of the payments that live in invoices (payments issue). */
    command: (partyID: string, id: string, cmd: InvoiceCommand) => command(get(partyID, id), cmd)
  } as const
})

/** @since 0.1.0 @category services */
export class InvoiceService extends Effect.Service<InvoiceService>()("kassa/InvoiceService", {
  effect: make,
  dependencies: [ShopService.Default, AccessTokens.Default]
}) {}

/** @since 0.1.0 */
export type { Invoice }
