/**
 * createRefund: starts a refund of a captured payment. One transaction decides it against what
 * remains (the machine's `start`), bumps the payment's version so concurrent refunds and
 * chargebacks are serialised and can never together exceed what was captured, holds its postings
 * (refused when the shop's balance cannot cover them) and records its event; the acquirer's
 * refund starts once that has committed.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isInForce } from "../contract/Contract.js"
import { BusinessError } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import { canonicalJson, canonicalSet } from "../internal/canonical.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { PaymentRecord } from "../payment/Payment.js"
import type { Posting } from "../ports/Ledger.js"
import * as Ref from "../Ref.js"
import { type RefundParams, type RefundRecord, toRefund } from "./Refund.js"
import { planOf, type RefundContext, subjectOf, type TakenBack } from "./RefundContext.js"
import { start } from "./RefundMachine.js"
import * as RefundProcessing from "./RefundProcessing.js"

/** The idempotency operation of a refund's `externalID`. @since 0.1.0 */
export const OPERATION = "refund"

const fingerprint = (invoiceID: string, paymentID: string, params: RefundParams) =>
  canonicalJson({
    invoiceID,
    paymentID,
    amount: params.amount ?? null,
    currency: params.currency ?? null,
    cart: canonicalSet(params.cart),
    allocation: canonicalSet(params.allocation)
  })

/** @since 0.1.0 @category constructors */
export const make = (ctx: RefundContext, kick: RefundProcessing.Kick) => {
  const { externalIDs, ledger, load, paymentRepo, payments, refunds, settings, shops, timers, tx } = ctx

  /** The refund's postings: each allocated shop gives back its part, the invoice's shop the rest and the fee. */
  const postings = (p: PaymentRecord, r: RefundRecord) =>
    Effect.gen(function*() {
      const settlement = (shopID: string) => ledger.account({ kind: "settlement", partyID: p.partyID, shopID, currency: p.currency })
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
      return out
    })

  return Traced.fn("RefundService.create")(function*(partyID: string, invoiceID: string, paymentID: string, params: RefundParams) {
    // the payment with what has been taken back of it, one read; when there is none, the payment
    // service's read says which of the invoice and the payment is missing
    const found = yield* refunds.findPaymentOfParty(partyID, invoiceID, paymentID)
    const payment = Option.isSome(found) ? found.value.payment : yield* payments.get(partyID, invoiceID, paymentID)
    const takenBackRead = Option.map(found, (f) => ({ refunds: f.refunds, chargebacks: f.chargebacks }))
    if (params.cart !== undefined && params.allocation !== undefined) {
      return yield* BusinessError.of("refundCartConflict", "Send either cart or allocation, not both")
    }
    return yield* externalIDs.create({
      partyID,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => fingerprint(invoiceID, paymentID, params),
      ref: Ref.Refund,
      load: (ref) => load(ref.invoiceID, ref.paymentID, ref.refundID)
    }, (claim) =>
      Effect.gen(function*() {
        const { contract, institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(payment.shopID))
        const at = new Date(yield* Clock.currentTimeMillis)
        if (!isInForce(contract, at)) return yield* BusinessError.of("invalidContractStatus", "The contract is not in force")
        const partyShops = params.allocation === undefined
          ? new Set<string>()
          : new Set((yield* shops.list(PartyID.make(partyID))).map((s) => s.id as string))
        const { refund, taken } = yield* Optimistic.command(tx.withTransaction, {
          read: paymentRepo.findById(invoiceID, paymentID).pipe(Effect.flatMap(Effect.orDie)),
          known: payment,
          update: paymentRepo.update,
          what: `payment ${invoiceID}/${paymentID}`
        }, ({ current: p, save, stale }) =>
          Effect.gen(function*() {
            // decided on the copy of the payment, what was read with it (any refund or chargeback
            // started since bumped the payment's version, which the save checks)
            const takenBack = stale && Option.isSome(takenBackRead)
              ? takenBackRead.value
              : yield* refunds.listWithChargebacks(invoiceID, paymentID)
            const existing = takenBack.refunds
            const started = start(
              { ...p, ...takenBack },
              params,
              { fee: institution.terms.fees.refund.fixed, allocationAllowed: institution.terms.allocationAllowed, partyShops }
            )
            if (Either.isLeft(started)) return yield* started.left
            const { allocation, amount, cart, fee } = started.right
            const id = String(existing.length + 1)
            yield* claim({ invoiceID, paymentID, refundID: id })
            // Serialises refunds of one payment: a concurrent one loses this write and retries.
            const saved = yield* save(p)
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
              fee,
              version: 1
            }
            yield* refunds.insert(refund)
            const plan = yield* postings(p, refund)
            yield* ledger.hold(planOf(refund), { id: 1, postings: plan })
            for (const account of new Set(plan.map((x) => x.from))) {
              const balance = yield* ledger.balance(account)
              if (Option.isSome(balance) && balance.value.minAvailable < 0) {
                return yield* BusinessError.of("insufficentAccountBalance", "The shop's balance does not cover the refund")
              }
            }
            yield* ctx.appendToInvoice(partyID, invoiceID, [{ changeType: "RefundStarted", paymentID, refund: toRefund(refund) }])
            yield* timers.schedule({
              kind: RefundProcessing.ADVANCE_TIMER,
              subject: subjectOf(refund),
              dueAt: new Date(at.getTime() + settings.recoveryDelayMs),
              payload: null
            })
            // what its settlement decides on first, as this transaction leaves it
            const taken: TakenBack = { payment: saved, refunds: [...existing, refund], chargebacks: takenBack.chargebacks }
            return { refund, taken }
          }))
        yield* kick(refund, taken)
        return refund
      }))
  })
}
