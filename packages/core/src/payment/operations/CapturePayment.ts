/**
 * capturePayment: the merchant captures a held payment, in full or in part, with an optional
 * final cart and allocation. Validated here, decided by the machine (which also books the fee of
 * a partial capture); the acquirer's capture starts once the decision has committed.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Allocation from "../../allocation/Allocation.js"
import * as Cart from "../../cart/Cart.js"
import { BusinessError } from "../../Errors.js"
import { PartyID, ShopID } from "../../Ids.js"
import * as Traced from "../../internal/traced.js"
import type { Apply } from "../ApplyCommand.js"
import type { CaptureParams } from "../Payment.js"
import type { PaymentContext } from "../PaymentContext.js"
import type { Kick } from "../processing/Advance.js"
import type { GetPaymentWithInvoice } from "./ReadPayments.js"

/** @since 0.1.0 @category constructors */
export const make = ({ shops }: PaymentContext, get: GetPaymentWithInvoice, apply: Apply, kick: Kick) =>
  Traced.fn("PaymentService.capture")(function*(partyID: string, invoiceID: string, id: string, params: CaptureParams) {
    // the invoice as read here serves the settlement of the capture's end (its update checked)
    const { invoice, payment: p } = yield* get(partyID, invoiceID, id)
    const { institution } = yield* shops.requireActiveWithTerms(PartyID.make(partyID), ShopID.make(p.shopID))
    let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
    if (params.cart !== undefined) {
      const made = Cart.make(params.cart)
      if (Either.isLeft(made)) return yield* made.left
      cart = made.right
    }
    const amount = params.amount ?? (cart === undefined ? undefined : Cart.total(cart))
    if (cart !== undefined && amount !== Cart.total(cart)) {
      return yield* BusinessError.of("invalidInvoiceCart", `cart: total ${Cart.total(cart)} differs from amount ${amount}`)
    }
    let allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
    if (params.allocation !== undefined) {
      const partyShops = new Set((yield* shops.list(PartyID.make(partyID))).map((s) => s.id as string))
      const made = Allocation.make(params.allocation, {
        shopID: p.shopID,
        amount: amount ?? p.authorizedAmount,
        currency: p.currency,
        partyShops,
        allowed: institution.terms.allocationAllowed
      })
      if (Either.isLeft(made)) return yield* made.left
      allocation = made.right
    }
    const after = yield* apply(invoiceID, id, {
      _tag: "Capture",
      reason: params.reason,
      amount,
      currency: params.currency,
      cart,
      allocation,
      fees: institution.terms.fees
    }, p)
    yield* kick(invoiceID, id, after, invoice)
  })
