import { assert, layer } from "@effect/vitest"
import { PaymentResources } from "@kassa/core"
import { ChargebackRepository } from "@kassa/core/ports/ChargebackRepository"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { PaymentResourceRepository } from "@kassa/core/ports/PaymentResourceRepository"
import { RefundRepository } from "@kassa/core/ports/RefundRepository"
import { ShopRepository } from "@kassa/core/ports/ShopRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

/** A template of a stored record of `repository`, copied under fresh ids (the services' own may change meanwhile). */
const storedInvoice = Effect.gen(function*() {
  const { invoice } = yield* Records.invoice()
  const found = yield* Effect.flatMap(InvoiceRepository, (r) => r.findByIdUnscoped(invoice.id))
  return { ...Option.getOrThrow(found), id: Records.fresh("inv") }
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: repositories [${backend}]`, (it) => {
    it.effect("PartyRepository: insert, find, optimistic update", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const party = Records.party()
        assert.isTrue(Option.isNone(yield* parties.findById(party.id)))
        yield* parties.insert(party)
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(party))

        const suspended = { ...party, isSuspended: true, version: 2 }
        assert.isTrue(yield* parties.update(suspended, suspended.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))

        // a writer that read version 1 is too late
        const stale = { ...party, isBlocked: true, version: 2 }
        assert.isFalse(yield* parties.update(stale, stale.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))
        // a version from the future is refused as well
        assert.isFalse(yield* parties.update({ ...party, isBlocked: true, version: 9 }, 8))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))

        const blocked = { ...suspended, isBlocked: true, version: 3 }
        assert.isTrue(yield* parties.update(blocked, blocked.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(blocked))

        // an unknown party is not updated (and not created)
        const ghost = Records.party({ version: 2 })
        assert.isFalse(yield* parties.update(ghost, ghost.version - 1))
        assert.isTrue(Option.isNone(yield* parties.findById(ghost.id)))
      }))

    it.effect("ShopRepository: insert, find, list, optimistic update", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const party = Records.party()
        yield* parties.insert(party)
        const a = Records.shop(party.id)
        const b = Records.shop(party.id, { details: { name: "Without description" }, currency: "USD", categoryID: 2 })
        yield* shops.insert(a)
        yield* shops.insert(b)
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(a))
        assert.deepStrictEqual(yield* shops.findById(party.id, b.id), Option.some(b))
        const listed = yield* shops.listByParty(party.id)
        assert.deepStrictEqual([...listed].sort((x, y) => x.id.localeCompare(y.id)), [a, b].sort((x, y) => x.id.localeCompare(y.id)))

        const suspended = { ...a, isSuspended: true, version: 2 }
        assert.isTrue(yield* shops.update(suspended, suspended.version - 1))
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(suspended))
        assert.isFalse(yield* shops.update({ ...a, isBlocked: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(suspended))
        // the other shop of the party is untouched
        assert.deepStrictEqual(yield* shops.findById(party.id, b.id), Option.some(b))
      }))

    it.effect("ShopRepository.findGoverned: a change to the shop or its party shows at once", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const party = Records.party()
        const shop = Records.shop(party.id)
        assert.isTrue(Option.isNone(yield* shops.findGoverned(party.id, shop.id)))
        yield* parties.insert(party)
        yield* shops.insert(shop)
        const first = Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id))
        assert.deepStrictEqual([first.shop.isBlocked, first.party.isSuspended], [false, false])
        assert.isTrue(yield* shops.update({ ...shop, isBlocked: true, version: 2 }, 1))
        const blocked = Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id))
        assert.deepStrictEqual([blocked.shop.isBlocked, blocked.shop.version], [true, 2])
        assert.isTrue(yield* parties.update({ ...party, isSuspended: true, version: 2 }, 1))
        assert.isTrue(Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id)).party.isSuspended)
      }))

    it.effect("ShopRepository never answers another party's shop", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const p1 = Records.party()
        const p2 = Records.party()
        yield* parties.insert(p1)
        yield* parties.insert(p2)
        const mine = Records.shop(p1.id)
        yield* shops.insert(mine)
        assert.isTrue(Option.isNone(yield* shops.findById(p2.id, mine.id)))
        assert.deepStrictEqual(yield* shops.listByParty(p2.id), [])
        // another party cannot update it through its own id
        assert.isFalse(yield* shops.update({ ...mine, partyID: p2.id, isBlocked: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))

        // the same shop id under the second party is a different shop
        const theirs = Records.shop(p2.id, { id: mine.id, currency: "EUR" })
        yield* shops.insert(theirs)
        assert.deepStrictEqual(yield* shops.findById(p2.id, mine.id), Option.some(theirs))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))
        assert.isTrue(yield* shops.update({ ...theirs, isSuspended: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))
        assert.deepStrictEqual((yield* shops.listByParty(p1.id)).map((s) => s.id), [mine.id])
      }))

    it.effect("InvoiceRepository: scoped and unscoped reads; versioned updates write the state, never the terms", () =>
      Effect.gen(function*() {
        const invoices = yield* InvoiceRepository
        const invoice = yield* storedInvoice
        yield* invoices.insert(invoice)
        assert.deepStrictEqual(yield* invoices.findById(invoice.partyID, invoice.id), Option.some(invoice))
        assert.isTrue(Option.isNone(yield* invoices.findById("another-party", invoice.id)))
        assert.deepStrictEqual(yield* invoices.findByIdUnscoped(invoice.id), Option.some(invoice))

        const cancelled = { ...invoice, status: "cancelled" as const, reason: "changed my mind", version: invoice.version + 1 }
        assert.isTrue(yield* invoices.update(cancelled, invoice.version))
        assert.deepStrictEqual(yield* invoices.findByIdUnscoped(invoice.id), Option.some(cancelled))
        assert.isFalse(yield* invoices.update({ ...invoice, status: "paid", version: invoice.version + 1 }, invoice.version))
        // the amount and the due date are the invoice's terms: an update leaves them
        assert.isTrue(yield* invoices.update({ ...cancelled, amount: 1, dueDate: new Date(0), version: cancelled.version + 1 }, cancelled.version))
        const stored = Option.getOrThrow(yield* invoices.findByIdUnscoped(invoice.id))
        assert.deepStrictEqual([stored.amount, stored.dueDate, stored.version], [invoice.amount, invoice.dueDate, cancelled.version + 1])
      }))

    it.effect("PaymentRepository: reads by invoice, party and interaction; payments listed by number", () =>
      Effect.gen(function*() {
        const payments = yield* PaymentRepository
        const first = yield* Records.storedPayment
        const tenth = { ...first, id: "10", interactionID: Records.fresh("ia") }
        const second = { ...first, id: "2" }
        for (const p of [tenth, first, second]) yield* payments.insert(p)
        assert.deepStrictEqual(yield* payments.findById(first.invoiceID, "1"), Option.some(first))
        assert.deepStrictEqual(yield* payments.findOfParty(first.partyID, first.invoiceID, "2"), Option.some(second))
        assert.isTrue(Option.isNone(yield* payments.findOfParty("another-party", first.invoiceID, "2")))
        assert.deepStrictEqual((yield* payments.listByInvoice(first.invoiceID)).map((p) => p.id), ["1", "2", "10"])
        assert.deepStrictEqual(yield* payments.findByInteraction(tenth.interactionID!), Option.some(tenth))
        assert.isTrue(Option.isNone(yield* payments.findByInteraction(Records.fresh("ia"))))

        const failed = { ...first, status: "failed" as const, version: first.version + 1 }
        assert.isTrue(yield* payments.update(failed, first.version))
        assert.isFalse(yield* payments.update({ ...first, status: "cancelled", version: first.version + 1 }, first.version))
        assert.deepStrictEqual(yield* payments.findById(first.invoiceID, "1"), Option.some(failed))
      }))

    it.effect("RefundRepository and ChargebackRepository: scoped reads, numeric order, versioned updates", () =>
      Effect.gen(function*() {
        const refunds = yield* RefundRepository
        const chargebacks = yield* ChargebackRepository
        const of = { invoiceID: Records.fresh("inv"), paymentID: "1", partyID: Records.fresh("p"), shopID: "s" }
        for (const id of ["2", "10", "1"]) yield* refunds.insert(Records.refund(of, id))
        assert.deepStrictEqual((yield* refunds.listByPayment(of.invoiceID, "1")).map((r) => r.id), ["1", "2", "10"])
        assert.deepStrictEqual(yield* refunds.listByPayment(of.invoiceID, "2"), [])
        assert.deepStrictEqual(yield* refunds.findById(of.invoiceID, "1", "2"), Option.some(Records.refund(of, "2")))
        assert.isTrue(Option.isNone(yield* refunds.findOfParty("another-party", of.invoiceID, "1", "2")))
        const succeeded = { ...Records.refund(of, "2"), status: "succeeded" as const, version: 2 }
        assert.isTrue(yield* refunds.update(succeeded, 1))
        assert.isFalse(yield* refunds.update({ ...succeeded, status: "failed", version: 2 }, 1))
        assert.deepStrictEqual(yield* refunds.findOfParty(of.partyID, of.invoiceID, "1", "2"), Option.some(succeeded))

        yield* chargebacks.insert(Records.chargeback(of, "2"))
        yield* chargebacks.insert(Records.chargeback(of, "1"))
        assert.deepStrictEqual((yield* chargebacks.listByPayment(of.invoiceID, "1")).map((c) => c.id), ["1", "2"])
        const accepted = { ...Records.chargeback(of, "1"), status: "accepted" as const, levy: 50, version: 2 }
        assert.isTrue(yield* chargebacks.update(accepted, 1))
        assert.isFalse(yield* chargebacks.update({ ...accepted, status: "rejected", version: 2 }, 1))
        assert.deepStrictEqual(yield* chargebacks.findById(of.invoiceID, "1", "1"), Option.some(accepted))

        // both lists in one read, as each repository lists them (another payment's rows left out)
        const other = { ...of, paymentID: "3" }
        yield* refunds.insert(Records.refund(other, "1", {
          externalID: "x-1",
          error: { code: "refused", message: "no" },
          status: "failed"
        }))
        yield* chargebacks.insert(Records.chargeback(other, "1", { reasonCode: "4837", body: 70 }))
        for (const paymentID of ["1", "3"]) {
          assert.deepStrictEqual(yield* refunds.listWithChargebacks(of.invoiceID, paymentID), {
            refunds: yield* refunds.listByPayment(of.invoiceID, paymentID),
            chargebacks: yield* chargebacks.listByPayment(of.invoiceID, paymentID)
          })
        }
        const taken = yield* refunds.listWithChargebacks(of.invoiceID, "1")
        assert.deepStrictEqual([taken.refunds.map((r) => r.id), taken.chargebacks.map((c) => c.id)], [["1", "2", "10"], ["1", "2"]])
        assert.deepStrictEqual(taken.chargebacks[0], accepted)
        assert.deepStrictEqual(yield* refunds.listWithChargebacks(of.invoiceID, "2"), { refunds: [], chargebacks: [] })
      }))

    it.effect("RefundRepository.findPaymentOfParty: the party's payment with its refunds and chargebacks, as each repository reads them, in one read", () =>
      Effect.gen(function*() {
        const refunds = yield* RefundRepository
        const chargebacks = yield* ChargebackRepository
        const payments = yield* PaymentRepository
        const stored = yield* Records.storedPayment
        const payment = { ...stored, externalID: "pay-1", error: undefined }
        const of = { invoiceID: payment.invoiceID, paymentID: payment.id, partyID: payment.partyID, shopID: payment.shopID }
        yield* payments.insert(payment)
        // none taken back yet; another party's look-up finds nothing
        const bare = yield* refunds.findPaymentOfParty(payment.partyID, payment.invoiceID, payment.id)
        assert.deepStrictEqual(bare, Option.some({ payment: Option.getOrThrow(yield* payments.findOfParty(payment.partyID, payment.invoiceID, payment.id)), refunds: [], chargebacks: [] }))
        assert.isTrue(Option.isNone(yield* refunds.findPaymentOfParty("another-party", payment.invoiceID, payment.id)))
        assert.isTrue(Option.isNone(yield* refunds.findPaymentOfParty(payment.partyID, payment.invoiceID, "2")))

        for (const id of ["2", "10", "1"]) yield* refunds.insert(Records.refund(of, id, { status: id === "2" ? "failed" : "succeeded" }))
        yield* chargebacks.insert(Records.chargeback(of, "1", { reasonCode: "4837", body: 70 }))
        // another payment's rows are left out
        yield* refunds.insert(Records.refund({ ...of, paymentID: "2" }, "1"))
        const found = Option.getOrThrow(yield* refunds.findPaymentOfParty(payment.partyID, payment.invoiceID, payment.id))
        assert.deepStrictEqual(found, {
          payment: Option.getOrThrow(yield* payments.findOfParty(payment.partyID, payment.invoiceID, payment.id)),
          ...(yield* refunds.listWithChargebacks(payment.invoiceID, payment.id))
        })
        assert.deepStrictEqual([found.refunds.map((r) => r.id), found.chargebacks.map((c) => c.id)], [["1", "2", "10"], ["1"]])
        assert.strictEqual(found.payment.externalID, "pay-1")
      }))

    it.effect("PaymentRepository.findOfPartyWithInvoice: the party's payment with its invoice, as each repository reads them, in one read", () =>
      Effect.gen(function*() {
        const payments = yield* PaymentRepository
        const invoices = yield* InvoiceRepository
        const { invoice, merchant, paymentID } = yield* Records.payment
        const found = Option.getOrThrow(yield* payments.findOfPartyWithInvoice(merchant.partyID, invoice.id, paymentID))
        assert.deepStrictEqual(found, {
          payment: Option.getOrThrow(yield* payments.findOfParty(merchant.partyID, invoice.id, paymentID)),
          invoice: Option.getOrThrow(yield* invoices.findById(merchant.partyID, invoice.id))
        })
        assert.deepStrictEqual([found.payment.id, found.invoice.id, found.invoice.activePaymentID], [paymentID, invoice.id, paymentID])
        // another party's, another number, another invoice: none
        assert.isTrue(Option.isNone(yield* payments.findOfPartyWithInvoice("another-party", invoice.id, paymentID)))
        assert.isTrue(Option.isNone(yield* payments.findOfPartyWithInvoice(merchant.partyID, invoice.id, "99")))
        assert.isTrue(Option.isNone(yield* payments.findOfPartyWithInvoice(merchant.partyID, "no-such-invoice", paymentID)))
      }))

    it.effect("PaymentResourceRepository.findWithInvoice: the party's invoice and the resource, as each repository reads them, in one read", () =>
      Effect.gen(function*() {
        const resources = yield* PaymentResourceRepository
        const invoices = yield* InvoiceRepository
        const { invoice, merchant } = yield* Records.invoice()
        const created = yield* (yield* PaymentResources.PaymentResources).create(merchant.partyID, {
          paymentTool: { paymentToolType: "CardData", cardNumber: Records.CARD, expDate: "12/40", cvv: "123" },
          clientInfo: { fingerprint: "storage-contract" }
        }).pipe(Effect.orDie)
        const token = created.paymentToolToken
        const resource = yield* resources.findByToken(token)
        assert.isTrue(Option.isSome(resource))
        assert.deepStrictEqual(yield* resources.findWithInvoice(merchant.partyID, invoice.id, token), {
          invoice: yield* invoices.findById(merchant.partyID, invoice.id),
          resource
        })
        assert.strictEqual(Option.getOrThrow((yield* resources.findWithInvoice(merchant.partyID, invoice.id, token)).invoice).id, invoice.id)
        // each is looked up on its own: another party's invoice, an unknown token, neither
        assert.deepStrictEqual(yield* resources.findWithInvoice("another-party", invoice.id, token), { invoice: Option.none(), resource })
        assert.deepStrictEqual(yield* resources.findWithInvoice(merchant.partyID, invoice.id, "no-such-token"), {
          invoice: yield* invoices.findById(merchant.partyID, invoice.id),
          resource: Option.none()
        })
        assert.deepStrictEqual(yield* resources.findWithInvoice(merchant.partyID, "no-such-invoice", "no-such-token"), {
          invoice: Option.none(),
          resource: Option.none()
        })
      }))
  })
}
