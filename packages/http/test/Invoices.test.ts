import { assert, layer } from "@effect/vitest"
import { Scheduler } from "@kassa/adapters/SqlTimers"
import type { Invoice } from "@kassa/core"
import { Dialects, Expect, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"

const { businessError } = Expect

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A date `ms` after the (test) clock's now. The suite shares one TestClock, so never assume epoch 0. */
const dueIn = (ms: number) => Effect.map(Clock.currentTimeMillis, (now) => new Date(now + ms))

const headers = (token: string | undefined) => ({
  "x-request-id": TestServer.requestId(),
  ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
})

const call = (
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  token: string | undefined,
  body?: unknown
) =>
  TestServer.raw(method, path, {
    headers: headers(token),
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** A createInvoice body on the wire: dueDate in a day, 1000 RUB. */
const wireParams = (shopID: string, overrides: Record<string, unknown> = {}) =>
  Effect.map(dueIn(DAY), (due): Record<string, unknown> => ({
    shopID,
    dueDate: due.toISOString(),
    amount: 1000,
    currency: "RUB",
    product: "Tea",
    metadata: {},
    ...overrides
  }))

/** A createInvoice payload for the typed client. */
const params = (shopID: string, overrides: Partial<Invoice.InvoiceParams> = {}) =>
  Effect.map(dueIn(DAY), (dueDate): Invoice.InvoiceParams => ({
    shopID,
    dueDate,
    amount: 1000,
    currency: "RUB",
    product: "Tea",
    metadata: {},
    ...overrides
  }))

const errorTag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e: any) => e._tag as string)

const invalidRequest = (response: TestServer.RawResponse, field: string) => {
  assert.strictEqual(response.status, 400, response.text)
  assert.strictEqual(response.json.code, "invalidRequest", response.text)
  assert.include(response.json.message, field)
}

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Invoices [${dialect}]`, (it) => {
    it.effect("createInvoice answers 201 {invoice, invoiceAccessToken}; getInvoiceByID reads it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const now = yield* Clock.currentTimeMillis
        const payload = yield* params(m.shopID, {
          description: "Green tea",
          metadata: { order: 7, tags: ["a"] },
          bankAccount: { accountType: "InvoiceRussianBankAccount", account: "40702810000000000001", bankBik: "044525225" },
          clientInfo: { trustLevel: "wellKnown" }
        })
        const { invoice, invoiceAccessToken } = yield* api.Invoices.createInvoice({ payload })
        assert.isString(invoiceAccessToken.payload)
        assert.isAbove(invoiceAccessToken.payload.length, 10)
        assert.strictEqual(invoice.shopID, m.shopID)
        assert.strictEqual(invoice.createdAt.getTime(), now)
        assert.strictEqual(invoice.dueDate.getTime(), payload.dueDate.getTime())
        assert.strictEqual(invoice.amount, 1000)
        assert.strictEqual(invoice.currency, "RUB")
        assert.strictEqual(invoice.product, "Tea")
        assert.strictEqual(invoice.description, "Green tea")
        assert.deepStrictEqual(invoice.metadata, { order: 7, tags: ["a"] })
        assert.deepStrictEqual(invoice.bankAccount, payload.bankAccount)
        assert.deepStrictEqual(invoice.clientInfo, { trustLevel: "wellKnown" })
        assert.strictEqual(invoice.status, "unpaid")
        assert.isUndefined(invoice.reason)
        assert.isUndefined(invoice.externalID)
        assert.isUndefined(invoice.amountRandomized)
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } }), invoice)

        const wire = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* wireParams(m.shopID))
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["invoice", "invoiceAccessToken"])
        assert.deepStrictEqual(Object.keys(wire.json.invoiceAccessToken), ["payload"])
        assert.deepStrictEqual(
          Object.keys(wire.json.invoice).sort(),
          ["amount", "createdAt", "currency", "dueDate", "id", "metadata", "product", "shopID", "status"]
        )
        assert.match(wire.json.invoice.createdAt, /(Z|[+-]\d{2}:\d{2})$/)
        assert.notStrictEqual(wire.json.invoice.id, invoice.id)
      }))

    it.effect("every bound of the Limits table is a 400 invalidRequest naming the field", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const post = (overrides: Record<string, unknown>) =>
          Effect.flatMap(wireParams(m.shopID, overrides), (body) => call("POST", "/v2/processing/invoices", m.apiKey, body))
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ product: "p".repeat(101) }, "product"],
          [{ description: "d".repeat(1001) }, "description"],
          [{ shopID: "" }, "shopID"],
          [{ shopID: "s".repeat(41) }, "shopID"],
          [{ externalID: "" }, "externalID"],
          [{ externalID: "e".repeat(41) }, "externalID"],
          [{ partyID: "p".repeat(41) }, "partyID"],
          [{ amount: 0 }, "amount"],
          [{ amount: -100 }, "amount"],
          [{ amount: 10.5 }, "amount"],
          [{ amount: "1000" }, "amount"],
          [{ currency: "rub" }, "currency"],
          [{ currency: "RU" }, "currency"],
          [{ currency: "RUBL" }, "currency"],
          [{ dueDate: "2030-01-01T00:00:00" }, "dueDate"],
          [{ dueDate: "tomorrow" }, "dueDate"],
          [{ metadata: "none" }, "metadata"],
          [{ allocation: [] }, "allocation"],
          [{ bankAccount: { accountType: "InvoiceRussianBankAccount", account: "123", bankBik: "044525225" } }, "account"]
        ]
        for (const [overrides, field] of cases) invalidRequest(yield* post(overrides), field)
        for (const field of ["shopID", "dueDate", "currency", "product", "metadata"]) {
          const body: Record<string, unknown> = yield* wireParams(m.shopID)
          delete body[field]
          invalidRequest(yield* call("POST", "/v2/processing/invoices", m.apiKey, body), field)
        }
        // the bounds themselves are accepted
        for (
          const ok of [
            { product: "p".repeat(100), description: "d".repeat(1000) },
            { externalID: "e".repeat(40) },
            { externalID: "x" },
            { amount: 1 }
          ]
        ) {
          const response = yield* post(ok)
          assert.strictEqual(response.status, 201, `${JSON.stringify(ok).slice(0, 80)}: ${response.text}`)
        }
        // a due date that is not in the future
        invalidRequest(yield* post({ dueDate: new Date((yield* Clock.currentTimeMillis) - 1000).toISOString() }), "dueDate")
        // path and query identifiers are 1..40
        invalidRequest(yield* call("GET", `/v2/processing/invoices/${"i".repeat(41)}`, m.apiKey), "invoiceID")
        invalidRequest(yield* call("GET", `/v2/processing/invoices?externalID=${"e".repeat(41)}`, m.apiKey), "externalID")
        // reason ≤ 1000
        const created = yield* post({})
        const id = created.json.invoice.id
        invalidRequest(yield* call("POST", `/v2/processing/invoices/${id}/rescind`, m.apiKey, { reason: "r".repeat(1001) }), "reason")
        invalidRequest(yield* call("POST", `/v2/processing/invoices/${id}/rescind`, m.apiKey, {}), "reason")
        invalidRequest(yield* call("POST", `/v2/processing/invoices/${id}/fulfill`, m.apiKey, { reason: "r".repeat(1001) }), "reason")
        const rescinded = yield* call("POST", `/v2/processing/invoices/${id}/rescind`, m.apiKey, { reason: "r".repeat(1000) })
        assert.strictEqual(rescinded.status, 204, rescinded.text)
      }))

    it.effect("cart: costs are price × quantity, an omitted amount is the cart total", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const cart = [
          { product: "tea", quantity: 3, price: 250 },
          { product: "cup", price: 1000, taxMode: { type: "InvoiceLineTaxVAT", rate: "20%" } }
        ]
        const { amount: _omit, ...noAmount } = yield* params(m.shopID, { cart })
        const { invoice } = yield* api.Invoices.createInvoice({ payload: noAmount })
        assert.strictEqual(invoice.amount, 1750)
        assert.deepStrictEqual(invoice.cart, [
          { product: "tea", quantity: 3, price: 250, cost: 750 },
          { product: "cup", quantity: 1, price: 1000, cost: 1000, taxMode: { type: "InvoiceLineTaxVAT", rate: "20%" } }
        ])
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } }), invoice)
        // the amount may repeat the total
        const same = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID, { cart, amount: 1750 }) })
        assert.strictEqual(same.invoice.amount, 1750)
        // a cart of 100 lines
        const hundred = Array.from({ length: 100 }, (_, i) => ({ product: `item ${i}`, quantity: 2, price: i + 1 }))
        const big = yield* api.Invoices.createInvoice({ payload: { ...noAmount, cart: hundred } })
        assert.strictEqual(big.invoice.amount, 10_100)
        assert.strictEqual(big.invoice.cart?.length, 100)
      }))

    it.effect("cart and amount errors: invalidInvoiceCost and invalidInvoiceCart", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const cart = [{ product: "tea", quantity: 3, price: 250 }]
        const { amount: _omit, ...noAmount } = yield* params(m.shopID)
        yield* businessError(api.Invoices.createInvoice({ payload: yield* params(m.shopID, { cart, amount: 751 }) }), "invalidInvoiceCost")
        yield* businessError(api.Invoices.createInvoice({ payload: noAmount }), "invalidInvoiceCost")
        yield* businessError(api.Invoices.createInvoice({ payload: { ...noAmount, cart: [] } }), "invalidInvoiceCart")
        const tooMany = Array.from({ length: 101 }, (_, i) => ({ product: `item ${i}`, price: 1 }))
        yield* businessError(api.Invoices.createInvoice({ payload: { ...noAmount, cart: tooMany } }), "invalidInvoiceCart")
        const malformed: ReadonlyArray<readonly [unknown, string]> = [
          [{ product: "tea", price: 0 }, "cart[1].price"],
          [{ product: "tea", price: 10, quantity: 0 }, "cart[1].quantity"],
          [{ price: 10 }, "cart[1].product"],
          [{ product: "tea", price: "10" }, "cart[1].price"],
          ["tea", "cart[1]"]
        ]
        for (const [line, name] of malformed) {
          const message = yield* businessError(
            api.Invoices.createInvoice({ payload: { ...noAmount, cart: [cart[0], line] } }),
            "invalidInvoiceCart"
          )
          assert.include(message, name)
        }
        // the same on the wire: 400 {code, message}
        const wire = yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* wireParams(m.shopID, { cart: [] }))
        assert.strictEqual(wire.status, 400)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["code", "message"])
        assert.strictEqual(wire.json.code, "invalidInvoiceCart")
      }))

    it.effect("shop checks: invalidShopID, invalidPartyStatus, invalidShopStatus, invalidPartyID", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const create = (shopID: string, overrides: Partial<Invoice.InvoiceParams> = {}) =>
          Effect.flatMap(params(shopID, overrides), (payload) => api.Invoices.createInvoice({ payload }))

        yield* businessError(create("no-such-shop"), "invalidShopID")
        yield* businessError(create(other.shopID), "invalidShopID")
        yield* businessError(create(m.shopID, { partyID: other.partyID }), "invalidPartyID")
        yield* businessError(create(m.shopID, { partyID: "no-such-party" }), "invalidPartyID")
        assert.strictEqual((yield* create(m.shopID, { partyID: m.partyID })).invoice.shopID, m.shopID)

        // party blocked by the operator, then suspended by the merchant
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "block" } })
        yield* businessError(create(m.shopID), "invalidPartyStatus")
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "unblock" } })
        yield* api.Parties.suspendMyParty()
        yield* businessError(create(m.shopID), "invalidPartyStatus")
        yield* api.Parties.activateMyParty()

        // shop blocked by the operator, then suspended by the merchant; the other shop works
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "block" } })
        yield* businessError(create(m.shopID), "invalidShopStatus")
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        assert.strictEqual((yield* create(second)).invoice.shopID, second)
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "unblock" } })
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        yield* businessError(create(m.shopID), "invalidShopStatus")
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        assert.strictEqual((yield* create(m.shopID)).invoice.status, "unpaid")
      }))

    it.effect("terms: a currency outside the contract or an amount outside the cash limits is invoiceTermsViolated", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const create = (overrides: Partial<Invoice.InvoiceParams>) =>
          Effect.flatMap(params(m.shopID, overrides), (payload) => api.Invoices.createInvoice({ payload }))
        yield* businessError(create({ currency: "GBP" }), "invoiceTermsViolated")
        yield* businessError(create({ currency: "JPY" }), "invoiceTermsViolated")
        // test realm limits: min 1 inclusive, max 1 000 000 000 exclusive
        yield* businessError(create({ amount: 1_000_000_000 }), "invoiceTermsViolated")
        yield* businessError(create({ amount: Number.MAX_SAFE_INTEGER }), "invoiceTermsViolated")
        assert.strictEqual((yield* create({ amount: 999_999_999 })).invoice.amount, 999_999_999)
        const cart = [{ product: "gold", quantity: 1000, price: 1_000_000 }]
        const { amount: _omit, ...noAmount } = yield* params(m.shopID, { cart })
        yield* businessError(api.Invoices.createInvoice({ payload: noAmount }), "invoiceTermsViolated")
        // a contract currency the shop does not take
        yield* businessError(create({ currency: "USD" }), "invalidRequest")
        // institution 2: USD and EUR shops
        const intl = yield* Fixtures.merchant({
          paymentInstitutionID: 2,
          shops: [
            { name: "US", url: "https://us.kassa.test", categoryID: 1, currency: "USD" },
            { name: "EU", url: "https://eu.kassa.test", categoryID: 1, currency: "EUR" }
          ]
        })
        const intlApi = yield* TestServer.client(intl.apiKey)
        const usd = yield* intlApi.Invoices.createInvoice({ payload: yield* params(intl.shopIDs[0]!, { currency: "USD" }) })
        assert.strictEqual(usd.invoice.currency, "USD")
        yield* businessError(
          intlApi.Invoices.createInvoice({ payload: yield* params(intl.shopIDs[0]!, { currency: "RUB" }) }),
          "invoiceTermsViolated"
        )
      }))

    it.effect("randomizeAmount: amountRandomized within the deviation, in steps, in the direction, under the conditions", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const create = (randomizeAmount: Invoice.InvoiceParams["randomizeAmount"], amount = 100_000) =>
          Effect.flatMap(
            params(m.shopID, randomizeAmount === undefined ? { amount } : { amount, randomizeAmount }),
            (payload) => Effect.map(api.Invoices.createInvoice({ payload }), (r) => r.invoice)
          )
        for (const direction of ["both", "upward", "downward"] as const) {
          for (let i = 0; i < 4; i++) {
            const invoice = yield* create({ deviation: 5000, precision: 2, direction })
            const r = invoice.amountRandomized!
            assert.isDefined(r)
            assert.strictEqual(r.original, 100_000)
            assert.strictEqual(invoice.amount, r.randomized)
            const delta = r.randomized - r.original
            assert.isAtMost(Math.abs(delta), 5000)
            assert.strictEqual(delta % 100, 0)
            if (direction === "upward") assert.isAtLeast(delta, 0)
            if (direction === "downward") assert.isAtMost(delta, 0)
            assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } }), invoice)
          }
        }
        // precision and direction have defaults (2, both)
        const defaults = yield* call(
          "POST",
          "/v2/processing/invoices",
          m.apiKey,
          yield* wireParams(m.shopID, { amount: 100_000, randomizeAmount: { deviation: 300 } })
        )
        assert.strictEqual(defaults.status, 201, defaults.text)
        const d = defaults.json.invoice.amountRandomized
        assert.strictEqual(d.original, 100_000)
        assert.isAtMost(Math.abs(d.randomized - 100_000), 300)
        assert.strictEqual((d.randomized - 100_000) % 100, 0)
        // conditions not met: no randomization
        for (
          const conditions of [
            { minAmountCondition: 100_001 },
            { maxAmountCondition: 99_999 },
            { amountMultiplicityCondition: 7 }
          ]
        ) {
          const invoice = yield* create({ deviation: 5000, precision: 2, direction: "both", ...conditions })
          assert.isUndefined(invoice.amountRandomized)
          assert.strictEqual(invoice.amount, 100_000)
        }
        const met = yield* create({
          deviation: 5000,
          precision: 2,
          direction: "upward",
          minAmountCondition: 100_000,
          maxAmountCondition: 100_000,
          amountMultiplicityCondition: 1000
        })
        assert.strictEqual(met.amountRandomized?.original, 100_000)
        // a bad randomizeAmount is invalidRequest naming the field
        invalidRequest(
          yield* call("POST", "/v2/processing/invoices", m.apiKey, yield* wireParams(m.shopID, { randomizeAmount: { deviation: -1 } })),
          "deviation"
        )
        invalidRequest(
          yield* call(
            "POST",
            "/v2/processing/invoices",
            m.apiKey,
            yield* wireParams(m.shopID, { randomizeAmount: { deviation: 1, precision: 6 } })
          ),
          "precision"
        )
      }))

    it.effect("allocation: computed amounts, and invalidAllocation for every broken rule", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant({
          shops: [
            { name: "Main", url: "https://main.kassa.test", categoryID: 1, currency: "RUB" },
            { name: "A", url: "https://a.kassa.test", categoryID: 1, currency: "RUB" },
            { name: "B", url: "https://b.kassa.test", categoryID: 1, currency: "RUB" },
            { name: "C", url: "https://c.kassa.test", categoryID: 1, currency: "RUB" }
          ]
        })
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const [main, a, b, c] = m.shopIDs as unknown as [string, string, string, string]
        const target = (shopID: string) => ({ allocationTargetType: "AllocationTargetShop" as const, shopID })
        const byAmount = (shopID: string, amount: number) => ({
          target: target(shopID),
          allocationBodyType: "AllocationBodyAmount" as const,
          amount,
          currency: "RUB"
        })
        const fixed = (shopID: string, total: number, fee: number) => ({
          target: target(shopID),
          allocationBodyType: "AllocationBodyTotal" as const,
          total,
          currency: "RUB",
          fee: { allocationFeeType: "AllocationFeeFixed" as const, amount: fee }
        })
        const share = (shopID: string, total: number, m: number, exp: number) => ({
          target: target(shopID),
          allocationBodyType: "AllocationBodyTotal" as const,
          total,
          currency: "RUB",
          fee: { allocationFeeType: "AllocationFeeShare" as const, share: { m, exp } }
        })
        const create = (allocation: Invoice.InvoiceParams["allocation"], amount = 10_000) =>
          Effect.flatMap(
            params(main, allocation === undefined ? { amount } : { amount, allocation }),
            (payload) => api.Invoices.createInvoice({ payload })
          )

        const { invoice } = yield* create([byAmount(a, 3000), fixed(b, 4000, 500), share(c, 2005, 15, -2)])
        assert.deepStrictEqual(invoice.allocation, [
          { target: target(a), allocationBodyType: "AllocationBodyAmount", amount: 3000, currency: "RUB" },
          {
            target: target(b),
            allocationBodyType: "AllocationBodyTotal",
            total: 4000,
            amount: 3500,
            currency: "RUB",
            fee: { allocationFeeType: "AllocationFeeFixed", target: target(main), amount: 500 }
          },
          {
            target: target(c),
            allocationBodyType: "AllocationBodyTotal",
            total: 2005,
            // 15% of 2005 = 300.75 → 301
            amount: 1704,
            currency: "RUB",
            fee: { allocationFeeType: "AllocationFeeShare", target: target(main), share: { m: 15, exp: -2 }, amount: 301 }
          }
        ])
        assert.deepStrictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).allocation, invoice.allocation)
        // the total may equal the amount
        assert.strictEqual((yield* create([byAmount(a, 6000), byAmount(b, 4000)])).invoice.allocation?.length, 2)

        yield* businessError(create([byAmount(a, 6000), byAmount(b, 4001)]), "invalidAllocation")
        yield* businessError(create([byAmount(a, 100), fixed(b, 9901, 1)]), "invalidAllocation")
        yield* businessError(create([byAmount(a, 100), byAmount(a, 200)]), "invalidAllocation")
        yield* businessError(create([byAmount(other.shopID, 100)]), "invalidAllocation")
        yield* businessError(create([byAmount("no-such-shop", 100)]), "invalidAllocation")
        yield* businessError(create([{ ...byAmount(a, 100), currency: "USD" }]), "invalidAllocation")
        yield* businessError(create([fixed(a, 100, 101)]), "invalidAllocation")
        yield* businessError(create([share(a, 100, 101, -2)]), "invalidAllocation")

        // a contract without allocation
        const intl = yield* Fixtures.merchant({
          paymentInstitutionID: 2,
          shops: [
            { name: "US", url: "https://us.kassa.test", categoryID: 1, currency: "USD" },
            { name: "US 2", url: "https://us2.kassa.test", categoryID: 1, currency: "USD" }
          ]
        })
        const intlApi = yield* TestServer.client(intl.apiKey)
        const payload = yield* params(intl.shopIDs[0]!, {
          currency: "USD",
          allocation: [{ ...byAmount(intl.shopIDs[1]!, 100), currency: "USD" }]
        })
        yield* businessError(intlApi.Invoices.createInvoice({ payload }), "allocationNotPermitted")
      }))

    it.effect("externalID: the same request answers the original with 201; different parameters 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const cart = [{ product: "tea", quantity: 2, price: 300 }, { product: "cup", quantity: 1, price: 400 }]
        const body = yield* wireParams(m.shopID, { externalID: "order-1", amount: 1000, cart, description: "first" })
        const first = yield* call("POST", "/v2/processing/invoices", m.apiKey, body)
        assert.strictEqual(first.status, 201, first.text)
        const id = first.json.invoice.id
        // same features (ignored fields differ, cart reordered): the original, 201, its description
        const again = yield* call("POST", "/v2/processing/invoices", m.apiKey, {
          ...body,
          cart: [...cart].reverse(),
          description: "second",
          metadata: { x: 1 },
          partyID: m.partyID
        })
        assert.strictEqual(again.status, 201, again.text)
        assert.deepStrictEqual(again.json.invoice, first.json.invoice)
        assert.isString(again.json.invoiceAccessToken.payload)
        // different features: 409 {externalID, id, message}
        for (
          const changed of [
            { amount: 2000, cart: [{ product: "tea", price: 2000 }] },
            { product: "Coffee" },
            { dueDate: new Date(Date.parse(String(body.dueDate)) + 1000).toISOString() },
            { shopID: m.shopIDs[1] },
            { bankAccount: { accountType: "InvoiceRussianBankAccount", account: "40702810000000000001", bankBik: "044525225" } }
          ]
        ) {
          const conflict = yield* call("POST", "/v2/processing/invoices", m.apiKey, { ...body, ...changed })
          assert.strictEqual(conflict.status, 409, `${JSON.stringify(changed)}: ${conflict.text}`)
          assert.deepStrictEqual(conflict.json, {
            externalID: "order-1",
            id,
            message: "This 'externalID' has been used by another request"
          })
        }
        const { cart: _cart, ...withoutCart } = body
        assert.strictEqual((yield* call("POST", "/v2/processing/invoices", m.apiKey, withoutCart)).status, 409)
        const typed = yield* Effect.flip(
          api.Invoices.createInvoice({ payload: yield* params(m.shopID, { externalID: "order-1", amount: 5 }) })
        )
        assert.strictEqual(typed._tag, "ExternalIdConflict")
        // the key is per party: another party's externalID is its own
        const theirs = yield* call(
          "POST",
          "/v2/processing/invoices",
          other.apiKey,
          yield* wireParams(other.shopID, { externalID: "order-1" })
        )
        assert.strictEqual(theirs.status, 201)
        assert.notStrictEqual(theirs.json.invoice.id, id)

        // lookups by externalID
        const byExternal = yield* api.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "order-1" } })
        assert.strictEqual(byExternal.id, id)
        assert.strictEqual(byExternal.externalID, "order-1")
        assert.deepStrictEqual(
          yield* api.Invoices.getInvoiceByExternalIDForParty({ path: { partyID: m.partyID }, urlParams: { externalID: "order-1" } }),
          byExternal
        )
        assert.strictEqual(
          yield* errorTag(api.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "no-such-id" } })),
          "NotFound"
        )
        assert.strictEqual(
          yield* errorTag(
            api.Invoices.getInvoiceByExternalIDForParty({ path: { partyID: other.partyID }, urlParams: { externalID: "order-1" } })
          ),
          "NotFound"
        )
        const otherApi = yield* TestServer.client(other.apiKey)
        assert.strictEqual(
          (yield* otherApi.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "order-1" } })).id,
          theirs.json.invoice.id
        )
      }))

    it.effect("externalID: the same cart with its JSON keys in another order is the same request", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        // JSON objects are unordered: a retry from another serializer must find the original
        const body = yield* wireParams(m.shopID, {
          externalID: "order-keys",
          amount: 700,
          cart: [{ product: "tea", quantity: 2, price: 300 }, { product: "cup", quantity: 1, price: 100 }]
        })
        const first = yield* call("POST", "/v2/processing/invoices", m.apiKey, body)
        assert.strictEqual(first.status, 201, first.text)
        const reordered = yield* call("POST", "/v2/processing/invoices", m.apiKey, {
          ...body,
          cart: [{ price: 300, quantity: 2, product: "tea" }, { quantity: 1, product: "cup", price: 100 }]
        })
        assert.strictEqual(reordered.status, 201, reordered.text)
        assert.strictEqual(reordered.json.invoice.id, first.json.invoice.id)
      }))

    it.effect("fifty concurrent identical creates make one invoice", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const payload = yield* params(m.shopID, { externalID: "race-1" })
        const answers = yield* Effect.all(
          Array.from({ length: 50 }, () => api.Invoices.createInvoice({ payload })),
          { concurrency: 50 }
        )
        const ids = new Set(answers.map((a) => a.invoice.id))
        assert.strictEqual(ids.size, 1)
        const [id] = [...ids]
        assert.strictEqual((yield* api.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "race-1" } })).id, id)
        // one invoice, one creation event
        const events = yield* api.Invoices.getInvoiceEvents({ path: { invoiceID: id! }, urlParams: { limit: 100 } })
        assert.strictEqual(events.length, 1)
        assert.strictEqual(events[0]!.changes[0]!.changeType, "InvoiceCreated")
      }))

    it.effect("rescind and fulfil follow the party's and the shop's status", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const { invoice } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const path = { invoiceID: invoice.id }
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        yield* businessError(api.Invoices.rescindInvoice({ path, payload: { reason: "x" } }), "invalidShopStatus")
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "block" } })
        yield* businessError(api.Invoices.rescindInvoice({ path, payload: { reason: "x" } }), "invalidPartyStatus")
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "unblock" } })
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).status, "unpaid")
        yield* api.Invoices.rescindInvoice({ path, payload: { reason: "x" } })
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).status, "cancelled")
      }))

    it.effect("getInvoiceEvents: InvoiceCreated then InvoiceStatusChanged, ids 1, 2, limit and eventID", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const path = { invoiceID: invoice.id }
        const created = yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })
        assert.strictEqual(created.length, 1)
        assert.strictEqual(created[0]!.id, 1)
        assert.deepStrictEqual(created[0]!.changes, [{ changeType: "InvoiceCreated", invoice }])
        yield* api.Invoices.rescindInvoice({ path, payload: { reason: "because" } })
        const all = yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })
        assert.deepStrictEqual(all.map((e) => e.id), [1, 2])
        assert.deepStrictEqual(all[1]!.changes, [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: "because" }])
        for (const e of all) assert.instanceOf(e.createdAt, Date)
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 1 } }), [all[0]])
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10, eventID: 1 } }), [all[1]])
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10, eventID: 2 } }), [])
        assert.strictEqual(yield* errorTag(api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10, eventID: 99 } })), "NotFound")
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 1, eventID: 1 } }), [all[1]])
        const events = (query: string, apiKey = m.apiKey) =>
          Effect.map(call("GET", `/v2/processing/invoices/${invoice.id}/events?${query}`, apiKey), (r) => [r.status, r.json.message])
        assert.deepStrictEqual(yield* events("limit=10&eventID=99"), [404, "Event not found: 99"])
        // another party's invoice is unknown, with or without an eventID
        const other = yield* Fixtures.merchant()
        assert.deepStrictEqual(yield* events("limit=10", other.apiKey), [404, `Invoice not found: ${invoice.id}`])
        assert.deepStrictEqual(yield* events("limit=10&eventID=1", other.apiKey), [404, `Invoice not found: ${invoice.id}`])
        assert.strictEqual(
          yield* errorTag(api.Invoices.getInvoiceEvents({ path: { invoiceID: "no-such-invoice" }, urlParams: { limit: 10 } })),
          "NotFound"
        )

        // the wire: limit is required and ≥ 1
        const base = `/v2/processing/invoices/${invoice.id}/events`
        invalidRequest(yield* call("GET", base, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=0`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=-1`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=many`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=10&eventID=x`, m.apiKey), "eventID")
        const wire = yield* call("GET", `${base}?limit=10`, m.apiKey)
        assert.strictEqual(wire.status, 200)
        assert.deepStrictEqual(wire.json.map((e: any) => Object.keys(e).sort()), [
          ["changes", "createdAt", "id"],
          ["changes", "createdAt", "id"]
        ])
        assert.deepStrictEqual(wire.json[1].changes, [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: "because" }])
        assert.match(wire.json[0].createdAt, /(Z|[+-]\d{2}:\d{2})$/)
        const unknown = yield* call("GET", `${base}?limit=10&eventID=99`, m.apiKey)
        assert.strictEqual(unknown.status, 404)
        assert.deepStrictEqual(Object.keys(unknown.json), ["message"])
      }))

    it.effect("getInvoicePaymentMethods answers the contract's payment methods", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const methods = yield* api.Invoices.getInvoicePaymentMethods({ path: { invoiceID: invoice.id } })
        assert.deepStrictEqual(methods.map((x) => x.method), ["BankCard", "PaymentTerminal", "DigitalWallet"])
        const card = methods[0]!
        assert.strictEqual(card.method, "BankCard")
        if (card.method === "BankCard") {
          assert.includeMembers([...card.paymentSystems], ["visa", "mastercard", "nspkmir"])
          assert.strictEqual(card.paymentSystems.length, 14)
          assert.deepStrictEqual(card.tokenProviders, ["applepay", "googlepay", "samsungpay"])
        }
        assert.deepStrictEqual(methods[1], { method: "PaymentTerminal", providers: ["euroset"] })
        assert.deepStrictEqual(methods[2], { method: "DigitalWallet", providers: ["qiwi"] })
        // institution 2 offers bank cards only
        const intl = yield* Fixtures.merchant({
          paymentInstitutionID: 2,
          shops: [{ name: "EU", url: "https://eu.kassa.test", categoryID: 1, currency: "EUR" }]
        })
        const intlApi = yield* TestServer.client(intl.apiKey)
        const eur = yield* intlApi.Invoices.createInvoice({ payload: yield* params(intl.shopID, { currency: "EUR" }) })
        const intlMethods = yield* intlApi.Invoices.getInvoicePaymentMethods({ path: { invoiceID: eur.invoice.id } })
        assert.deepStrictEqual(intlMethods.map((x) => x.method), ["BankCard"])
        const intlCard = intlMethods[0]!
        if (intlCard.method === "BankCard") {
          assert.notInclude([...intlCard.paymentSystems], "nspkmir")
          assert.deepStrictEqual(intlCard.tokenProviders, ["applepay", "googlepay"])
        }
        assert.strictEqual(
          yield* errorTag(api.Invoices.getInvoicePaymentMethods({ path: { invoiceID: eur.invoice.id } })),
          "NotFound"
        )
      }))

    it.effect("an invoice access token opens its invoice only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice, invoiceAccessToken } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const { invoice: sibling } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const token = yield* TestServer.client(invoiceAccessToken.payload)
        const path = { invoiceID: invoice.id }
        assert.deepStrictEqual(yield* token.Invoices.getInvoiceByID({ path }), invoice)
        assert.strictEqual((yield* token.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })).length, 1)
        assert.deepStrictEqual(
          yield* token.Invoices.getInvoicePaymentMethods({ path }),
          yield* api.Invoices.getInvoicePaymentMethods({ path })
        )
        // another invoice of the same party reads as not found
        const siblingPath = { invoiceID: sibling.id }
        assert.strictEqual(yield* errorTag(token.Invoices.getInvoiceByID({ path: siblingPath })), "NotFound")
        assert.strictEqual(
          yield* errorTag(token.Invoices.getInvoiceEvents({ path: siblingPath, urlParams: { limit: 10 } })),
          "NotFound"
        )
        assert.strictEqual(yield* errorTag(token.Invoices.getInvoicePaymentMethods({ path: siblingPath })), "NotFound")
        // party-level operations need the API key
        assert.strictEqual(yield* errorTag(token.Parties.getMyParty()), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.Invoices.createInvoice({ payload: yield* params(m.shopID) })), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.Invoices.createInvoiceAccessToken({ path })), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.Invoices.rescindInvoice({ path, payload: { reason: "x" } })), "Unauthorized")
        assert.strictEqual(
          yield* errorTag(token.Invoices.getInvoiceByExternalID({ urlParams: { externalID: "x" } })),
          "Unauthorized"
        )
        const wire = yield* call("GET", "/v2/processing/me", invoiceAccessToken.payload)
        assert.strictEqual(wire.status, 401)
        assert.strictEqual(wire.text, "")
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).status, "unpaid")
        // a bad token is 401
        assert.strictEqual(
          yield* errorTag((yield* TestServer.client(invoiceAccessToken.payload + "x")).Invoices.getInvoiceByID({ path })),
          "Unauthorized"
        )
      }))
  })

  // Time travel on a suite of its own, so that its clock jumps do not reach the tests above.
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Invoices over time [${dialect}]`, (it) => {
    it.effect("rescindInvoice: 204, cancelled with the reason; fulfil and rescind again are invalidInvoiceStatus", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID) })
        const path = { invoiceID: invoice.id }
        yield* businessError(api.Invoices.fulfillInvoice({ path, payload: { reason: "delivered" } }), "invalidInvoiceStatus")
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).status, "unpaid")
        // another party cannot see or touch it
        const otherApi = yield* TestServer.client(other.apiKey)
        assert.strictEqual(yield* errorTag(otherApi.Invoices.rescindInvoice({ path, payload: { reason: "x" } })), "NotFound")
        assert.strictEqual(yield* errorTag(otherApi.Invoices.getInvoiceByID({ path })), "NotFound")
        assert.strictEqual(
          yield* errorTag(api.Invoices.rescindInvoice({ path: { invoiceID: "no-such-invoice" }, payload: { reason: "x" } })),
          "NotFound"
        )

        const wire = yield* call("POST", `/v2/processing/invoices/${invoice.id}/rescind`, m.apiKey, { reason: "changed my mind" })
        assert.strictEqual(wire.status, 204)
        assert.strictEqual(wire.text, "")
        const cancelled = yield* api.Invoices.getInvoiceByID({ path })
        assert.deepStrictEqual(cancelled, { ...invoice, status: "cancelled", reason: "changed my mind" })
        yield* businessError(api.Invoices.rescindInvoice({ path, payload: { reason: "again" } }), "invalidInvoiceStatus")
        yield* businessError(api.Invoices.fulfillInvoice({ path, payload: { reason: "delivered" } }), "invalidInvoiceStatus")
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path }), cancelled)

        // a cancelled invoice stays cancelled with its own reason after its due date
        yield* TestClock.adjust(DAY + 1000)
        yield* Effect.flatMap(Scheduler, (s) => s.runDue)
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path }), cancelled)
        const events = yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })
        assert.deepStrictEqual(events.map((e) => e.changes), [
          [{ changeType: "InvoiceCreated", invoice }],
          [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: "changed my mind" }]
        ])
      }))

    it.effect("at its due date an unpaid invoice is cancelled as overdue by the durable timer", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const scheduler = yield* Scheduler
        const { invoice } = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID, { dueDate: yield* dueIn(HOUR) }) })
        const later = yield* api.Invoices.createInvoice({ payload: yield* params(m.shopID, { dueDate: yield* dueIn(3 * HOUR) }) })
        const path = { invoiceID: invoice.id }
        // not a moment before
        yield* TestClock.adjust(HOUR - 1000)
        yield* scheduler.runDue
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).status, "unpaid")
        // past it
        yield* TestClock.adjust(2000)
        let current = yield* api.Invoices.getInvoiceByID({ path })
        for (let i = 0; i < 100 && current.status === "unpaid"; i++) {
          yield* scheduler.runDue
          current = yield* api.Invoices.getInvoiceByID({ path })
          if (current.status === "unpaid") yield* sleepReal(20)
        }
        assert.deepStrictEqual(current, { ...invoice, status: "cancelled", reason: "overdue" })
        const events = yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })
        assert.deepStrictEqual(events.map((e) => e.id), [1, 2])
        assert.deepStrictEqual(events[1]!.changes, [{ changeType: "InvoiceStatusChanged", status: "cancelled", reason: "overdue" }])
        // the overdue invoice can no longer be rescinded; the other one is still open
        yield* businessError(api.Invoices.rescindInvoice({ path, payload: { reason: "x" } }), "invalidInvoiceStatus")
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: later.invoice.id } })).status, "unpaid")
        // running the timers again changes nothing
        yield* scheduler.runDue
        assert.deepStrictEqual(yield* api.Invoices.getInvoiceByID({ path }), current)
        assert.strictEqual((yield* api.Invoices.getInvoiceEvents({ path, urlParams: { limit: 10 } })).length, 2)
      }))

    it.effect("createInvoiceAccessToken issues a new token; tokens expire after 3 days", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { invoice, invoiceAccessToken } = yield* api.Invoices.createInvoice({
          payload: yield* params(m.shopID, { dueDate: yield* dueIn(30 * DAY) })
        })
        const path = { invoiceID: invoice.id }
        const wire = yield* call("POST", `/v2/processing/invoices/${invoice.id}/access-tokens`, m.apiKey)
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json), ["payload"])
        assert.notStrictEqual(wire.json.payload, invoiceAccessToken.payload)
        assert.strictEqual(
          yield* errorTag(api.Invoices.createInvoiceAccessToken({ path: { invoiceID: "no-such-invoice" } })),
          "NotFound"
        )
        const stranger = yield* TestServer.client((yield* Fixtures.merchant()).apiKey)
        assert.strictEqual(yield* errorTag(stranger.Invoices.createInvoiceAccessToken({ path })), "NotFound")
        const first = yield* TestServer.client(invoiceAccessToken.payload)
        yield* TestClock.adjust(DAY)
        const fresh = yield* api.Invoices.createInvoiceAccessToken({ path })
        const second = yield* TestServer.client(fresh.payload)
        assert.strictEqual((yield* second.Invoices.getInvoiceByID({ path })).id, invoice.id)
        // the first token: alive until 3 days, gone a second after
        yield* TestClock.adjust(2 * DAY - 1000)
        assert.strictEqual((yield* first.Invoices.getInvoiceByID({ path })).id, invoice.id)
        yield* TestClock.adjust(2000)
        assert.strictEqual(yield* errorTag(first.Invoices.getInvoiceByID({ path })), "Unauthorized")
        const expired = yield* call("GET", `/v2/processing/invoices/${invoice.id}`, invoiceAccessToken.payload)
        assert.strictEqual(expired.status, 401)
        // the newer token lives on, for its own 3 days
        assert.strictEqual((yield* second.Invoices.getInvoiceByID({ path })).id, invoice.id)
        yield* TestClock.adjust(DAY)
        assert.strictEqual(yield* errorTag(second.Invoices.getInvoiceByID({ path })), "Unauthorized")
        // the API key is not affected
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path })).id, invoice.id)
      }))
  })
}
