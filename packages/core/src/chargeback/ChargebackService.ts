/**
 * Use cases of the chargeback: the operator opens and decides them, merchants read them. Each
 * stage has its own ledger plan: opening holds body and levy on the merchant, cancelling
 * releases them, rejecting charges the levy only, accepting charges both. Accepting what remained
 * of the payment charges it back: the payment says so (`chargedBack`) and the invoice records it
 * as an event of its own (`PaymentChargedBack`), in the acceptance's transaction.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Contention from "../Contention.js"
import { BusinessError, NotFound } from "../Errors.js"
import * as Optimistic from "../internal/optimistic.js"
import * as Traced from "../internal/traced.js"
import type { PaymentRecord } from "../payment/Payment.js"
import { PaymentService } from "../payment/PaymentService.js"
import { ChargebackRepository } from "../ports/ChargebackRepository.js"
import { EventLog } from "../ports/EventLog.js"
import { Ids } from "../ports/Ids.js"
import { Ledger, type Posting } from "../ports/Ledger.js"
import { PaymentRepository } from "../ports/PaymentRepository.js"
import { RefundRepository } from "../ports/RefundRepository.js"
import { Transactions } from "../ports/Transactions.js"
import type { PaymentChargedBack } from "../invoice/InvoiceChange.js"
import { AGGREGATE as INVOICE_AGGREGATE } from "../invoice/InvoiceService.js"
import * as Ref from "../Ref.js"
import { remaining } from "../refund/Refund.js"
import { chargedBackOf } from "../refund/RefundMachine.js"
import {
  type ChargebackCommand,
  type ChargebackParams,
  type ChargebackRecord,
  decide,
  toChargeback
} from "./Chargeback.js"

/** Chargeback events: not part of the invoice history (the specification has no such change). @since 0.1.0 */
export const AGGREGATE = "chargeback"

const planOf = (c: ChargebackRecord) => `chargeback/${c.invoiceID}/${c.paymentID}/${c.id}/${c.stage}`

