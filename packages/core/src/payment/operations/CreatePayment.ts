/**
 * createPayment: starts a payment on an invoice. Validates the deadline, the shop and its
 * contract, resolves the payer, answers an earlier request with the same `externalID`, then in one
 * transaction numbers the payment on its invoice, stores it with its event and timers; the
 * acquirer's work starts once that has committed.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isInForce } from "../../contract/Contract.js"
import * as Deadline from "../../Deadline.js"
import { BusinessError, NotFound } from "../../Errors.js"
import { PartyID, ShopID } from "../../Ids.js"
import { canonicalJson } from "../../internal/canonical.js"
import * as Optimistic from "../../internal/optimistic.js"
import * as Traced from "../../internal/traced.js"
import { decide as decideInvoice } from "../../invoice/InvoiceMachine.js"
import { PARTY_NAMESPACE } from "../../ports/Idempotency.js"
import * as Ref from "../../Ref.js"
import { type PaymentParams, type PaymentRecord, toPayment } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { Kick } from "../processing/Advance.js"
import * as AdvanceTimer from "../processing/AdvanceTimer.js"
import * as HoldTimer from "../processing/HoldTimer.js"
import * as ResolvePayer from "./ResolvePayer.js"

/** The idempotency operation of a payment's `externalID`. @since 0.1.0 */
export const OPERATION = "payment"

/** The features two requests with one `externalID` must share (reference: bender features). */
const fingerprint = (invoiceID: string, params: PaymentParams, toolKey: unknown) =>
  canonicalJson({
    invoiceID,
    makeRecurrent: params.makeRecurrent,
    flow: params.flow,
    payerType: params.payer.payerType,
    tool: toolKey
  })

/** @since 0.1.0 @category constructors */
export const make = (ctx: PaymentContext, kick: Kick) => {
  const { externalIDs, invoiceRepo, invoices, load, now, payments, resourceRepo, settings, shops, timers, tx } = ctx
  const resolvePayer = ResolvePayer.make(ctx)

  /** Its `externalID` is looked up in `namespace` (the party's own unless an access token sent it). */
  return Traced.fn("PaymentService.create")(function*(
    partyID: string,
    invoiceID: string,
    params: PaymentParams,
    namespace: string = PARTY_NAMESPACE
  ) {
    // a resource payer's resource is read with the invoice, one look-up
    const token = params.payer.payerType === "PaymentResourcePayer" ? params.payer.paymentToolToken : undefined
    const start = token === undefined ? undefined : yield* resourceRepo.findWithInvoice(partyID, invoiceID, token)
    const invoice = start === undefined
      ? yield* invoices.get(partyID, invoiceID)
      : Option.isSome(start.invoice)
      ? start.invoice.value
      : yield* NotFound.of("Invoice", invoiceID)
    const at = yield* now
    const deadline = params.processingDeadline === undefined
      ? Option.some(new Date(at.getTime() + settings.defaultProcessingDeadlineMs))
      : Deadline.parse(params.processingDeadline, at)
    if (Option.isNone(deadline)) {
      return yield* BusinessError.of("invalidProcessingDeadline", "processingDeadline: expected RFC 3339 or 30s, 1.5m, 500ms")
    }
    const { contract, institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(invoice.shopID))
    if (!isInForce(contract, at)) return yield* BusinessError.of("invalidContractStatus", "The contract is not in force")
    const payer = yield* resolvePayer(partyID, invoice, institution, params.payer, start?.resource)

    const flow: PaymentRecord["flow"] = params.flow.type === "PaymentFlowHold"
      ? {
        type: "PaymentFlowHold",
        onHoldExpiration: params.flow.onHoldExpiration,
        heldUntil: new Date(at.getTime() + institution.terms.holdLifetimeSeconds * 1000)
      }
      : { type: "PaymentFlowInstant" }

    return yield* externalIDs.create({
      partyID,
      namespace,
      operation: OPERATION,
      externalID: params.externalID,
      fingerprint: () => fingerprint(invoiceID, params, payer.toolKey),
      ref: Ref.Payment,
      load: (ref) => load(ref.invoiceID, ref.paymentID)
    }, (claim) =>
      Effect.gen(function*() {
        const { invoice: written, payment } = yield* Optimistic.command(tx.withTransaction, {
          read: invoiceRepo.findById(partyID, invoiceID).pipe(Effect.flatMap(Effect.orDie)),
          known: invoice,
          update: invoiceRepo.update,
          what: `invoice ${invoiceID}`
        }, ({ current, save }) =>
          Effect.gen(function*() {
            // The invoice counts its payments (a stale count loses the invoice's version check).
            const id = String(current.paymentCount + 1)
            yield* claim({ invoiceID, paymentID: id })
            const decided = decideInvoice(current, { _tag: "StartPayment", paymentID: id }, at)
            if (Either.isLeft(decided)) return yield* decided.left
            const updatedInvoice = yield* save({
              ...current,
              activePaymentID: decided.right.state.activePaymentID,
              paymentCount: current.paymentCount + 1
            })
            const payment: PaymentRecord = {
              id,
              ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
              invoiceID,
              partyID,
              shopID: invoice.shopID,
              createdAt: at,
              amount: current.amount,
              authorizedAmount: current.amount,
              currency: current.currency,
              flow,
              payer: payer.payer,
              makeRecurrent: params.makeRecurrent,
              ...(params.metadata === undefined ? {} : { metadata: params.metadata }),
              ...(current.allocation === undefined ? {} : { allocation: current.allocation }),
              status: "pending",
              activity: "processing",
              tool: payer.tool,
              vaultSession: payer.vaultSession,
              processingDeadline: deadline.value,
              capture: undefined,
              cancelReason: undefined,
              interactionID: undefined,
              recurrentToken: undefined,
              cart: current.cart,
              fee: 0,
              statusChangedAt: at,
              version: 1
            }
            yield* payments.insert(payment)
            yield* ctx.appendToInvoice(updatedInvoice, [{ changeType: "PaymentStarted", payment: toPayment(payment) }])
            const subject = Ref.Payment.encode({ invoiceID, paymentID: id })
            yield* timers.scheduleAll([
              AdvanceTimer.first(settings, payment, at),
              ...(flow.type === "PaymentFlowHold" && flow.heldUntil !== undefined
                ? [{ kind: HoldTimer.KIND, subject, dueAt: flow.heldUntil, payload: null }]
                : [])
            ])
            return { payment, invoice: updatedInvoice }
          }))
        // the invoice as written serves the processing's settlement of it (no read, no lock)
        yield* kick(invoiceID, payment.id, payment, written)
        return payment
      }))
  })
}
