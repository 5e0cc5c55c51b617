/**
 * Use cases of the refund: start one on a captured payment, read them; and the background work
 * that refunds with the acquirer. Creation is one transaction that also bumps the payment's
 * version, so concurrent refunds are serialised and can never together exceed what was captured.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Contention from "../Contention.js"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { isInForce } from "../contract/Contract.js"
import { BusinessError, NotFound } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson, canonicalSet } from "../internal/canonical.js"
import { keyOf, replay as replayIdempotent } from "../internal/idempotent.js"
import { knownFirst, retryOnConflict, VersionConflict } from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import { InvoiceChange } from "../invoice/InvoiceChange.js"
import { AGGREGATE as INVOICE } from "../invoice/InvoiceService.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { PaymentService } from "../payment/PaymentService.js"
import { Acquirer } from "../ports/Acquirer.js"
import { ChargebackRepository } from "../ports/ChargebackRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Idempotency, PARTY_NAMESPACE, type IdempotencyRecord } from "../ports/Idempotency.js"
import { Ledger, type Posting } from "../ports/Ledger.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { RefundRepository } from "../ports/RefundRepository.js"
import { Timers } from "../ports/Timers.js"
import { Transactions } from "../ports/Transactions.js"
import { KassaSettings } from "../Settings.js"
import { ShopService } from "../shop/ShopService.js"
import { type RefundParams, type RefundRecord, remaining, toRefund } from "./Refund.js"
import * as Outcomes from "../Outcomes.js"

/** @since 0.1.0 */
export const OPERATION = "refund"
/** Resumes a refund's background work after a crash. @since 0.1.0 */
export const ADVANCE_TIMER = "refund.advance"

const encodeChanges = Schema.encodeSync(Schema.Array(InvoiceChange))
const planOf = (r: { readonly invoiceID: string; readonly paymentID: string; readonly id: string }) =>
  `refund/${r.invoiceID}/${r.paymentID}/${r.id}`
const subjectOf = (r: { readonly invoiceID: string; readonly paymentID: string; readonly id: string }) =>
  `${r.invoiceID}/${r.paymentID}/${r.id}`

/** Bodies of the payment's accepted chargebacks: money no longer refundable. @since 0.1.0 */
export const chargedBackOf = (chargebacks: ReadonlyArray<{ readonly status: string; readonly body: number }>) =>
  chargebacks.filter((c) => c.status === "accepted").reduce((a, c) => a + c.body, 0)

