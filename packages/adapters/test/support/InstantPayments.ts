/**
 * Instant card payments of one merchant: `payment` makes an invoice of 1000 and a card's resource
 * to pay it with, `pay` creates the payment.
 */
import { PaymentService } from "@kassa/core"
import { Fixtures } from "@kassa/testing"
import * as Effect from "effect/Effect"

type Merchant = Effect.Effect.Success<ReturnType<typeof Fixtures.merchant>>

export const instantPayments = (m: Merchant) =>
  Effect.map(PaymentService.PaymentService, (payments) => {
    const payment = Effect.gen(function*() {
      const invoice = yield* Fixtures.invoice(m, 1000)
      const payer = Fixtures.resourcePayer(yield* Fixtures.cardResource(m.partyID, "4242424242424242"))
      return { invoiceID: invoice.id, payer }
    })
    const pay = ({ invoiceID, payer }: Effect.Effect.Success<typeof payment>) =>
      payments.create(m.partyID, invoiceID, { flow: { type: "PaymentFlowInstant" }, payer, makeRecurrent: false })
    return { payment, pay }
  })
