/**
 * getPaymentByID, getPayments, getPaymentByExternalID: a payment read in its party's scope.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../../Errors.js"
import * as Traced from "../../internal/traced.js"
import * as Ref from "../../Ref.js"
import type { PaymentContext } from "../PaymentContext.js"
import { OPERATION } from "./CreatePayment.js"

/** @since 0.1.0 @category constructors */
export const make = ({ externalIDs, invoices, payments }: PaymentContext) => {
  // A payment carries its invoice's party: one look-up when it is found; when it is not, the
  // invoice's says which of the two is missing.
  const missing = (partyID: string, invoiceID: string, id: string) =>
    Effect.zipRight(invoices.get(partyID, invoiceID), Effect.fail(NotFound.of("Payment", id)))

  const get = Traced.fn("PaymentService.get")(function*(partyID: string, invoiceID: string, id: string) {
    const found = yield* payments.findOfParty(partyID, invoiceID, id)
    if (Option.isSome(found)) return found.value
    return yield* missing(partyID, invoiceID, id)
  })

  /** `get`, with the payment's invoice as the same look-up read it. */
  const getWithInvoice = Traced.fn("PaymentService.getWithInvoice")(function*(partyID: string, invoiceID: string, id: string) {
    const found = yield* payments.findOfPartyWithInvoice(partyID, invoiceID, id)
    if (Option.isSome(found)) return found.value
    return yield* missing(partyID, invoiceID, id)
  })

  const list = Traced.fn("PaymentService.list")(function*(partyID: string, invoiceID: string) {
    yield* invoices.get(partyID, invoiceID)
    return yield* payments.listByInvoice(invoiceID)
  })

  const getByExternalID = Traced.fn("PaymentService.getByExternalID")(function*(partyID: string, externalID: string) {
    const ref = yield* externalIDs.find(Ref.Payment, partyID, OPERATION, externalID, "Payment")
    return yield* get(partyID, ref.invoiceID, ref.paymentID)
  })

  return { get, getWithInvoice, list, getByExternalID } as const
}

/** @since 0.1.0 @category models */
export type GetPayment = ReturnType<typeof make>["get"]

/** @since 0.1.0 @category models */
export type GetPaymentWithInvoice = ReturnType<typeof make>["getWithInvoice"]
