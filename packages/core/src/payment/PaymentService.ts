/**
 * The payment's facade for handlers and embedders: its operations (`operations/`), its
 * background work with the acquirer and the timers that run it (`processing/`), and what a
 * transition settles (`settlement/`: the ledger and the invoice), grouped under one tag. Every
 * step is one transaction; durable timers resume whatever a crash interrupted.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvoiceService } from "../invoice/InvoiceService.js"
import { ShopService } from "../shop/ShopService.js"
import { PaymentResources } from "../tokenization/PaymentResources.js"
import * as ApplyCommand from "./ApplyCommand.js"
import * as CancelPayment from "./operations/CancelPayment.js"
import * as CapturePayment from "./operations/CapturePayment.js"
import * as CompleteChallenge from "./operations/CompleteChallenge.js"
import * as CreatePayment from "./operations/CreatePayment.js"
import * as ReadPayments from "./operations/ReadPayments.js"
import * as PaymentContext from "./PaymentContext.js"
import type { PaymentChange } from "./PaymentChange.js"
import * as Processing from "./processing/index.js"

/** @since 0.1.0 */
export { OPERATION } from "./operations/CreatePayment.js"
/** Resumes a payment's background work after a crash. @since 0.1.0 */
export { KIND as ADVANCE_TIMER } from "./processing/AdvanceTimer.js"
/** Ends a hold. @since 0.1.0 */
export { KIND as HOLD_TIMER } from "./processing/HoldTimer.js"
/** Ends an abandoned 3-D Secure challenge. @since 0.1.0 */
export { KIND as INTERACTION_TIMER } from "./processing/InteractionTimer.js"

/** What builds the service: `PaymentService.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const ctx = yield* PaymentContext.make
  const transitions = ApplyCommand.make(ctx)
  const processing = yield* Processing.make(ctx, transitions.apply)
  const reads = ReadPayments.make(ctx)
  return {
    create: CreatePayment.make(ctx, processing.kick),
    get: reads.get,
    list: reads.list,
    getByExternalID: reads.getByExternalID,
    capture: CapturePayment.make(ctx, reads.getWithInvoice, transitions.apply, processing.kick),
    cancel: CancelPayment.make(ctx, reads.getWithInvoice, transitions.apply, processing.kick),
    advance: processing.advance,
    ...CompleteChallenge.make(ctx, transitions, processing, processing.kick)
  } as const
})

/** @since 0.1.0 @category services */
export class PaymentService extends Effect.Service<PaymentService>()("kassa/PaymentService", {
  effect: make,
  dependencies: [InvoiceService.Default, ShopService.Default, PaymentResources.Default]
}) {}

/** @since 0.1.0 */
export type { PaymentChange }
