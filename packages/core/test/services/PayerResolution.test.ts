/**
 * Who pays: a payment resource (a token and its session, the party's own, while it lives), a
 * customer with a card bound (the shop's own), or a recurrent parent payment (the merchant's
 * own, of the same shop, that asked for a recurrent token).
 */
import { assert, describe, it } from "@effect/vitest"
import { CustomerParams } from "@kassa/core/customer/Customer"
import { CustomerService } from "@kassa/core/customer/CustomerService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { TOKEN_LIFETIME_MS } from "@kassa/core/tokenization/PaymentResources"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Arrange from "../support/Arrange.js"
import { businessCode } from "../support/Expect.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted
const AMEX = "378282246310005"
const decodeCustomer = Schema.decodeUnknownSync(CustomerParams)

const contactInfo = { email: "payer@kassa.test" }

/** A customer of the shop, with a card bound unless `bind` is false. */
const customer = (m: Arrange.Merchant, shopID: string, bind = true) =>
  Effect.gen(function*() {
    const customers = yield* CustomerService
    const { customer } = yield* customers.create(m.partyID, decodeCustomer({ shopID, contactInfo, metadata: {} }))
    if (bind) {
      const resource = yield* Arrange.card(m.partyID)
      yield* customers.createBinding(m.partyID, customer.id, {
        paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
      })
      yield* MemoryKassa.settle
    }
    return customer
  })

/** A captured payment that asked for a recurrent token. */
const recurrentParent = (m: Arrange.Merchant, shopID = m.shopID, makeRecurrent = true) =>
  Effect.gen(function*() {
    const inv = yield* Arrange.invoice(m, 1_000, { shopID })
    const p = yield* Arrange.startPayment(m, inv.id, { makeRecurrent })
    yield* MemoryKassa.settle
    return { invoiceID: inv.id, paymentID: p.id }
  })

const lastAuthorization = Effect.map(
  Effect.flatMap(ScriptedAcquirer, (a) => a.calls),
  (calls) => calls.filter((c) => c.method === "authorize").at(-1)
)