/** What builds the service: `ChargebackService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const chargebacks = yield* ChargebackRepository
  const paymentRepo = yield* PaymentRepository
  const refunds = yield* RefundRepository
  const payments = yield* PaymentService
  const ledger = yield* Ledger
  const events = yield* EventLog
  const ids = yield* Ids
  const tx = yield* Transactions

  const load = (invoiceID: string, paymentID: string, id: string) =>
    Effect.flatMap(chargebacks.findById(invoiceID, paymentID, id), (o) =>
      Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Chargeback", id)))

  const get = Traced.fn("ChargebackService.get")(
    function*(partyID: string, invoiceID: string, paymentID: string, id: string) {
      yield* payments.get(partyID, invoiceID, paymentID)
      return yield* load(invoiceID, paymentID, id)
    }
  )

  const list = Traced.fn("ChargebackService.list")(function*(partyID: string, invoiceID: string, paymentID: string) {
    yield* payments.get(partyID, invoiceID, paymentID)
    return yield* chargebacks.listByPayment(invoiceID, paymentID)
  })

  const postings = (p: PaymentRecord, body: number, levy: number) =>
    Effect.gen(function*() {
      const shop = yield* ledger.account({ kind: "settlement", partyID: p.partyID, shopID: p.shopID, currency: p.currency })
      const provider = yield* ledger.account({ kind: "provider", currency: p.currency })
      const system = yield* ledger.account({ kind: "system", currency: p.currency })
      const out: Array<Posting> = []
      if (body > 0) out.push({ from: shop, to: provider, amount: body, currency: p.currency, description: "chargeback body" })
      if (levy > 0) out.push({ from: shop, to: system, amount: levy, currency: p.currency, description: "chargeback levy" })
      return out
    })

  const record = (c: ChargebackRecord) =>
    events.append({
      aggregateType: AGGREGATE,
      aggregateID: Ref.Chargeback.encode({ invoiceID: c.invoiceID, paymentID: c.paymentID, chargebackID: c.id }),
      partyID: c.partyID,
      changes: [{ changeType: "ChargebackChanged", chargeback: { ...toChargeback(c), createdAt: c.createdAt.toISOString() } }]
    })

  /** Writes the payment (locked by the command's read) with its version bumped. */
  const bump = (p: PaymentRecord) =>
    Effect.flatMap(paymentRepo.update({ ...p, version: p.version + 1 }, p.version), (ok) =>
      ok ? Effect.void : new Optimistic.VersionConflict({ what: `payment ${p.invoiceID}/${p.id}` }))

  /** The payment is charged back by `c`: marked on the payment and recorded as an invoice event. */
  const chargeBack = (p: PaymentRecord, c: ChargebackRecord) =>
    Effect.gen(function*() {
      yield* bump({ ...p, chargedBack: true })
      const change: typeof PaymentChargedBack.Type = { changeType: "PaymentChargedBack", paymentID: p.id, chargebackID: c.id }
      yield* events.append({ aggregateType: INVOICE_AGGREGATE, aggregateID: p.invoiceID, partyID: p.partyID, changes: [change] })
    })

  /** Opens a chargeback on a captured payment (the operator). */
  const open = Traced.fn("ChargebackService.open")(
    function*(invoiceID: string, paymentID: string, params: ChargebackParams) {
      // Locked: refunds and other chargebacks of the payment wait (they lock it too).
      const read = Contention.expected(paymentRepo.findById(invoiceID, paymentID)).pipe(
        Effect.flatMap((o) => (Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(NotFound.of("Payment", paymentID))))
      )
      return yield* Optimistic.command(tx.withTransaction, {
        read,
        update: paymentRepo.update,
        what: `payment ${invoiceID}/${paymentID}`
      }, ({ current: p, save }) => Effect.gen(function*() {
        if (p.status !== "captured") {
          return yield* BusinessError.of("invalidPaymentStatus", `Cannot open a chargeback on a payment in status ${p.status}`)
        }
        // what has been taken back of the payment, one read (after its lock)
        const { chargebacks: existing, refunds: taken } = yield* refunds.listWithChargebacks(invoiceID, paymentID)
        if (existing.some((c) => c.status === "pending")) {
          return yield* BusinessError.of("chargebackInProgress", "A chargeback of this payment is pending")
        }
        if (params.currency !== p.currency) {
          return yield* BusinessError.of("invalidRequest", `currency: the payment's currency is ${p.currency}`)
        }
        const left = remaining(p.amount, taken, chargedBackOf(existing))
        const body = params.body ?? left
        if (body > left || body <= 0) return yield* BusinessError.of("invoicePaymentAmountExceeded", `Max body: ${left}`)
        yield* save(p)
        const c: ChargebackRecord = {
          id: yield* ids.next,
          invoiceID,
          paymentID,
          partyID: p.partyID,
          shopID: p.shopID,
          createdAt: new Date(yield* Clock.currentTimeMillis),
          body,
          levy: params.levy,
          currency: p.currency,
          ...(params.reasonCode === undefined ? {} : { reasonCode: params.reasonCode }),
          stage: "chargeback",
          status: "pending",
          version: 1
        }
        yield* chargebacks.insert(c)
        yield* ledger.hold(planOf(c), { id: 1, postings: yield* postings(p, c.body, c.levy) })
        yield* record(c)
        return c
      }))
    }
  )

  /** Accept, reject, cancel or reopen (the operator). */
  const command = Traced.fn("ChargebackService.command")(
    function*(invoiceID: string, paymentID: string, id: string, cmd: ChargebackCommand) {
      return yield* Optimistic.command(tx.withTransaction, {
        read: load(invoiceID, paymentID, id),
        update: chargebacks.update,
        what: `chargeback ${id}`
      }, ({ current: c, save }) => Effect.gen(function*() {
        const next = decide(c, cmd)
        if (Either.isLeft(next)) return yield* next.left
        const p = yield* Contention.expected(paymentRepo.findById(invoiceID, paymentID)).pipe(Effect.flatMap(Effect.orDie))
        const taken = yield* refunds.listWithChargebacks(invoiceID, paymentID)
        const others = taken.chargebacks.filter((x) => x.id !== id)
        if (cmd._tag === "Reopen" && others.some((x) => x.status === "pending")) {
          return yield* BusinessError.of("chargebackInProgress", "Another chargeback of this payment is pending")
        }
        const left = remaining(p.amount, taken.refunds, chargedBackOf(others))
        if ((cmd._tag === "Accept" || cmd._tag === "Reopen") && next.right.body > left) {
          return yield* BusinessError.of("invoicePaymentAmountExceeded", `Max body: ${left}`)
        }
        const updated = yield* save({ ...c, ...next.right })
        const plan = planOf(c)
        const held = Option.getOrUndefined(yield* ledger.plan(plan))
        const lastBatch = held?.batches.at(-1)?.id ?? 1
        const reverse = (xs: ReadonlyArray<Posting>) => xs.map((x) => ({ ...x, from: x.to, to: x.from }))
        // A decision that changes body or levy undoes the stage's own charge (not the reversal of
        // an earlier stage a reopened plan starts with) and charges the new amounts.
        const replan = (body: number, levy: number) =>
          Effect.gen(function*() {
            if (body === c.body && levy === c.levy) return
            const undo = reverse(yield* postings(p, c.body, c.levy))
            if (undo.length > 0) yield* ledger.hold(plan, { id: lastBatch + 1, postings: undo })
            const fresh = yield* postings(p, body, levy)
            if (fresh.length > 0) yield* ledger.hold(plan, { id: lastBatch + 2, postings: fresh })
          })
        switch (updated.status) {
          case "accepted":
            yield* replan(updated.body, updated.levy)
            yield* ledger.commit(plan)
            break
          case "rejected":
            yield* replan(0, updated.levy)
            yield* ledger.commit(plan)
            break
          case "cancelled":
            // The first stage releases its hold; a reopened stage also gives back the earlier
            // stage's levy, which its plan reversed (as the reference platform does).
            if (c.stage === "chargeback") {
              yield* ledger.rollback(plan)
            } else {
              yield* replan(0, 0)
              yield* ledger.commit(plan)
            }
            break
          case "pending": {
            const next = planOf(updated)
            const undo = reverse(yield* postings(p, 0, c.levy))
            if (undo.length > 0) yield* ledger.hold(next, { id: 1, postings: undo })
            yield* ledger.hold(next, { id: 2, postings: yield* postings(p, updated.body, updated.levy) })
            break
          }
        }
        yield* record(updated)
        // nothing left of the payment once this one is accepted; otherwise its version is bumped
        // all the same: a refund's settlement decides on a copy of what has been taken back of
        // the payment, and learns it is stale from the payment's version (`RefundContext.TakenBack`)
        if (updated.status === "accepted" && left - updated.body <= 0) yield* chargeBack(p, updated)
        else yield* bump(p)
        return updated
      }))
    }
  )

  return { get, list, open, command } as const
})

/** @since 0.1.0 @category services */
export class ChargebackService extends Effect.Service<ChargebackService>()("kassa/ChargebackService", {
  effect: make,
  dependencies: [PaymentService.Default]
}) {}
