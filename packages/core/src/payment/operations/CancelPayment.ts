/**
 * cancelPayment: the merchant releases a held payment; the acquirer's cancel starts once the
 * decision has committed.
 *
 * @since 0.1.0
 */
import { PartyID, ShopID } from "../../Ids.js"
import * as Traced from "../../internal/traced.js"
import type { Apply } from "../ApplyCommand.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { Kick } from "../processing/Advance.js"
import type { GetPaymentWithInvoice } from "./ReadPayments.js"

/** @since 0.1.0 @category constructors */
export const make = ({ shops }: PaymentContext, get: GetPaymentWithInvoice, apply: Apply, kick: Kick) =>
  Traced.fn("PaymentService.cancel")(function*(partyID: string, invoiceID: string, id: string, reason: string) {
    // the invoice as read here serves the settlement of the cancel's end (its update checked)
    const { invoice, payment: p } = yield* get(partyID, invoiceID, id)
    yield* shops.requireActive(PartyID.make(partyID), ShopID.make(p.shopID))
    yield* kick(invoiceID, id, yield* apply(invoiceID, id, { _tag: "Cancel", reason }, p), invoice)
  })