describe("payer resolution: payment resources", () => {
  it.effect("the invoice comes first: another party's or an unknown invoice is not found, whatever the token", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const inv = yield* Arrange.invoice(other, 1_000)
      const payer = yield* Arrange.cardPayer(m.partyID)
      const unknownToken = { ...payer, paymentToolToken: "pt.no-such-token" }
      for (const [invoiceID, p] of [[inv.id, payer], [inv.id, unknownToken], ["no-such-invoice", payer], ["no-such-invoice", unknownToken]] as const) {
        const error = yield* Effect.flip(Arrange.startPayment(m, invoiceID, { payer: p }))
        assert.deepInclude(error, { _tag: "NotFound", message: `Invoice not found: ${invoiceID}` })
      }
      // the invoice's own party pays with its own token
      const own = yield* Arrange.startPayment(other, inv.id, { payer: yield* Arrange.cardPayer(other.partyID) })
      assert.strictEqual(own.status, "pending")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a token of another party is unknown", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const inv = yield* Arrange.invoice(m, 1_000)
      const payer = yield* Arrange.cardPayer(other.partyID)
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id, { payer })), "invalidPaymentToolToken")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a token lives for its lifetime and no longer", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const payer = yield* Arrange.cardPayer(m.partyID)
      const inv = yield* Arrange.invoice(m, 1_000)
      yield* MemoryKassa.elapse(TOKEN_LIFETIME_MS)
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id, { payer })), "invalidPaymentToolToken")
      const fresh = yield* Arrange.cardPayer(m.partyID)
      yield* MemoryKassa.elapse(TOKEN_LIFETIME_MS - 1)
      assert.strictEqual((yield* Arrange.startPayment(m, inv.id, { payer: fresh })).status, "pending")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a session that is not the token's is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000)
      const mine = yield* Arrange.card(m.partyID)
      const another = yield* Arrange.card(m.partyID)
      const payer = {
        payerType: "PaymentResourcePayer" as const,
        paymentToolToken: mine.paymentToolToken,
        paymentSession: another.paymentSession,
        contactInfo
      }
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id, { payer })), "invalidPaymentSession")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a card of a payment system the terms do not enable is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const inv = yield* Arrange.invoice(m, 1_000)
      const amex = yield* Arrange.card(m.partyID, AMEX, "1234")
      const payer = {
        payerType: "PaymentResourcePayer" as const,
        paymentToolToken: amex.paymentToolToken,
        paymentSession: amex.paymentSession,
        contactInfo
      }
      assert.strictEqual(yield* businessCode(Arrange.startPayment(m, inv.id, { payer })), "invalidRequest")
      assert.deepStrictEqual(yield* (yield* ScriptedAcquirer).calls, [])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("payer resolution: customers", () => {
  it.effect("a customer of the shop with a card bound pays with the binding's recurrent token", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const c = yield* customer(m, m.shopID)
      const inv = yield* Arrange.invoice(m, 2_500)
      const started = yield* Arrange.startPayment(m, inv.id, { payer: { payerType: "CustomerPayer", customerID: c.id } })
      yield* MemoryKassa.settle
      const p = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
      assert.strictEqual(p.status, "captured")
      assert.strictEqual(p.payer.payerType, "CustomerPayer")
      assert.deepInclude(yield* lastAuthorization, { toolType: "Recurrent", amount: 2_500 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a customer of another shop, another party, without a card bound, or deleted does not pay", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const inv = yield* Arrange.invoice(m, 2_500)
      const payAs = (customerID: string) =>
        businessCode(Arrange.startPayment(m, inv.id, { payer: { payerType: "CustomerPayer", customerID } }))
      assert.strictEqual(yield* payAs((yield* customer(m, m.shopIDs[1]!)).id), "invalidRequest")
      assert.strictEqual(yield* payAs((yield* customer(other, other.shopID)).id), "invalidRequest")
      assert.strictEqual(yield* payAs((yield* customer(m, m.shopID, false)).id), "invalidRequest")
      const deleted = yield* customer(m, m.shopID)
      yield* (yield* CustomerService).delete(m.partyID, deleted.id)
      assert.strictEqual(yield* payAs(deleted.id), "invalidRequest")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a customer whose binding was declined has no card to pay with", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.declined()))
      const c = yield* customer(m, m.shopID)
      const inv = yield* Arrange.invoice(m, 2_500)
      assert.strictEqual(
        yield* businessCode(Arrange.startPayment(m, inv.id, { payer: { payerType: "CustomerPayer", customerID: c.id } })),
        "invalidRequest"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("payer resolution: recurrent parents", () => {
  it.effect("a payment of the same shop that asked for a recurrent token pays again with it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const parent = yield* recurrentParent(m)
      const inv = yield* Arrange.invoice(m, 1_500)
      const started = yield* Arrange.startPayment(m, inv.id, {
        payer: { payerType: "RecurrentPayer", contactInfo, recurrentParentPayment: parent }
      })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)).status, "captured")
      assert.deepInclude(yield* lastAuthorization, { toolType: "Recurrent", amount: 1_500 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a parent without a recurrent token, of another shop, or of another party is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const inv = yield* Arrange.invoice(m, 1_500)
      const payWith = (parent: { readonly invoiceID: string; readonly paymentID: string }) =>
        businessCode(Arrange.startPayment(m, inv.id, {
          payer: { payerType: "RecurrentPayer", contactInfo, recurrentParentPayment: parent }
        }))
      assert.strictEqual(yield* payWith(yield* recurrentParent(m, m.shopID, false)), "invalidRecurrentParent")
      assert.strictEqual(yield* payWith(yield* recurrentParent(m, m.shopIDs[1]!)), "invalidRecurrentParent")
      assert.strictEqual(yield* payWith(yield* recurrentParent(other)), "invalidRecurrentParent")
      assert.strictEqual(yield* payWith({ invoiceID: inv.id, paymentID: "9" }), "invalidRecurrentParent")
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
