/**
 * The refund's facade for handlers and embedders: start one on a captured payment
 * (`CreateRefund`), read them, and the background work that refunds with the acquirer
 * (`RefundProcessing`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { PaymentService } from "../payment/PaymentService.js"
import * as Ref from "../Ref.js"
import { ShopService } from "../shop/ShopService.js"
import * as CreateRefund from "./CreateRefund.js"
import * as RefundContext from "./RefundContext.js"
import * as RefundProcessing from "./RefundProcessing.js"

/** @since 0.1.0 */
export { OPERATION } from "./CreateRefund.js"
/** @since 0.1.0 */
export { ADVANCE_TIMER } from "./RefundProcessing.js"
/** @since 0.1.0 */
export { chargedBackOf } from "./RefundMachine.js"

/** What builds the service: `RefundService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* RefundContext.make
  const { externalIDs, payments, refunds } = ctx
  const processing = yield* RefundProcessing.make(ctx)

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
    const ref = yield* externalIDs.find(Ref.Refund, partyID, CreateRefund.OPERATION, externalID, "Refund")
    return yield* get(partyID, ref.invoiceID, ref.paymentID, ref.refundID)
  })

  return { create: CreateRefund.make(ctx, processing.kick), get, list, getByExternalID, advance: processing.advance } as const
})

/** @since 0.1.0 @category services */
export class RefundService extends Effect.Service<RefundService>()("kassa/RefundService", {
  effect: make,
  dependencies: [PaymentService.Default, ShopService.Default]
}) {}
