import { assert, layer } from "@effect/vitest"
import { ChargebackRepository } from "@kassa/core/ports/ChargebackRepository"
import { InvoiceRepository } from "@kassa/core/ports/InvoiceRepository"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
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

const storedPayment = Effect.gen(function*() {
  const { invoice, paymentID } = yield* Records.payment
  const found = yield* Effect.flatMap(PaymentRepository, (r) => r.findById(invoice.id, paymentID))
  return { ...Option.getOrThrow(found), invoiceID: Records.fresh("inv"), id: "1", interactionID: undefined }
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: repositories [${backend}]`, (it) => {
    it.effect("PartyRepository: insert and find; update at the version read, refused at any other", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const party = Records.party()
        assert.isTrue(Option.isNone(yield* parties.findById(party.id)))
        yield* parties.insert(party)
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(party))
        const blocked = { ...party, isBlocked: true, version: 2 }
        assert.isTrue(yield* parties.update(blocked, 1))
        assert.isFalse(yield* parties.update({ ...party, isSuspended: true, version: 2 }, 1))
        assert.isFalse(yield* parties.update({ ...party, isSuspended: true, version: 9 }, 8))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(blocked))
        // an update never creates
        const ghost = Records.party({ version: 2 })
        assert.isFalse(yield* parties.update(ghost, 1))
        assert.isTrue(Option.isNone(yield* parties.findById(ghost.id)))
        // a second insert of one id is refused
        assert.isTrue((yield* Effect.exit(parties.insert(party)))._tag === "Failure")
      }))

    it.effect("ShopRepository: reads are scoped by party; the governed read shows the party and updates at once", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const mine = Records.party()
        const theirs = Records.party()
        yield* parties.insert(mine)
        yield* parties.insert(theirs)
        const a = Records.shop(mine.id, { createdAt: new Date(1_700_000_000_002) })
        const b = Records.shop(mine.id, { createdAt: new Date(1_700_000_000_001), currency: "USD" })
        yield* shops.insert(a)
        yield* shops.insert(b)
        assert.deepStrictEqual(yield* shops.findById(mine.id, a.id), Option.some(a))
        assert.isTrue(Option.isNone(yield* shops.findById(theirs.id, a.id)))
        assert.deepStrictEqual((yield* shops.listByParty(mine.id)).map((s) => s.id), [b.id, a.id])
        assert.deepStrictEqual(yield* shops.listByParty(theirs.id), [])

        const governed = Option.getOrThrow(yield* shops.findGoverned(mine.id, a.id))
        assert.deepStrictEqual(governed.shop, a)
        assert.deepStrictEqual(governed.party, mine)
        assert.isTrue(Option.isNone(governed.contract))
        assert.isTrue(Option.isNone(yield* shops.findGoverned(theirs.id, a.id)))

        assert.isTrue(yield* shops.update({ ...a, isBlocked: true, version: 2 }, 1))
        assert.isFalse(yield* shops.update({ ...a, isSuspended: true, version: 2 }, 1))
        // another party cannot update it through its own id
        assert.isFalse(yield* shops.update({ ...a, partyID: theirs.id, isSuspended: true, version: 3 }, 2))
        assert.isTrue(yield* parties.update({ ...mine, isSuspended: true, version: 2 }, 1))
        const after = Option.getOrThrow(yield* shops.findGoverned(mine.id, a.id))
        assert.deepStrictEqual([after.shop.isBlocked, after.shop.isSuspended, after.shop.version], [true, false, 2])
        assert.isTrue(after.party.isSuspended)
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
        const first = yield* storedPayment
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
      }))
  })
}
