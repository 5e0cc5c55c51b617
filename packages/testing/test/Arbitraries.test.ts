import { assert, describe, it } from "@effect/vitest"
import * as Allocation from "@kassa/core/allocation/Allocation"
import * as Cart from "@kassa/core/cart/Cart"
import * as Invoice from "@kassa/core/invoice/Invoice"
import * as InvoiceTemplate from "@kassa/core/invoice-template/InvoiceTemplate"
import * as Card from "@kassa/core/payment/Card"
import * as Payment from "@kassa/core/payment/Payment"
import * as PaymentTool from "@kassa/core/payment/PaymentTool"
import { Arbitraries } from "@kassa/testing"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

const runs = { fastCheck: { numRuns: 150 } }
const now = new Date("2026-11-26T05:00:00Z")
const shopIDs = ["shop-1", "shop-2", "shop-3", "shop-4", "shop-5", "shop-6"]
const refs: Arbitraries.PayerRefs = {
  paymentResource: { paymentToolToken: "token", paymentSession: "session" },
  customerID: "customer-1",
  recurrentParent: { invoiceID: "invoice-1", paymentID: "1" }
}

const decodes = <A, I>(schema: Schema.Schema<A, I>, value: unknown): A => {
  const decoded = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value)
  if (Either.isLeft(decoded)) assert.fail(`${JSON.stringify(value)}: ${decoded.left.message}`)
  return decoded.right
}

const costs = (lines: ReadonlyArray<unknown>): number => {
  const made = Cart.make(lines)
  if (Either.isLeft(made)) return assert.fail(made.left.message)
  return Cart.total(made.right) ?? assert.fail("cart total out of range")
}

describe("Arbitraries: the contract's decoders accept every value", () => {
  it.prop("invoice params, due in the future", [Arbitraries.invoiceParams({ now, shopID: "shop-1" })], ([params]) => {
    const decoded = decodes(Invoice.InvoiceParams, params)
    assert.isTrue(decoded.dueDate.getTime() > now.getTime())
    assert.include(Arbitraries.demoCurrencies, decoded.currency)
    assert.isTrue(params.amount >= Arbitraries.demoCashLimit.min && params.amount < Arbitraries.demoCashLimit.max)
    if (params.cart !== undefined) assert.strictEqual(costs(params.cart), params.amount)
  }, runs)

  it.prop("invoice template params", [Arbitraries.invoiceTemplateParams({ shopID: "shop-1" })], ([params]) => {
    const decoded = decodes(InvoiceTemplate.CreateParams, params)
    if (decoded.details?.templateType === "InvoiceTemplateMultiLine") assert.isAbove(costs(decoded.details.cart), 0)
  }, runs)

  it.prop("payment params with every kind of payer", [Arbitraries.paymentParams(refs)], ([params]) => {
    decodes(Payment.PaymentParams, params)
  }, runs)

  it.prop("allocations, which Allocation.make takes for the amount", [
    FastCheck.tuple(Arbitraries.amount, Arbitraries.currency).chain(([amount, currency]) =>
      Arbitraries.allocationOf({ amount, currency, shopIDs }).map((allocation) => ({ amount, currency, allocation }))
    )
  ], ([{ allocation, amount, currency }]) => {
    const params = decodes(Allocation.AllocationParams, allocation)
    const made = Allocation.make(params, { shopID: "shop-0", amount, currency, partyShops: new Set(shopIDs), allowed: true })
    assert.isTrue(Either.isRight(made), Either.isLeft(made) ? made.left.message : "")
  }, runs)

  it.prop("card data, which the card check accepts", [Arbitraries.cardData({ now })], ([{ card, paymentTool }]) => {
    const decoded = decodes(PaymentTool.CardData, paymentTool)
    const checked = Card.validate(decoded, now)
    assert.isTrue(Either.isRight(checked), Either.isLeft(checked) ? checked.left : "")
    if (Either.isRight(checked)) assert.strictEqual(checked.right.paymentSystem, card.paymentSystem)
  }, runs)
})

describe("Arbitraries: invariants", () => {
  it.prop("a cart's costs add up to its amount", [Arbitraries.cart], ([{ amount, cart }]) => {
    assert.strictEqual(costs(cart), amount)
    assert.isAtMost(cart.length, 100)
  }, runs)

  it.prop("split gives positive parts summing to the total", [
    FastCheck.integer({ min: 1, max: 1000 }).chain((total) => Arbitraries.split(total, { min: 1, max: 7 }).map((parts) => ({ total, parts })))
  ], ([{ parts, total }]) => {
    assert.strictEqual(parts.reduce((a, b) => a + b, 0), total)
    assert.isTrue(parts.every((p) => Number.isInteger(p) && p >= 1))
    assert.isAtMost(parts.length, 7)
  }, runs)

  it.prop("test cards of one outcome carry it", [
    FastCheck.constantFrom(...(["Authorized", "Declined", "Slow", "ThreeDSecure", "RefundDeclined"] as const)).chain((tag) =>
      Arbitraries.testCardWith(tag).map((card) => ({ tag, card }))
    )
  ], ([{ card, tag }]) => {
    assert.strictEqual(card.outcome._tag, tag)
  }, runs)
})