/** @since 0.1.0 @category services */
export class RefundService extends Effect.Service<RefundService>()("kassa/RefundService", {
  effect: Effect.gen(function*() {
    const refunds = yield* RefundRepository
    const paymentRepo = yield* PaymentRepository
    const chargebacks = yield* ChargebackRepository
    const payments = yield* PaymentService
    const shops = yield* ShopService
    const acquirer = yield* Acquirer
    const ledger = yield* Ledger
    const events = yield* EventLog
    const idempotency = yield* Idempotency
    const timers = yield* Timers
    const tx = yield* Transactions
    const settings = yield* KassaSettings

    const load = (invoiceID: string, paymentID: string, id: string) =>
      Effect.flatMap(refunds.findById(invoiceID, paymentID, id), (o) =>
        Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Refund", id)))

    const get = Traced.fn("RefundService.get")(function*(partyID: string, invoiceID: string, paymentID: string, id: string) {
      const found = yield* refunds.findOfParty(partyID, invoiceID, paymentID, id)
      if (Option.isSome(found)) return found.value
      // which of invoice, payment and refund is missing (another party's reads as missing)
      yield* payments.get(partyID, invoiceID, paymentID)
      return yield* NotFound.of("Refund", id)
    })

    const list = Traced.fn("RefundService.list")(function*(partyID: string, invoiceID: string, paymentID: string) {
      yield* payments.get(partyID, invoiceID, paymentID)
      return yield* refunds.listByPayment(invoiceID, paymentID)
    })

    const getByExternalID = Traced.fn("RefundService.getByExternalID")(function*(partyID: string, externalID: string) {
      const record = yield* idempotency.find({ partyID, namespace: PARTY_NAMESPACE, operation: OPERATION, externalID })
      if (Option.isNone(record)) return yield* NotFound.of("Refund with externalID", externalID)
      const [invoiceID, paymentID, id] = record.value.entityID.split("/") as [string, string, string]
      return yield* get(partyID, invoiceID, paymentID, id)
    })

    const append = (partyID: string, invoiceID: string, changes: ReadonlyArray<InvoiceChange>) =>
      events.append({ aggregateType: INVOICE, aggregateID: invoiceID, partyID, changes: encodeChanges(changes) })

    /** The refund's postings: each allocated shop gives back its part, the invoice's shop the rest and the fee. */
    const postings = (p: PaymentRecord, r: RefundRecord) =>
      Effect.gen(function*() {
        const settlement = (shopID: string) =>
          ledger.account({ kind: "settlement", partyID: p.partyID, shopID, currency: p.currency })
        const provider = yield* ledger.account({ kind: "provider", currency: p.currency })
        const system = yield* ledger.account({ kind: "system", currency: p.currency })
        const shop = yield* settlement(p.shopID)
        const out: Array<Posting> = []
        let rest = r.amount
        for (const t of r.allocation ?? []) {
          out.push({ from: yield* settlement(t.target.shopID), to: provider, amount: t.amount, currency: p.currency, description: "refund" })
          rest -= t.amount
        }
        if (rest > 0) out.push({ from: shop, to: provider, amount: rest, currency: p.currency, description: "refund" })
        if (r.fee > 0) out.push({ from: shop, to: system, amount: r.fee, currency: p.currency, description: "refund fee" })
        return { shop, postings: out }
      })

    const fingerprint = (invoiceID: string, paymentID: string, params: RefundParams) =>
      canonicalJson({
        invoiceID,
        paymentID,
        amount: params.amount ?? null,
        currency: params.currency ?? null,
        cart: canonicalSet(params.cart),
        allocation: canonicalSet(params.allocation)
      })

    const create = Traced.fn("RefundService.create")(
      function*(partyID: string, invoiceID: string, paymentID: string, params: RefundParams) {
        const payment = yield* payments.get(partyID, invoiceID, paymentID)
        if (params.cart !== undefined && params.allocation !== undefined) {
          return yield* BusinessError.of("refundCartConflict", "Send either cart or allocation, not both")
        }
        const fp = fingerprint(invoiceID, paymentID, params)
        const key = keyOf(partyID, PARTY_NAMESPACE, OPERATION, params.externalID)
        const replay = (record: IdempotencyRecord) =>
          replayIdempotent(params.externalID!, fp, record, (entityID) => {
            const [inv, pay, id] = entityID.split("/") as [string, string, string]
            return load(inv, pay, id)
          })
        if (key !== undefined) {
          const prior = yield* idempotency.find(key)
          if (Option.isSome(prior)) return yield* replay(prior.value)
        }
        const { contract, institution } = yield* shops.requireActiveWithTerms(
          PartyID.make(partyID),
          ShopID.make(payment.shopID)
        )
        const at = new Date(yield* Clock.currentTimeMillis)
        if (!isInForce(contract, at)) return yield* BusinessError.of("invalidContractStatus", "The contract is not in force")
        const partyShops = params.allocation === undefined
          ? new Set<string>()
          : new Set((yield* shops.list(PartyID.make(partyID))).map((s) => s.id as string))

        // The payment just read decides the first attempt; a refusal decided on it is decided
        // again on a fresh read, and the payment's version check catches a stale acceptance.
        const read = knownFirst(
          payment,
          paymentRepo.findById(invoiceID, paymentID).pipe(Effect.flatMap(Effect.orDie))
        )
        const created = yield* retryOnConflict(tx.withTransaction(Effect.flatMap(read, ({ stale, value: p }) =>
          Effect.gen(function*() {
            if (p.status !== "captured") {
              return yield* BusinessError.of("invalidPaymentStatus", `Cannot refund a payment in status ${p.status}`)
            }
            const cbs = yield* chargebacks.listByPayment(invoiceID, paymentID)
            if (cbs.some((c) => c.status === "pending")) {
              return yield* BusinessError.of("chargebackInProgress", "A chargeback of this payment is in progress")
            }
            const existing = yield* refunds.listByPayment(invoiceID, paymentID)
            const left = remaining(p.amount, existing, chargedBackOf(cbs))
            if (params.currency !== undefined && params.currency !== p.currency) {
              return yield* BusinessError.of("inconsistentRefundCurrency", `Correct currency: ${p.currency}`)
            }
            let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
            let amount = params.amount
            if (params.cart !== undefined) {
              const made = Cart.make(params.cart)
              if (Either.isLeft(made)) return yield* made.left
              cart = made.right
              const cartTotal = Cart.total(cart)!
              amount = amount ?? left - cartTotal
              if (left - amount !== cartTotal) {
                return yield* BusinessError.of(
                  "invalidInvoiceCart",
                  `cart: the final cart totals ${cartTotal}, but ${left - amount} would remain`
                )
              }
            }
            amount = amount ?? left
            if (amount <= 0 || amount > left) {
              return yield* BusinessError.of("invoicePaymentAmountExceeded", `Max amount: ${left}`)
            }
            let allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
            if (params.allocation !== undefined) {
              const made = Allocation.make(params.allocation, {
                shopID: p.shopID,
                amount,
                currency: p.currency,
                partyShops,
                allowed: institution.terms.allocationAllowed
              })
              if (Either.isLeft(made)) return yield* made.left
              allocation = made.right
              const total = allocation.reduce((a, t) => a + (t.allocationBodyType === "AllocationBodyAmount" ? t.amount : t.total), 0)
              if (total !== amount) {
                return yield* BusinessError.of("invalidAllocation", `allocation: totals ${total}, the refund is ${amount}`)
              }
            }
            const id = String(existing.length + 1)
            if (key !== undefined) {
              const prior = yield* idempotency.claim(key, { entityID: `${invoiceID}/${paymentID}/${id}`, fingerprint: fp })
              if (Option.isSome(prior)) return { refund: yield* replay(prior.value), fresh: false }
            }
            // Serialises refunds of one payment: a concurrent one loses this write and retries.
            if (!(yield* paymentRepo.update({ ...p, version: p.version + 1 }, p.version))) {
              return yield* new VersionConflict({ what: `payment ${invoiceID}/${paymentID}` })
            }
            const refund: RefundRecord = {
              id,
              invoiceID,
              paymentID,
              partyID,
              shopID: p.shopID,
              ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
              createdAt: at,
              amount,
              currency: p.currency,
              ...(params.reason === undefined ? {} : { reason: params.reason }),
              ...(cart === undefined ? {} : { cart }),
              ...(allocation === undefined ? {} : { allocation }),
              status: "pending",
              fee: institution.terms.fees.refund.fixed,
              version: 1
            }
            yield* refunds.insert(refund)
            const plan = yield* postings(p, refund)
            yield* ledger.hold(planOf(refund), { id: 1, postings: plan.postings })
            for (const account of new Set(plan.postings.map((x) => x.from))) {
              const balance = yield* ledger.balance(account)
              if (Option.isSome(balance) && balance.value.minAvailable < 0) {
                return yield* BusinessError.of("insufficentAccountBalance", "The shop's balance does not cover the refund")
              }
            }
            yield* append(partyID, invoiceID, [{ changeType: "RefundStarted", paymentID, refund: toRefund(refund) }])
            yield* timers.schedule({
              kind: ADVANCE_TIMER,
              subject: subjectOf(refund),
              dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
              payload: null
            })
            return { refund, fresh: true }
          }).pipe(
            Effect.catchIf(
              (e) => stale && e instanceof BusinessError,
              () => new VersionConflict({ what: `payment ${invoiceID}/${paymentID}` })
            )
          ))))
        if (created.fresh) yield* tx.background(advance(invoiceID, paymentID, created.refund.id, created.refund))
        return created.refund
      }
    )

    /** Settles a refund with the acquirer's answer, atomically with the ledger and the events. */
    const settle = (
      known: RefundRecord,
      outcome: { readonly error?: { code: string; message: string } }
    ) => {
      const { invoiceID, paymentID, id } = known
      const read = knownFirst(known, load(invoiceID, paymentID, id))
      // what the committed attempt settled, counted once it is committed
      let settled: { refund: string; paymentRefunded: boolean } | undefined
      return retryOnConflict(tx.withTransaction(Effect.gen(function*() {
        settled = undefined
        const { stale, value: r } = yield* read
        if (r.status !== "pending") return stale ? yield* new VersionConflict({ what: `refund ${subjectOf(r)}` }) : r
        const updated: RefundRecord = outcome.error === undefined
          ? { ...r, status: "succeeded", version: r.version + 1 }
          : { ...r, status: "failed", error: outcome.error, version: r.version + 1 }
        if (!(yield* refunds.update(updated, r.version))) return yield* new VersionConflict({ what: `refund ${subjectOf(r)}` })
        const changes: Array<InvoiceChange> = [
          updated.error === undefined
            ? { changeType: "RefundStatusChanged", paymentID, refundID: id, status: updated.status }
            : { changeType: "RefundStatusChanged", paymentID, refundID: id, status: updated.status, error: updated.error }
        ]
        if (updated.status === "succeeded") {
          // The payment before the ledger, as a refund's creation takes them: one order, no deadlock.
          const p = yield* Contention.expected(paymentRepo.findById(invoiceID, paymentID)).pipe(Effect.flatMap(Effect.orDie))
          yield* ledger.commit(planOf(r))
          const all = yield* refunds.listByPayment(invoiceID, paymentID)
          const cbs = yield* chargebacks.listByPayment(invoiceID, paymentID)
          if (p.status === "captured" && remaining(p.amount, all, chargedBackOf(cbs)) === 0 && all.every((x) => x.status !== "pending")) {
            const at = new Date(yield* Clock.currentTimeMillis)
            if (!(yield* paymentRepo.update({ ...p, status: "refunded", statusChangedAt: at, version: p.version + 1 }, p.version))) {
              return yield* new VersionConflict({ what: `payment ${invoiceID}/${paymentID}` })
            }
            changes.push({ changeType: "PaymentStatusChanged", paymentID, status: "refunded" })
          }
        } else {
          yield* ledger.rollback(planOf(r))
        }
        yield* append(r.partyID, invoiceID, changes)
        yield* timers.cancel(ADVANCE_TIMER, subjectOf(r))
        settled = { refund: updated.status, paymentRefunded: changes.some((c) => c.changeType === "PaymentStatusChanged") }
        return updated
      }))).pipe(Effect.tap(() =>
        settled === undefined ? Effect.void : Effect.zipRight(
          Outcomes.count(Outcomes.refunds, settled.refund),
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
          result._tag === "Done" ? {} : { error: { code: result.error.code, message: result.message } }
        )
      }).pipe(
        Effect.catchAll((e) => Effect.logWarning("refund step refused", e)),
        Effect.withSpan("RefundService.advance")
      )

    yield* timers.register(ADVANCE_TIMER, (timer) =>
      Effect.gen(function*() {
        const [invoiceID, paymentID, id] = timer.subject.split("/") as [string, string, string]
        yield* timers.schedule({ ...timer, dueAt: new Date((yield* Clock.currentTimeMillis) + settings.recoveryDelayMs) })
        yield* tx.background(advance(invoiceID, paymentID, id))
      }))

    return { create, get, list, getByExternalID, advance } as const
  }),
  dependencies: [PaymentService.Default, ShopService.Default]
}) {}
