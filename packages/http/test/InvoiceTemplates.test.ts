import { assert, layer } from "@effect/vitest"
import { Scheduler } from "@kassa/adapters/SqlTimers"
import { InvoiceTemplate } from "@kassa/core"
import { Dialects, Expect, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"

const { businessError, errorTag } = Expect

type CreateParams = InvoiceTemplate.CreateParams

const LIFETIME = { days: 3, months: 0, years: 0 }

const call = TestServer.call

const fixed = (amount: number, currency = "RUB") => ({ costType: "InvoiceTemplateLineCostFixed" as const, currency, amount })
const range = (lowerBound: number, upperBound: number, currency = "RUB") => ({
  costType: "InvoiceTemplateLineCostRange" as const,
  currency,
  range: { lowerBound, upperBound }
})
const unlim = { costType: "InvoiceTemplateLineCostUnlim" as const }

const singleLine = (price: InvoiceTemplate.LineCost, product = "Donation") => ({
  templateType: "InvoiceTemplateSingleLine" as const,
  product,
  price
})

const template = (shopID: string, overrides: Partial<CreateParams> = {}): CreateParams => ({
  shopID,
  lifetime: LIFETIME,
  details: singleLine(fixed(5000)),
  ...overrides
})

const invalidRequest = (response: TestServer.RawResponse, field: string) => {
  assert.strictEqual(response.status, 400, response.text)
  assert.strictEqual(response.json.code, "invalidRequest", response.text)
  assert.include(response.json.message, field)
}

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`InvoiceTemplates [${dialect}]`, (it) => {
    it.effect("createInvoiceTemplate answers 201 {invoiceTemplate, invoiceTemplateAccessToken}, in both forms", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const now = yield* Clock.currentTimeMillis
        const created = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, {
            name: "Coffee fund",
            description: "Buy us a coffee",
            metadata: { campaign: "spring" },
            details: { ...singleLine(fixed(5000), "Coffee"), taxMode: { type: "InvoiceLineTaxVAT", rate: "10%" } }
          })
        })
        const t = created.invoiceTemplate
        assert.isAbove(created.invoiceTemplateAccessToken.payload.length, 10)
        assert.strictEqual(t.shopID, m.shopID)
        assert.strictEqual(t.name, "Coffee fund")
        assert.strictEqual(t.description, "Buy us a coffee")
        assert.strictEqual(t.createdAt.getTime(), now)
        assert.deepStrictEqual(t.lifetime, LIFETIME)
        assert.deepStrictEqual(t.metadata, { campaign: "spring" })
        assert.deepStrictEqual(t.details, {
          templateType: "InvoiceTemplateSingleLine",
          product: "Coffee",
          price: fixed(5000),
          taxMode: { type: "InvoiceLineTaxVAT", rate: "10%" }
        })
        // the older form alongside
        assert.strictEqual(t.product, "Coffee")
        assert.deepStrictEqual(t.cost, { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 5000 })
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path: { invoiceTemplateID: t.id } }), t)

        const wire = yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, {
          shopID: m.shopID,
          lifetime: LIFETIME,
          details: singleLine(unlim)
        })
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["invoiceTemplate", "invoiceTemplateAccessToken"])
        assert.deepStrictEqual(
          Object.keys(wire.json.invoiceTemplate).sort(),
          ["cost", "createdAt", "details", "id", "lifetime", "product", "shopID"]
        )
        assert.deepStrictEqual(wire.json.invoiceTemplate.cost, { invoiceTemplateCostType: "InvoiceTemplateCostUnlim" })
        assert.strictEqual(wire.json.invoiceTemplate.product, "Donation")
      }))

    it.effect("details: single line with unlimited, fixed or range price; multi line with a cart", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const create = (overrides: Partial<CreateParams>) =>
          Effect.map(
            api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID, overrides) }),
            (r) => r.invoiceTemplate
          )
        const u = yield* create({ details: singleLine(unlim) })
        assert.deepStrictEqual(u.details, singleLine(unlim))
        assert.deepStrictEqual(u.cost, { invoiceTemplateCostType: "InvoiceTemplateCostUnlim" })
        const r = yield* create({ details: singleLine(range(100, 900)) })
        assert.deepStrictEqual(r.details, singleLine(range(100, 900)))
        assert.deepStrictEqual(r.cost, {
          invoiceTemplateCostType: "InvoiceTemplateCostRange",
          currency: "RUB",
          range: { lowerBound: 100, upperBound: 900 }
        })
        // a range of one value is a range
        assert.deepStrictEqual((yield* create({ details: singleLine(range(500, 500)) })).details, singleLine(range(500, 500)))

        const multi = yield* create({
          name: "Breakfast",
          details: {
            templateType: "InvoiceTemplateMultiLine",
            currency: "RUB",
            cart: [{ product: "Eggs", quantity: 2, price: 150 }, { product: "Toast", price: 200 }]
          }
        })
        assert.deepStrictEqual(multi.details, {
          templateType: "InvoiceTemplateMultiLine",
          currency: "RUB",
          cart: [
            { product: "Eggs", quantity: 2, price: 150, cost: 300 },
            { product: "Toast", quantity: 1, price: 200, cost: 200 }
          ]
        })
        assert.deepStrictEqual(multi.cost, { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 500 })
        assert.strictEqual(multi.product, "Breakfast")
        const unnamed = yield* create({
          details: { templateType: "InvoiceTemplateMultiLine", currency: "RUB", cart: [{ product: "Eggs", price: 150 }] }
        })
        assert.strictEqual(unnamed.product, "Eggs")
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path: { invoiceTemplateID: multi.id } }), multi)
      }))

    it.effect("the older form (product + cost) is accepted and answered in both forms", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const costs = [
          [{ invoiceTemplateCostType: "InvoiceTemplateCostUnlim" }, unlim],
          [{ invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 700 }, fixed(700)],
          [
            { invoiceTemplateCostType: "InvoiceTemplateCostRange", currency: "RUB", range: { lowerBound: 10, upperBound: 20 } },
            range(10, 20)
          ]
        ] as const
        for (const [cost, price] of costs) {
          const wire = yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, {
            shopID: m.shopID,
            lifetime: LIFETIME,
            product: "Subscription",
            cost
          })
          assert.strictEqual(wire.status, 201, wire.text)
          const t = wire.json.invoiceTemplate
          assert.deepStrictEqual(t.details, singleLine(price, "Subscription"))
          assert.strictEqual(t.product, "Subscription")
          assert.deepStrictEqual(t.cost, cost)
          const read = yield* call("GET", `/v2/processing/invoice-templates/${t.id}`, m.apiKey)
          assert.deepStrictEqual(read.json, t)
        }
        // an older template creates invoices like a newer one
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: {
            shopID: m.shopID,
            lifetime: LIFETIME,
            product: "Ticket",
            cost: { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 1200 }
          }
        })
        const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({
          path: { invoiceTemplateID: invoiceTemplate.id },
          payload: {}
        })
        assert.strictEqual(invoice.amount, 1200)
        assert.strictEqual(invoice.product, "Ticket")
        // half of the older form is not enough
        invalidRequest(
          yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, { shopID: m.shopID, lifetime: LIFETIME, product: "x" }),
          "cost"
        )
        invalidRequest(
          yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, {
            shopID: m.shopID,
            lifetime: LIFETIME,
            cost: { invoiceTemplateCostType: "InvoiceTemplateCostUnlim" }
          }),
          "product"
        )
      }))

    it.effect("bounds and bad templates are 400 invalidRequest naming the field; a bad cart is invalidInvoiceCart", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const post = (overrides: Record<string, unknown>) =>
          call("POST", "/v2/processing/invoice-templates", m.apiKey, {
            shopID: m.shopID,
            lifetime: LIFETIME,
            details: singleLine(fixed(5000)),
            ...overrides
          })
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ lifetime: { days: 0, months: 0, years: 0 } }, "lifetime"],
          [{ lifetime: { days: -1, months: 0, years: 0 } }, "days"],
          [{ lifetime: { days: 1, months: 0 } }, "years"],
          [{ lifetime: { days: 1.5, months: 0, years: 0 } }, "days"],
          [{ lifetime: undefined }, "lifetime"],
          [{ name: "n".repeat(101) }, "name"],
          [{ description: "d".repeat(1001) }, "description"],
          [{ shopID: "s".repeat(41) }, "shopID"],
          [{ shopID: undefined }, "shopID"],
          [{ externalID: "e".repeat(41) }, "externalID"],
          [{ externalID: "" }, "externalID"],
          [{ partyID: "p".repeat(41) }, "partyID"],
          [{ details: undefined }, "details"],
          [{ details: singleLine(fixed(0)) }, "amount"],
          [{ details: singleLine(fixed(100, "rub")) }, "currency"],
          [{ details: singleLine(range(900, 100)) }, "range"],
          [{ details: singleLine(unlim, "p".repeat(101)) }, "product"],
          [{ details: { templateType: "InvoiceTemplateMultiLine", cart: [{ product: "x", price: 1 }] } }, "currency"],
          [{ details: { templateType: "Other" } }, "templateType"],
          [{ randomizeAmount: { deviation: -5 } }, "deviation"]
        ]
        for (const [overrides, field] of cases) invalidRequest(yield* post(overrides), field)
        // the bounds themselves are accepted
        for (
          const ok of [
            { name: "n".repeat(100), description: "d".repeat(1000) },
            { lifetime: { days: 0, months: 0, years: 1 } },
            { lifetime: { days: 0, months: 1, years: 0 } },
            { externalID: "e".repeat(40) }
          ]
        ) {
          const response = yield* post(ok)
          assert.strictEqual(response.status, 201, response.text)
        }
        // carts
        const multi = (cart: Array<unknown>) => ({ templateType: "InvoiceTemplateMultiLine", currency: "RUB", cart })
        for (const cart of [[], [{ product: "x", price: 0 }], Array.from({ length: 101 }, () => ({ product: "x", price: 1 }))]) {
          const response = yield* post({ details: multi(cart) })
          assert.strictEqual(response.status, 400, response.text)
          assert.strictEqual(response.json.code, "invalidInvoiceCart")
        }
        const badLine = yield* post({ details: multi([{ product: "x", price: 1 }, { product: "y", price: -1 }]) })
        assert.include(badLine.json.message, "cart[1].price")
        assert.strictEqual((yield* post({ details: multi(Array.from({ length: 100 }, () => ({ product: "x", price: 1 }))) })).status, 201)
        // a zero lifetime on update too
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        invalidRequest(
          yield* call("PUT", `/v2/processing/invoice-templates/${invoiceTemplate.id}`, m.apiKey, {
            lifetime: { days: 0, months: 0, years: 0 }
          }),
          "lifetime"
        )
        invalidRequest(yield* call("GET", `/v2/processing/invoice-templates/${"t".repeat(41)}`, m.apiKey), "invoiceTemplateID")
      }))

    it.effect("shop checks: invalidShopID, invalidPartyID, invalidPartyStatus, invalidShopStatus", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const create = (overrides: Partial<CreateParams> = {}) =>
          api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID, overrides) })
        yield* businessError(create({ shopID: "no-such-shop" }), "invalidShopID")
        yield* businessError(create({ shopID: other.shopID }), "invalidShopID")
        yield* businessError(create({ partyID: other.partyID }), "invalidPartyID")
        assert.strictEqual((yield* create({ partyID: m.partyID })).invoiceTemplate.shopID, m.shopID)
        const { invoiceTemplate } = yield* create()
        const path = { invoiceTemplateID: invoiceTemplate.id }

        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "block" } })
        yield* businessError(create(), "invalidPartyStatus")
        yield* businessError(api.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "x" } }), "invalidPartyStatus")
        yield* businessError(api.InvoiceTemplates.deleteInvoiceTemplate({ path }), "invalidPartyStatus")
        yield* businessError(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} }), "invalidPartyStatus")
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "unblock" } })

        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        yield* businessError(create(), "invalidShopStatus")
        yield* businessError(api.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "x" } }), "invalidShopStatus")
        yield* businessError(api.InvoiceTemplates.deleteInvoiceTemplate({ path }), "invalidShopStatus")
        yield* businessError(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} }), "invalidShopStatus")
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "block" } })
        yield* businessError(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} }), "invalidShopStatus")
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "unblock" } })

        // nothing changed meanwhile
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), invoiceTemplate)
        assert.strictEqual((yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })).invoice.amount, 5000)
        // another party's template is not found
        const otherApi = yield* TestServer.client(other.apiKey)
        assert.strictEqual(yield* errorTag(otherApi.InvoiceTemplates.getInvoiceTemplateByID({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "x" } })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.InvoiceTemplates.deleteInvoiceTemplate({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path })), "NotFound")
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), invoiceTemplate)
      }))

    it.effect("createInvoiceWithTemplate: invoiceTemplateID, dueDate = now + lifetime, the template's product and metadata", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const lifetime = { days: 2, months: 1, years: 1 }
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, {
            lifetime,
            description: "Monthly",
            metadata: { plan: "gold" },
            details: singleLine(fixed(5000), "Membership")
          })
        })
        const path = { invoiceTemplateID: invoiceTemplate.id }
        const now = new Date(yield* Clock.currentTimeMillis)
        const { invoice, invoiceAccessToken } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })
        assert.strictEqual(invoice.invoiceTemplateID, invoiceTemplate.id)
        assert.strictEqual(invoice.shopID, m.shopID)
        assert.strictEqual(invoice.createdAt.getTime(), now.getTime())
        assert.strictEqual(invoice.dueDate.getTime(), InvoiceTemplate.dueDateOf(now, lifetime).getTime())
        const expected = new Date(now)
        expected.setUTCFullYear(expected.getUTCFullYear() + 1)
        expected.setUTCMonth(expected.getUTCMonth() + 1)
        expected.setUTCDate(expected.getUTCDate() + 2)
        assert.strictEqual(invoice.dueDate.getTime(), expected.getTime())
        assert.strictEqual(invoice.amount, 5000)
        assert.strictEqual(invoice.currency, "RUB")
        assert.strictEqual(invoice.product, "Membership")
        assert.strictEqual(invoice.description, "Monthly")
        assert.deepStrictEqual(invoice.metadata, { plan: "gold" })
        assert.strictEqual(invoice.status, "unpaid")
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } }), invoice)
        // its access token opens the invoice
        const token = yield* TestServer.client(invoiceAccessToken.payload)
        assert.deepStrictEqual(yield* token.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } }), invoice)
        // the request's metadata wins over the template's
        const own = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { metadata: { order: 1 } } })
        assert.deepStrictEqual(own.invoice.metadata, { order: 1 })
        // a template without metadata gives {}
        const bare = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const fromBare = yield* api.InvoiceTemplates.createInvoiceWithTemplate({
          path: { invoiceTemplateID: bare.invoiceTemplate.id },
          payload: {}
        })
        assert.deepStrictEqual(fromBare.invoice.metadata, {})
        // the wire: 201 {invoice, invoiceAccessToken}
        const wire = yield* call("POST", `/v2/processing/invoice-templates/${invoiceTemplate.id}/invoices`, m.apiKey, {})
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["invoice", "invoiceAccessToken"])
        assert.strictEqual(wire.json.invoice.invoiceTemplateID, invoiceTemplate.id)
        assert.strictEqual(
          yield* errorTag(api.InvoiceTemplates.createInvoiceWithTemplate({ path: { invoiceTemplateID: "no-such" }, payload: {} })),
          "NotFound"
        )
      }))

    it.effect("createInvoiceWithTemplate: fixed, range, unlimited and multi-line costs", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const make = (details: InvoiceTemplate.DetailsParams) =>
          Effect.map(
            api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID, { details }) }),
            (r) => ({ invoiceTemplateID: r.invoiceTemplate.id })
          )
        const create = (path: { invoiceTemplateID: string }, payload: InvoiceTemplate.InvoiceParamsWithTemplate) =>
          Effect.map(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload }), (r) => r.invoice)

        // fixed: the amount may be omitted or repeated, not changed
        const f = yield* make(singleLine(fixed(5000)))
        assert.strictEqual((yield* create(f, {})).amount, 5000)
        assert.strictEqual((yield* create(f, { amount: 5000, currency: "RUB" })).amount, 5000)
        yield* businessError(create(f, { amount: 4999 }), "invoiceTermsViolated")
        yield* businessError(create(f, { amount: 5000, currency: "USD" }), "invoiceTermsViolated")

        // range: enforced, bounds included
        const r = yield* make(singleLine(range(100, 900)))
        assert.strictEqual((yield* create(r, { amount: 100 })).amount, 100)
        assert.strictEqual((yield* create(r, { amount: 900 })).amount, 900)
        assert.strictEqual((yield* create(r, { amount: 555 })).amount, 555)
        yield* businessError(create(r, { amount: 99 }), "invoiceTermsViolated")
        yield* businessError(create(r, { amount: 901 }), "invoiceTermsViolated")
        yield* businessError(create(r, {}), "invalidRequest")

        // unlimited: an amount is needed, and a currency
        const u = yield* make(singleLine(unlim, "Tip"))
        const message = yield* businessError(create(u, { currency: "RUB" }), "invalidRequest")
        assert.include(message, "amount")
        const tip = yield* create(u, { amount: 12_345, currency: "RUB" })
        assert.strictEqual(tip.amount, 12_345)
        assert.strictEqual(tip.currency, "RUB")
        assert.strictEqual(tip.product, "Tip")
        assert.include(yield* businessError(create(u, { amount: 100 }), "invalidRequest"), "currency")
        // the contract's limits still apply
        yield* businessError(create(u, { amount: 1_000_000_000, currency: "RUB" }), "invoiceTermsViolated")
        const wire = yield* call("POST", `/v2/processing/invoice-templates/${u.invoiceTemplateID}/invoices`, m.apiKey, { amount: 0 })
        invalidRequest(wire, "amount")

        // multi line: the cart's total
        const multi = yield* make({
          templateType: "InvoiceTemplateMultiLine",
          currency: "RUB",
          cart: [{ product: "Eggs", quantity: 2, price: 150 }, { product: "Toast", price: 200 }]
        })
        const breakfast = yield* create(multi, {})
        assert.strictEqual(breakfast.amount, 500)
        assert.deepStrictEqual(breakfast.cart, [
          { product: "Eggs", quantity: 2, price: 150, cost: 300 },
          { product: "Toast", quantity: 1, price: 200, cost: 200 }
        ])
        assert.strictEqual((yield* create(multi, { amount: 500 })).amount, 500)
        yield* businessError(create(multi, { amount: 501 }), "invoiceTermsViolated")
      }))

    it.effect("a template's randomizeAmount applies to its invoices", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, {
            details: singleLine(fixed(100_000)),
            randomizeAmount: { deviation: 1000, precision: 2, direction: "downward" }
          })
        })
        assert.deepStrictEqual(invoiceTemplate.randomizeAmount, { deviation: 1000, precision: 2, direction: "downward" })
        for (let i = 0; i < 3; i++) {
          const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({
            path: { invoiceTemplateID: invoiceTemplate.id },
            payload: {}
          })
          const r = invoice.amountRandomized!
          assert.strictEqual(r.original, 100_000)
          assert.strictEqual(invoice.amount, r.randomized)
          assert.isTrue(r.randomized <= 100_000 && r.randomized >= 99_000 && r.randomized % 100 === 0)
        }
      }))

    it.effect("payment methods by template: the contract's methods", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const path = { invoiceTemplateID: invoiceTemplate.id }
        const methods = yield* api.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path })
        assert.deepStrictEqual(methods.map((x) => x.method), ["BankCard", "PaymentTerminal", "DigitalWallet"])
        const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })
        assert.deepStrictEqual(yield* api.Invoices.getInvoicePaymentMethods({ path: { invoiceID: invoice.id } }), methods)
        assert.strictEqual(
          yield* errorTag(api.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path: { invoiceTemplateID: "no-such" } })),
          "NotFound"
        )
      }))

    it.effect("a template access token opens reading the template, its invoices and its payment methods only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const created = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const sibling = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const token = yield* TestServer.client(created.invoiceTemplateAccessToken.payload)
        const path = { invoiceTemplateID: created.invoiceTemplate.id }
        assert.deepStrictEqual(yield* token.InvoiceTemplates.getInvoiceTemplateByID({ path }), created.invoiceTemplate)
        assert.strictEqual((yield* token.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path })).length, 3)
        const { invoice, invoiceAccessToken } = yield* token.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })
        assert.strictEqual(invoice.invoiceTemplateID, created.invoiceTemplate.id)
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).id, invoice.id)
        // the created invoice's own token opens it
        const invoiceToken = yield* TestServer.client(invoiceAccessToken.payload)
        assert.strictEqual((yield* invoiceToken.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).id, invoice.id)
        // the template token opens nothing else
        const siblingPath = { invoiceTemplateID: sibling.invoiceTemplate.id }
        assert.strictEqual(yield* errorTag(token.InvoiceTemplates.getInvoiceTemplateByID({ path: siblingPath })), "NotFound")
        assert.strictEqual(
          yield* errorTag(token.InvoiceTemplates.createInvoiceWithTemplate({ path: siblingPath, payload: {} })),
          "NotFound"
        )
        assert.strictEqual(
          yield* errorTag(token.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path: siblingPath })),
          "NotFound"
        )
        assert.strictEqual(yield* errorTag(token.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })), "NotFound")
        assert.strictEqual(yield* errorTag(token.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "x" } })), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.InvoiceTemplates.deleteInvoiceTemplate({ path })), "Unauthorized")
        assert.strictEqual(
          yield* errorTag(token.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })),
          "Unauthorized"
        )
        assert.strictEqual(yield* errorTag(token.Parties.getMyParty()), "Unauthorized")
        // and an invoice token does not open the template
        assert.strictEqual(yield* errorTag(invoiceToken.InvoiceTemplates.getInvoiceTemplateByID({ path })), "NotFound")
        assert.strictEqual(
          yield* errorTag(invoiceToken.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })),
          "NotFound"
        )
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), created.invoiceTemplate)
      }))

    it.effect("updateInvoiceTemplate changes the fields it is given and keeps the others", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate: t } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, { name: "Old", description: "Old description", metadata: { v: 1 } })
        })
        const path = { invoiceTemplateID: t.id }
        const renamed = yield* api.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "New" } })
        assert.deepStrictEqual(renamed, { ...t, name: "New" })
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), renamed)

        const changed = yield* api.InvoiceTemplates.updateInvoiceTemplate({
          path,
          payload: {
            description: "New description",
            lifetime: { days: 0, months: 2, years: 0 },
            details: singleLine(range(10, 20), "Pay what you want"),
            metadata: { v: 2 },
            randomizeAmount: { deviation: 0, precision: 0, direction: "both" }
          }
        })
        assert.deepStrictEqual(changed, {
          ...renamed,
          description: "New description",
          lifetime: { days: 0, months: 2, years: 0 },
          details: singleLine(range(10, 20), "Pay what you want"),
          metadata: { v: 2 },
          randomizeAmount: { deviation: 0, precision: 0, direction: "both" },
          product: "Pay what you want",
          cost: { invoiceTemplateCostType: "InvoiceTemplateCostRange", currency: "RUB", range: { lowerBound: 10, upperBound: 20 } }
        })
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), changed)
        // invoices follow the update
        const now = new Date(yield* Clock.currentTimeMillis)
        const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { amount: 15 } })
        assert.strictEqual(invoice.amount, 15)
        assert.strictEqual(invoice.product, "Pay what you want")
        assert.deepStrictEqual(invoice.metadata, { v: 2 })
        assert.strictEqual(invoice.dueDate.getTime(), InvoiceTemplate.dueDateOf(now, { days: 0, months: 2, years: 0 }).getTime())
        yield* businessError(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { amount: 21 } }), "invoiceTermsViolated")

        // the older form on update: cost alone keeps the product
        const wire = yield* call("PUT", `/v2/processing/invoice-templates/${t.id}`, m.apiKey, {
          cost: { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 42 }
        })
        assert.strictEqual(wire.status, 200, wire.text)
        assert.deepStrictEqual(wire.json.details, singleLine(fixed(42), "Pay what you want"))
        assert.deepStrictEqual(wire.json.cost, { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 42 })
        assert.strictEqual(wire.json.name, "New")
        // to a multi-line cart
        const multi = yield* api.InvoiceTemplates.updateInvoiceTemplate({
          path,
          payload: { details: { templateType: "InvoiceTemplateMultiLine", currency: "RUB", cart: [{ product: "A", price: 7, quantity: 3 }] } }
        })
        assert.deepStrictEqual(multi.cost, { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 21 })
        assert.strictEqual(multi.product, "New")
        yield* businessError(
          api.InvoiceTemplates.updateInvoiceTemplate({
            path,
            payload: { details: { templateType: "InvoiceTemplateMultiLine", currency: "RUB", cart: [] } }
          }),
          "invalidInvoiceCart"
        )
        // refused updates change nothing
        assert.deepStrictEqual(yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path }), multi)
        assert.strictEqual(
          yield* errorTag(api.InvoiceTemplates.updateInvoiceTemplate({ path: { invoiceTemplateID: "no-such" }, payload: { name: "x" } })),
          "NotFound"
        )
      }))

    it.effect("deleteInvoiceTemplate answers 204; then read, update and createInvoiceWithTemplate are 404", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const created = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const keep = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const id = created.invoiceTemplate.id
        const path = { invoiceTemplateID: id }
        const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })
        const wire = yield* call("DELETE", `/v2/processing/invoice-templates/${id}`, m.apiKey)
        assert.strictEqual(wire.status, 204)
        assert.strictEqual(wire.text, "")
        assert.strictEqual(yield* errorTag(api.InvoiceTemplates.getInvoiceTemplateByID({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(api.InvoiceTemplates.updateInvoiceTemplate({ path, payload: { name: "x" } })), "NotFound")
        assert.strictEqual(yield* errorTag(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })), "NotFound")
        assert.strictEqual(yield* errorTag(api.InvoiceTemplates.getInvoicePaymentMethodsByTemplateID({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(api.InvoiceTemplates.deleteInvoiceTemplate({ path })), "NotFound")
        const read = yield* call("GET", `/v2/processing/invoice-templates/${id}`, m.apiKey)
        assert.strictEqual(read.status, 404)
        assert.deepStrictEqual(Object.keys(read.json), ["message"])
        // its token opens nothing any more
        const token = yield* TestServer.client(created.invoiceTemplateAccessToken.payload)
        assert.strictEqual(yield* errorTag(token.InvoiceTemplates.getInvoiceTemplateByID({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(token.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: {} })), "NotFound")
        // the invoices made from it and the other templates stay
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).invoiceTemplateID, id)
        assert.deepStrictEqual(
          yield* api.InvoiceTemplates.getInvoiceTemplateByID({ path: { invoiceTemplateID: keep.invoiceTemplate.id } }),
          keep.invoiceTemplate
        )
      }))

    it.effect("externalID: the same template answers the original; different lifetime, details or shop 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const body = { shopID: m.shopID, externalID: "tpl-1", lifetime: LIFETIME, details: singleLine(fixed(5000)), name: "A" }
        const first = yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, body)
        assert.strictEqual(first.status, 201, first.text)
        const id = first.json.invoiceTemplate.id
        assert.strictEqual(first.json.invoiceTemplate.externalID, "tpl-1")
        // ignored fields may differ; the older form of the same details is the same template
        for (
          const same of [
            { name: "B", description: "other", metadata: { x: 1 } },
            { details: undefined, product: "Donation", cost: { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: "RUB", amount: 5000 } }
          ]
        ) {
          const again = yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, { ...body, ...same })
          assert.strictEqual(again.status, 201, again.text)
          assert.deepStrictEqual(again.json.invoiceTemplate, first.json.invoiceTemplate)
          assert.isString(again.json.invoiceTemplateAccessToken.payload)
        }
        for (
          const changed of [
            { lifetime: { days: 4, months: 0, years: 0 } },
            { details: singleLine(fixed(5001)) },
            { details: singleLine(fixed(5000), "Other product") },
            { shopID: m.shopIDs[1] }
          ]
        ) {
          const conflict = yield* call("POST", "/v2/processing/invoice-templates", m.apiKey, { ...body, ...changed })
          assert.strictEqual(conflict.status, 409, `${JSON.stringify(changed)}: ${conflict.text}`)
          assert.deepStrictEqual(conflict.json, {
            externalID: "tpl-1",
            id,
            message: "This 'externalID' has been used by another request"
          })
        }
        assert.strictEqual(
          yield* errorTag(
            api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID, { externalID: "tpl-1", lifetime: { days: 9, months: 0, years: 0 } }) })
          ),
          "ExternalIdConflict"
        )
        // per party
        const theirs = yield* call("POST", "/v2/processing/invoice-templates", other.apiKey, { ...body, shopID: other.shopID })
        assert.strictEqual(theirs.status, 201)
        assert.notStrictEqual(theirs.json.invoiceTemplate.id, id)
        // the template namespace is not the invoice namespace
        const invoice = yield* call("POST", "/v2/processing/invoices", m.apiKey, {
          shopID: m.shopID,
          externalID: "tpl-1",
          dueDate: new Date((yield* Clock.currentTimeMillis) + 86_400_000).toISOString(),
          amount: 100,
          currency: "RUB",
          product: "x",
          metadata: {}
        })
        assert.strictEqual(invoice.status, 201, invoice.text)
      }))

    it.effect("createInvoiceWithTemplate by externalID: the same request answers the original; different 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, { details: singleLine(range(100, 900)) })
        })
        const path = { invoiceTemplateID: invoiceTemplate.id }
        const url = `/v2/processing/invoice-templates/${invoiceTemplate.id}/invoices`
        const first = yield* call("POST", url, m.apiKey, { externalID: "inv-1", amount: 300, metadata: { a: 1 } })
        assert.strictEqual(first.status, 201, first.text)
        const again = yield* call("POST", url, m.apiKey, { externalID: "inv-1", amount: 300, metadata: { b: 2 } })
        assert.strictEqual(again.status, 201, again.text)
        assert.deepStrictEqual(again.json.invoice, first.json.invoice)
        const conflict = yield* call("POST", url, m.apiKey, { externalID: "inv-1", amount: 400 })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.deepStrictEqual(conflict.json, {
          externalID: "inv-1",
          id: first.json.invoice.id,
          message: "This 'externalID' has been used by another request"
        })
        assert.strictEqual(
          yield* errorTag(api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { externalID: "inv-1", amount: 500 } })),
          "ExternalIdConflict"
        )
        assert.strictEqual(
          (yield* api.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "inv-1" } })).id,
          first.json.invoice.id
        )
      }))

    it.effect("a template token's externalID is the template's own: it neither blocks nor answers the merchant's", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const created = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, { details: singleLine(range(100, 900)) })
        })
        const token = created.invoiceTemplateAccessToken.payload
        const url = `/v2/processing/invoice-templates/${created.invoiceTemplate.id}/invoices`
        const first = yield* call("POST", url, token, { externalID: "order-123", amount: 100 })
        assert.strictEqual(first.status, 201, first.text)
        // the token's retry answers its own invoice; another request under its externalID is 409
        const again = yield* call("POST", url, token, { externalID: "order-123", amount: 100 })
        assert.strictEqual(again.status, 201, again.text)
        assert.deepStrictEqual(again.json.invoice, first.json.invoice)
        const conflict = yield* call("POST", url, token, { externalID: "order-123", amount: 200 })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.strictEqual(conflict.json.id, first.json.invoice.id)
        // the merchant's look-ups do not find it...
        const byExternalID = { urlParams: { externalID: "order-123" } }
        assert.strictEqual(yield* errorTag(api.Invoices.getInvoiceByExternalID(byExternalID)), "NotFound")
        assert.strictEqual(
          yield* errorTag(api.Invoices.getInvoiceByExternalIDForParty({ path: { partyID: m.partyID }, ...byExternalID })),
          "NotFound"
        )
        // ...and the merchant's own "order-123" is a new invoice, found by its externalID
        const own = yield* call("POST", "/v2/processing/invoices", m.apiKey, {
          shopID: m.shopID,
          externalID: "order-123",
          dueDate: new Date(Date.now() + 86_400_000).toISOString(),
          amount: 5000,
          currency: "RUB",
          product: "Order 123",
          metadata: {}
        })
        assert.strictEqual(own.status, 201, own.text)
        assert.notStrictEqual(own.json.invoice.id, first.json.invoice.id)
        assert.strictEqual((yield* api.Invoices.getInvoiceByExternalID(byExternalID)).id, own.json.invoice.id)
        // another template's token has a namespace of its own too
        const sibling = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const theirs = yield* call(
          "POST",
          `/v2/processing/invoice-templates/${sibling.invoiceTemplate.id}/invoices`,
          sibling.invoiceTemplateAccessToken.payload,
          { externalID: "order-123" }
        )
        assert.strictEqual(theirs.status, 201, theirs.text)
        assert.strictEqual(theirs.json.invoice.invoiceTemplateID, sibling.invoiceTemplate.id)
        // the token's invoice is untouched
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: first.json.invoice.id } })).amount, 100)
      }))
  })

  // Time travel on a suite of its own, so that its clock jumps do not reach the tests above.
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`InvoiceTemplates over time [${dialect}]`, (it) => {
    it.effect("a retried createInvoiceWithTemplate with the same externalID answers the original invoice later too", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({ payload: template(m.shopID) })
        const path = { invoiceTemplateID: invoiceTemplate.id }
        const first = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { externalID: "retry-1" } })
        // the client retries a second later (say, after a timeout): same request, same invoice
        yield* TestClock.adjust(1000)
        const retried = yield* api.InvoiceTemplates.createInvoiceWithTemplate({ path, payload: { externalID: "retry-1" } })
        assert.strictEqual(retried.invoice.id, first.invoice.id)
        assert.deepStrictEqual(retried.invoice, first.invoice)
      }))

    it.effect("invoices from a template expire at the end of its lifetime", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoiceTemplate } = yield* api.InvoiceTemplates.createInvoiceTemplate({
          payload: template(m.shopID, { lifetime: { days: 1, months: 0, years: 0 } })
        })
        const { invoice } = yield* api.InvoiceTemplates.createInvoiceWithTemplate({
          path: { invoiceTemplateID: invoiceTemplate.id },
          payload: {}
        })
        const scheduler = yield* Scheduler
        yield* TestClock.adjust(86_400_000 - 1000)
        yield* scheduler.runDue
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).status, "unpaid")
        yield* TestClock.adjust(1000)
        // the scheduler's own pass may be firing the timer at the same moment: wait for either
        let expired = yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })
        for (let i = 0; i < 100 && expired.status === "unpaid"; i++) {
          yield* scheduler.runDue
          expired = yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })
          if (expired.status === "unpaid") yield* Effect.promise(() => new Promise<void>((r) => setTimeout(r, 20)))
        }
        assert.strictEqual(expired.status, "cancelled")
        assert.strictEqual(expired.reason, "overdue")
      }))
  })
}
