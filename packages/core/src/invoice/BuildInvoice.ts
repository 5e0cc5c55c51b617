/**
 * The rules of a new invoice: the party and the shop, the cart or the amount, the contract's
 * currencies, categories and cash limits, the due date, the allocation and the randomized amount.
 * Answers the invoice to create.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Allocation from "../allocation/Allocation.js"
import * as Cart from "../cart/Cart.js"
import { BusinessError } from "../Errors.js"
import { PartyID, ShopID } from "../Ids.js"
import * as Traced from "../internal/traced.js"
import type { Ids } from "../ports/Ids.js"
import type { ShopService } from "../shop/ShopService.js"
import type { InvoiceParams, InvoiceRecord } from "./Invoice.js"
import * as RandomizeAmount from "./RandomizeAmount.js"

const fail = <A>(e: Either.Either<A, BusinessError>) => (Either.isLeft(e) ? Effect.fail(e.left) : Effect.void)

/** @since 0.1.0 @category constructors */
export const make = (shops: ShopService, ids: Context.Tag.Service<Ids>, now: Effect.Effect<Date>) =>
  Traced.fn("InvoiceService.build")(
    function*(caller: string, params: InvoiceParams, invoiceTemplateID: string | undefined) {
      if (params.partyID !== undefined && params.partyID !== caller) {
        return yield* BusinessError.of("invalidPartyID", `Party not found: ${params.partyID}`)
      }
      const { institution, shop } = yield* shops.requireActiveWithTerms(PartyID.make(caller), ShopID.make(params.shopID))
      let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
      if (params.cart !== undefined) {
        const made = Cart.make(params.cart)
        yield* fail(made)
        cart = Either.getOrThrow(made)
      }
      const cartTotal = cart === undefined ? undefined : Cart.total(cart)
      if (params.amount === undefined && cartTotal === undefined) {
        return yield* BusinessError.of("invalidInvoiceCost", "Either amount or cart is required")
      }
      if (params.amount !== undefined && cartTotal !== undefined && params.amount !== cartTotal) {
        return yield* BusinessError.of("invalidInvoiceCost", `amount ${params.amount} differs from the cart total ${cartTotal}`)
      }
      const amount = (params.amount ?? cartTotal)!
      const terms = institution.terms
      if (!terms.currencies.includes(params.currency)) {
        return yield* BusinessError.of("invoiceTermsViolated", `Currency ${params.currency} is not allowed by the contract`)
      }
      if (params.currency !== shop.currency) {
        return yield* BusinessError.of("invalidRequest", `Invalid currency: the shop accepts ${shop.currency}`)
      }
      if (!terms.categories.includes(shop.categoryID)) {
        return yield* BusinessError.of("invoiceTermsViolated", `Category ${shop.categoryID} is not allowed by the contract`)
      }
      const at = yield* now
      if (params.dueDate.getTime() <= at.getTime()) {
        return yield* BusinessError.of("invalidRequest", "dueDate: must be in the future")
      }
      let allocation: ReadonlyArray<Allocation.AllocationTransaction> | undefined
      if (params.allocation !== undefined) {
        const partyShops = new Set((yield* shops.list(PartyID.make(caller))).map((s) => s.id as string))
        const made = Allocation.make(params.allocation, {
          shopID: shop.id,
          amount,
          currency: params.currency,
          partyShops,
          allowed: terms.allocationAllowed
        })
        yield* fail(made)
        allocation = Either.getOrThrow(made)
      }
      // A cart must keep adding up to the amount: only a single line of quantity 1 can take a
      // randomized price; other carts are not randomized.
      const single = cart !== undefined && cart.length === 1 && cart[0]!.quantity === 1
      const randomized = params.randomizeAmount === undefined || (cart !== undefined && !single)
        ? Option.none()
        : yield* RandomizeAmount.randomize(amount, params.randomizeAmount)
      const finalAmount = Option.match(randomized, { onNone: () => amount, onSome: (r) => r.randomized })
      if (single && finalAmount !== amount) cart = [{ ...cart![0]!, price: finalAmount, cost: finalAmount }]
      const limit = terms.cashLimits.find((l) => l.currency === params.currency)
      if (limit !== undefined && (finalAmount < limit.min || finalAmount >= limit.max)) {
        return yield* BusinessError.of(
          "invoiceTermsViolated",
          `Amount ${finalAmount} is outside the contract's limits [${limit.min}, ${limit.max})`
        )
      }
      const invoice: InvoiceRecord = {
        id: yield* ids.next,
        partyID: caller,
        shopID: shop.id,
        ...(params.externalID === undefined ? {} : { externalID: params.externalID }),
        createdAt: at,
        dueDate: params.dueDate,
        amount: finalAmount,
        currency: params.currency,
        product: params.product,
        ...(params.description === undefined ? {} : { description: params.description }),
        ...(invoiceTemplateID === undefined ? {} : { invoiceTemplateID }),
        ...(cart === undefined ? {} : { cart }),
        ...(allocation === undefined ? {} : { allocation }),
        ...(params.bankAccount === undefined ? {} : { bankAccount: params.bankAccount }),
        metadata: params.metadata,
        ...(params.clientInfo === undefined ? {} : { clientInfo: params.clientInfo }),
        ...(Option.isSome(randomized) ? { amountRandomized: randomized.value } : {}),
        status: "unpaid",
        activePaymentID: undefined,
        paymentCount: 0,
        version: 1
      }
      return invoice
    }
  )
