import { assert, layer } from "@effect/vitest"
import type { Customer } from "@kassa/core"
import { Challenges, Dialects, Fixtures, LedgerChecks, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fs from "node:fs"

/**
 * Customers and bindings over HTTP. A binding is verified by the acquirer in the background
 * after createBinding answers (and payments run the same way), so the suite runs on the real
 * clock (`excludeTestServices`: inside `layer`, `it.live` would not see the server) and polls
 * with short real sleeps, bounded. Tests that move money end with the ledger's invariants.
 */

type Client = Effect.Effect.Success<ReturnType<typeof TestServer.client>>

const VISA = "4242424242424242"
const MASTERCARD = "5555555555554444"
const MIR = "2200000000000004"
const THREE_DS = "4000000000003220"
const DECLINED = "4000000000000002"
const DAY = 86_400_000
const CUSTOMERS = "/v2/processing/customers"
const SPEC_CHANGES = [
  "CustomerBindingStarted",
  "CustomerBindingStatusChanged",
  "CustomerBindingInteractionRequested",
  "CustomerBindingInteractionCompleted"
]

/** The declining cards of TEST_CARDS.md, with the error path the table promises. */
const declinedCards: ReadonlyArray<{ readonly card: string; readonly path: ReadonlyArray<string> }> = [
  ...fs.readFileSync(new URL("../../adapters/TEST_CARDS.md", import.meta.url), "utf8")
    .matchAll(/^\| (\d{12,19}) \| \w+ \| Declined: `([^`]+)` \|$/gm)
].map((m) => ({ card: m[1]!, path: m[2]!.split(" > ") }))

// --- helpers -------------------------------------------------------------------------------

const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const call = TestServer.call

/** The error of an effect that must fail; a success fails the test, showing what came back. */
const failure = <A, E, R>(effect: Effect.Effect<A, E, R>, expected: string) =>
  Effect.flatMap(Effect.either(effect), (result) => {
    if (Either.isRight(result)) {
      return Effect.dieMessage(`expected ${expected}, but it succeeded with ${JSON.stringify(result.right)?.slice(0, 400)}`)
    }
    return Effect.succeed(result.left as any)
  })

/** Fails unless the effect fails with a BusinessError of `code`; answers its message. */
const businessError = <A, E, R>(effect: Effect.Effect<A, E, R>, code: string) =>
  Effect.gen(function*() {
    const error = yield* failure(effect, code)
    assert.strictEqual(error._tag, "BusinessError", `expected ${code}, got ${error._tag}: ${error.message}`)
    assert.strictEqual(error.code, code, error.message)
    return error.message as string
  })

const errorTag = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(failure(effect, "an error"), (e) => e._tag as string)

const invalidRequest = (response: TestServer.RawResponse, field: string) => {
  assert.strictEqual(response.status, 400, response.text)
  assert.strictEqual(response.json.code, "invalidRequest", response.text)
  assert.include(response.json.message, field, response.text)
}

const notFound = (response: TestServer.RawResponse, what: string) => {
  assert.strictEqual(response.status, 404, `${what}: ${response.text}`)
  assert.deepStrictEqual(Object.keys(response.json), ["message"], what)
}

/** Fails if a text shows a full card number. */
const noCardNumber = (text: string, where: string) => {
  for (const card of [VISA, MASTERCARD, MIR, THREE_DS, DECLINED, ...declinedCards.map((c) => c.card)]) {
    assert.notInclude(text, card, `${where} shows a card number`)
  }
}

const contactInfo = { email: "payer@kassa.test", phoneNumber: "+79161234567" }

const newCustomer = (api: Client, shopID: string, overrides: Partial<Customer.CustomerParams> = {}) =>
  api.Customers.createCustomer({ payload: { shopID, contactInfo, metadata: { crm: 42 }, ...overrides } })

const tokenize = (api: Client, cardNumber = VISA) =>
  api.Tokens.createPaymentResource({
    payload: {
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "device-1" }
    }
  })

const bind = (api: Client, customerID: string, cardNumber = VISA, externalID?: string) =>
  Effect.flatMap(tokenize(api, cardNumber), (r) =>
    api.Customers.createBinding({
      path: { customerID },
      payload: {
        paymentResource: { paymentToolToken: r.paymentToolToken, paymentSession: r.paymentSession },
        ...(externalID === undefined ? {} : { externalID })
      }
    }))

/** Polls (real time, bounded) until the binding is no longer pending. */
const settled = (api: Client, customerID: string, customerBindingID: string, ms = 10_000) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    let binding = yield* api.Customers.getBinding({ path: { customerID, customerBindingID } })
    while (binding.status === "pending" && Date.now() < until) {
      yield* sleepReal(20)
      binding = yield* api.Customers.getBinding({ path: { customerID, customerBindingID } })
    }
    assert.notStrictEqual(binding.status, "pending", `binding ${customerID}/${customerBindingID} is still pending`)
    return binding
  })

/** A customer with one succeeded VISA binding. */
const readyCustomer = (api: Client, shopID: string) =>
  Effect.gen(function*() {
    const { customer } = yield* newCustomer(api, shopID)
    const binding = yield* bind(api, customer.id)
    assert.strictEqual((yield* settled(api, customer.id, binding.id)).status, "succeeded")
    return { customer: yield* api.Customers.getCustomerById({ path: { customerID: customer.id } }), binding }
  })

/** The whole public history, checked: only the specification's change types, ids increasing. */
const history = (api: Client, customerID: string) =>
  Effect.gen(function*() {
    const events = yield* api.Customers.getCustomerEvents({ path: { customerID }, urlParams: { limit: 1000 } })
    for (const e of events) {
      assert.isAbove(e.changes.length, 0, `event ${e.id} has no changes`)
      for (const c of e.changes) assert.include(SPEC_CHANGES, c.changeType, `event ${e.id}`)
      assert.instanceOf(e.createdAt, Date)
    }
    for (let i = 1; i < events.length; i++) assert.isAbove(events[i]!.id, events[i - 1]!.id, "event ids increase")
    if (events.length > 0) assert.isAtLeast(events[0]!.id, 1)
    return events
  })

/** Polls the history until a change of `changeType` shows. */
const waitForChange = (api: Client, customerID: string, changeType: string) =>
  Effect.gen(function*() {
    const until = Date.now() + 10_000
    let list = yield* history(api, customerID)
    while (!list.some((e) => e.changes.some((c) => c.changeType === changeType)) && Date.now() < until) {
      yield* sleepReal(20)
      list = yield* history(api, customerID)
    }
    const change = list.flatMap((e) => e.changes).find((c) => c.changeType === changeType)
    assert.isDefined(change, `no ${changeType} on customer ${customerID}`)
    return change!
  })

const newInvoice = (api: Client, shopID: string, amount = 1000) =>
  Effect.map(
    api.Invoices.createInvoice({
      payload: { shopID, dueDate: new Date(Date.now() + DAY), amount, currency: "RUB", product: "Tea", metadata: {} }
    }),
    (r) => r.invoice
  )

const customerPayment = (api: Client, invoiceID: string, customerID: string, makeRecurrent = false) =>
  api.Payments.createPayment({
    path: { invoiceID },
    payload: { flow: { type: "PaymentFlowInstant" }, payer: { payerType: "CustomerPayer", customerID }, makeRecurrent }
  })

/** Polls (real time, bounded) until the payment is final. */
const finalPayment = (api: Client, invoiceID: string, paymentID: string) =>
  Effect.gen(function*() {
    const until = Date.now() + 10_000
    let payment = yield* api.Payments.getPaymentByID({ path: { invoiceID, paymentID } })
    while (!["captured", "cancelled", "failed", "refunded"].includes(payment.status) && Date.now() < until) {
      yield* sleepReal(20)
      payment = yield* api.Payments.getPaymentByID({ path: { invoiceID, paymentID } })
    }
    return payment
  })

const block = (m: Fixtures.Merchant, command: "block" | "unblock") =>
  Effect.flatMap(Fixtures.operatorToken, (token) =>
    Effect.flatMap(
      TestServer.client(token),
      (operator) => operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command } })
    ))

const shopActivity = (m: Fixtures.Merchant, command: "block" | "unblock" | "suspend" | "activate", shopID = m.shopID) =>
  Effect.flatMap(Fixtures.operatorToken, (token) =>
    Effect.flatMap(
      TestServer.client(token),
      (operator) => operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID, command } })
    ))

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Customers [${dialect}]`, (it) => {
    it.effect("createCustomer answers 201 {customer, customerAccessToken}: unready; getCustomerById reads it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer, customerAccessToken } = yield* newCustomer(api, m.shopID, {
          contactInfo: { ...contactInfo, firstName: "Ivan", country: "RUS" },
          metadata: { crm: 42, tags: ["vip"] }
        })
        assert.isString(customerAccessToken.payload)
        assert.isAbove(customerAccessToken.payload.length, 10)
        assert.deepStrictEqual(customer, {
          id: customer.id,
          shopID: m.shopID,
          partyID: m.partyID,
          contactInfo: { ...contactInfo, firstName: "Ivan", country: "RUS" },
          status: "unready",
          metadata: { crm: 42, tags: ["vip"] }
        })
        assert.isAtLeast(customer.id.length, 1)
        assert.isAtMost(customer.id.length, 40)
        assert.deepStrictEqual(yield* api.Customers.getCustomerById({ path: { customerID: customer.id } }), customer)
        // no binding, no public event yet
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path: { customerID: customer.id } }), [])
        assert.deepStrictEqual(yield* history(api, customer.id), [])

        // the wire; the caller's own partyID and an externalID are accepted
        const wire = yield* call("POST", CUSTOMERS, m.apiKey, {
          shopID: m.shopID,
          partyID: m.partyID,
          externalID: "e".repeat(40),
          contactInfo: {},
          metadata: {}
        })
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["customer", "customerAccessToken"])
        assert.deepStrictEqual(Object.keys(wire.json.customerAccessToken), ["payload"])
        assert.deepStrictEqual(
          Object.keys(wire.json.customer).sort(),
          ["contactInfo", "externalID", "id", "metadata", "partyID", "shopID", "status"]
        )
        assert.strictEqual(wire.json.customer.externalID, "e".repeat(40))
        assert.strictEqual(wire.json.customer.status, "unready")
        assert.notStrictEqual(wire.json.customer.id, customer.id)
        const read = yield* call("GET", `${CUSTOMERS}/${wire.json.customer.id}`, m.apiKey)
        assert.strictEqual(read.status, 200, read.text)
        assert.deepStrictEqual(read.json, wire.json.customer)
        // the second shop of the party takes customers too
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        assert.strictEqual((yield* newCustomer(api, second)).customer.shopID, second)
      }))

    it.effect("createCustomer: required fields and bounds are 400 invalidRequest naming the field", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const body = (overrides: Record<string, unknown> = {}) => ({ shopID: m.shopID, contactInfo, metadata: {}, ...overrides })
        const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
          [{ shopID: "" }, "shopID"],
          [{ shopID: "s".repeat(41) }, "shopID"],
          [{ externalID: "" }, "externalID"],
          [{ externalID: "e".repeat(41) }, "externalID"],
          [{ partyID: "" }, "partyID"],
          [{ partyID: "p".repeat(41) }, "partyID"],
          [{ contactInfo: "payer@kassa.test" }, "contactInfo"],
          [{ contactInfo: { email: "e".repeat(101) } }, "email"],
          [{ contactInfo: { country: "ru" } }, "country"],
          [{ metadata: "none" }, "metadata"]
        ]
        for (const [overrides, field] of cases) {
          invalidRequest(yield* call("POST", CUSTOMERS, m.apiKey, body(overrides)), field)
        }
        for (const field of ["shopID", "contactInfo", "metadata"]) {
          const b: Record<string, unknown> = body()
          delete b[field]
          invalidRequest(yield* call("POST", CUSTOMERS, m.apiKey, b), field)
        }
        // path identifiers are 1..40
        invalidRequest(yield* call("GET", `${CUSTOMERS}/${"c".repeat(41)}`, m.apiKey), "customerID")
        const { customer } = yield* newCustomer(yield* TestServer.client(m.apiKey), m.shopID)
        invalidRequest(yield* call("GET", `${CUSTOMERS}/${customer.id}/bindings/${"b".repeat(41)}`, m.apiKey), "customerBindingID")
        // nothing was created by the refused requests: the party has the one customer only
        const text = (yield* call("GET", `${CUSTOMERS}/${customer.id}`, m.apiKey)).text
        assert.include(text, customer.id)
      }))

    it.effect("createCustomer: invalidShopID, invalidPartyID, invalidPartyStatus, invalidShopStatus", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* businessError(newCustomer(api, "no-such-shop"), "invalidShopID")
        yield* businessError(newCustomer(api, other.shopID), "invalidShopID")
        yield* businessError(newCustomer(api, m.shopID, { partyID: other.partyID }), "invalidPartyID")
        // the party blocked by the operator
        yield* block(m, "block")
        yield* businessError(newCustomer(api, m.shopID), "invalidPartyStatus")
        yield* block(m, "unblock")
        // the party suspended by the merchant itself
        yield* api.Parties.suspendMyParty()
        yield* businessError(newCustomer(api, m.shopID), "invalidPartyStatus")
        yield* api.Parties.activateMyParty()
        // a blocked or suspended shop; the other shop is not affected
        yield* shopActivity(m, "block")
        yield* businessError(newCustomer(api, m.shopID), "invalidShopStatus")
        yield* shopActivity(m, "unblock")
        yield* shopActivity(m, "suspend")
        yield* businessError(newCustomer(api, m.shopID), "invalidShopStatus")
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        assert.strictEqual((yield* newCustomer(api, second)).customer.status, "unready")
        yield* shopActivity(m, "activate")
        assert.strictEqual((yield* newCustomer(api, m.shopID)).customer.shopID, m.shopID)
        // the wire form of a business error
        const wire = yield* call("POST", CUSTOMERS, m.apiKey, { shopID: "no-such-shop", contactInfo, metadata: {} })
        assert.strictEqual(wire.status, 400, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["code", "message"])
        assert.strictEqual(wire.json.code, "invalidShopID")
        // party-level operations need an API key
        const anonymous = yield* call("POST", CUSTOMERS, undefined, { shopID: m.shopID, contactInfo, metadata: {} })
        assert.strictEqual(anonymous.status, 401)
      }))

    it.effect("createCustomer is idempotent by externalID: the same request answers the same customer, another one 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const first = yield* newCustomer(api, m.shopID, { externalID: "crm-1" })
        assert.strictEqual(first.customer.externalID, "crm-1")
        // metadata is not part of the request's identity, nor is the order of the contact fields
        const again = yield* newCustomer(api, m.shopID, { externalID: "crm-1", metadata: { crm: 43 } })
        assert.deepStrictEqual(again.customer, first.customer)
        const reordered = yield* call("POST", CUSTOMERS, m.apiKey, {
          metadata: {},
          contactInfo: { phoneNumber: contactInfo.phoneNumber, email: contactInfo.email },
          externalID: "crm-1",
          shopID: m.shopID
        })
        assert.strictEqual(reordered.status, 201, reordered.text)
        assert.strictEqual(reordered.json.customer.id, first.customer.id)
        const token = yield* TestServer.client(again.customerAccessToken.payload)
        assert.strictEqual((yield* token.Customers.getCustomerById({ path: { customerID: first.customer.id } })).id, first.customer.id)
        // another shop or other contact info is another request
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        for (
          const overrides of [
            { shopID: second, contactInfo, metadata: {} },
            { shopID: m.shopID, contactInfo: { email: "other@kassa.test" }, metadata: {} }
          ]
        ) {
          const conflict = yield* call("POST", CUSTOMERS, m.apiKey, { ...overrides, externalID: "crm-1" })
          assert.strictEqual(conflict.status, 409, conflict.text)
          assert.deepStrictEqual(Object.keys(conflict.json).sort(), ["externalID", "id", "message"])
          assert.strictEqual(conflict.json.externalID, "crm-1")
          assert.strictEqual(conflict.json.id, first.customer.id)
        }
        assert.strictEqual(
          yield* errorTag(newCustomer(api, second, { externalID: "crm-1" })),
          "ExternalIdConflict"
        )
        // the key is the party's: another party may use the same externalID
        const other = yield* Fixtures.merchant()
        const otherApi = yield* TestServer.client(other.apiKey)
        const theirs = yield* newCustomer(otherApi, other.shopID, { externalID: "crm-1" })
        assert.notStrictEqual(theirs.customer.id, first.customer.id)
        // two requests at once with one externalID make one customer
        const [x, y] = yield* Effect.all(
          [newCustomer(api, m.shopID, { externalID: "crm-2" }), newCustomer(api, m.shopID, { externalID: "crm-2" })],
          { concurrency: 2 }
        )
        assert.deepStrictEqual(x.customer, y.customer)
        // without externalID, two requests are two customers
        const a = yield* newCustomer(api, m.shopID)
        const b = yield* newCustomer(api, m.shopID)
        assert.notStrictEqual(a.customer.id, b.customer.id)
      }))

    it.effect("a customer access token opens that customer only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer, customerAccessToken } = yield* newCustomer(api, m.shopID)
        const { customer: sibling } = yield* newCustomer(api, m.shopID)
        const token = yield* TestServer.client(customerAccessToken.payload)
        const path = { customerID: customer.id }
        assert.deepStrictEqual(yield* token.Customers.getCustomerById({ path }), customer)
        // the payer's side: tokenize a card and bind it, read bindings, events, methods
        const binding = yield* bind(token, customer.id)
        assert.strictEqual(binding.status, "pending")
        const done = yield* settled(token, customer.id, binding.id)
        assert.strictEqual(done.status, "succeeded")
        assert.deepStrictEqual(yield* token.Customers.getBindings({ path }), [done])
        assert.isAbove((yield* history(token, customer.id)).length, 0)
        assert.deepStrictEqual(
          yield* token.Customers.getCustomerPaymentMethods({ path }),
          yield* api.Customers.getCustomerPaymentMethods({ path })
        )
        assert.strictEqual((yield* token.Customers.getCustomerById({ path })).status, "ready")

        // another customer of the same party reads as not found
        const siblingPath = { customerID: sibling.id }
        const resource = yield* tokenize(token)
        const paymentResource = { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        for (
          const [name, effect] of [
            ["getCustomerById", token.Customers.getCustomerById({ path: siblingPath })],
            ["getBindings", token.Customers.getBindings({ path: siblingPath })],
            ["getBinding", token.Customers.getBinding({ path: { ...siblingPath, customerBindingID: binding.id } })],
            ["getCustomerEvents", token.Customers.getCustomerEvents({ path: siblingPath, urlParams: { limit: 10 } })],
            ["getCustomerPaymentMethods", token.Customers.getCustomerPaymentMethods({ path: siblingPath })],
            ["createBinding", token.Customers.createBinding({ path: siblingPath, payload: { paymentResource } })]
          ] as const
        ) {
          assert.strictEqual(yield* errorTag(effect as Effect.Effect<unknown, unknown>), "NotFound", name)
        }
        notFound(yield* call("GET", `${CUSTOMERS}/${sibling.id}`, customerAccessToken.payload), "sibling on the wire")
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path: siblingPath }), [])

        // party-level operations need the API key
        assert.strictEqual(yield* errorTag(token.Parties.getMyParty()), "Unauthorized")
        assert.strictEqual(
          yield* errorTag(token.Invoices.createInvoice({
            payload: { shopID: m.shopID, dueDate: new Date(Date.now() + DAY), amount: 1000, currency: "RUB", product: "Tea", metadata: {} }
          })),
          "Unauthorized"
        )
        assert.strictEqual(yield* errorTag(newCustomer(token, m.shopID)), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.Customers.deleteCustomer({ path })), "Unauthorized")
        assert.strictEqual(yield* errorTag(token.Customers.createCustomerAccessToken({ path })), "Unauthorized")
        const me = yield* call("GET", "/v2/processing/me", customerAccessToken.payload)
        assert.strictEqual(me.status, 401)
        assert.strictEqual(me.text, "")
        // an invoice is not this token's either
        const invoice = yield* newInvoice(api, m.shopID)
        assert.strictEqual(yield* errorTag(token.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })), "NotFound")
        // the customer is still there for the merchant; a broken token is 401
        assert.strictEqual((yield* api.Customers.getCustomerById({ path })).id, customer.id)
        const broken = yield* TestServer.client(customerAccessToken.payload + "x")
        assert.strictEqual(yield* errorTag(broken.Customers.getCustomerById({ path })), "Unauthorized")

        // createCustomerAccessToken issues another working token
        const wire = yield* call("POST", `${CUSTOMERS}/${customer.id}/access-tokens`, m.apiKey)
        assert.strictEqual(wire.status, 201, wire.text)
        assert.deepStrictEqual(Object.keys(wire.json), ["payload"])
        assert.notStrictEqual(wire.json.payload, customerAccessToken.payload)
        const fresh = yield* TestServer.client(wire.json.payload)
        assert.strictEqual((yield* fresh.Customers.getCustomerById({ path })).id, customer.id)
        assert.strictEqual(yield* errorTag(fresh.Customers.getCustomerById({ path: siblingPath })), "NotFound")

        // another party's API key does not see the customer
        const stranger = yield* TestServer.client((yield* Fixtures.merchant()).apiKey)
        assert.strictEqual(yield* errorTag(stranger.Customers.getCustomerById({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(stranger.Customers.getBindings({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(stranger.Customers.createCustomerAccessToken({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(stranger.Customers.deleteCustomer({ path })), "NotFound")
        assert.strictEqual(yield* errorTag(api.Customers.getCustomerById({ path: { customerID: "no-such-customer" } })), "NotFound")
      }))

    it.effect("a binding is pending, then succeeded; the customer becomes ready; the history tells it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const resource = yield* tokenize(api)
        const wire = yield* call("POST", `${CUSTOMERS}/${customer.id}/bindings`, m.apiKey, {
          paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        })
        assert.strictEqual(wire.status, 201, wire.text)
        noCardNumber(wire.text, "createBinding")
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["id", "paymentResource", "status"])
        assert.strictEqual(wire.json.status, "pending")
        assert.deepStrictEqual(wire.json.paymentResource, {
          paymentToolToken: resource.paymentToolToken,
          paymentSession: resource.paymentSession,
          paymentToolDetails: resource.paymentToolDetails,
          clientInfo: { fingerprint: "device-1" }
        })
        const details = wire.json.paymentResource.paymentToolDetails
        assert.strictEqual(details.detailsType, "PaymentToolDetailsBankCard")
        assert.strictEqual(details.paymentSystem, "visa")
        const id: string = wire.json.id

        const done = yield* settled(api, customer.id, id)
        assert.deepStrictEqual(done, { ...wire.json, status: "succeeded" })
        assert.isUndefined(done.error)
        assert.deepStrictEqual(yield* api.Customers.getCustomerById({ path: { customerID: customer.id } }), {
          ...customer,
          status: "ready"
        })
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path: { customerID: customer.id } }), [done])

        const events = yield* history(api, customer.id)
        assert.deepStrictEqual(events.map((e) => e.changes), [
          [{ changeType: "CustomerBindingStarted", customerBinding: { ...done, status: "pending" } }],
          [{ changeType: "CustomerBindingStatusChanged", customerBindingID: id, status: "succeeded" }]
        ])
        // unknown bindings and customers
        assert.strictEqual(
          yield* errorTag(api.Customers.getBinding({ path: { customerID: customer.id, customerBindingID: "no-such-binding" } })),
          "NotFound"
        )
        const { customer: other } = yield* newCustomer(api, m.shopID)
        assert.strictEqual(
          yield* errorTag(api.Customers.getBinding({ path: { customerID: other.id, customerBindingID: id } })),
          "NotFound"
        )
        assert.strictEqual(
          yield* errorTag(api.Customers.createBinding({
            path: { customerID: "no-such-customer" },
            payload: { paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession } }
          })),
          "NotFound"
        )
        // no card number anywhere on the wire
        for (
          const path of [
            `${CUSTOMERS}/${customer.id}`,
            `${CUSTOMERS}/${customer.id}/bindings`,
            `${CUSTOMERS}/${customer.id}/bindings/${id}`,
            `${CUSTOMERS}/${customer.id}/events?limit=100`
          ]
        ) {
          const read = yield* call("GET", path, m.apiKey)
          assert.strictEqual(read.status, 200, `${path}: ${read.text}`)
          noCardNumber(read.text, path)
        }
        // a second binding of the same customer: the customer stays ready, two bindings
        const second = yield* bind(api, customer.id, MASTERCARD)
        assert.strictEqual((yield* settled(api, customer.id, second.id)).status, "succeeded")
        const both = yield* api.Customers.getBindings({ path: { customerID: customer.id } })
        assert.sameMembers(both.map((b) => b.id), [id, second.id])
        assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "ready")
        assert.strictEqual((yield* history(api, customer.id)).length, 4)
      }))

    it.effect("getCustomerEvents: limit (required, ≥ 1) and eventID as for invoices", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const first = yield* bind(api, customer.id)
        yield* settled(api, customer.id, first.id)
        const second = yield* bind(api, customer.id, DECLINED)
        yield* settled(api, customer.id, second.id)
        const path = { customerID: customer.id }
        const all = yield* history(api, customer.id)
        assert.strictEqual(all.length, 4)
        assert.deepStrictEqual(all.map((e) => e.changes.map((c) => c.changeType)), [
          ["CustomerBindingStarted"],
          ["CustomerBindingStatusChanged"],
          ["CustomerBindingStarted"],
          ["CustomerBindingStatusChanged"]
        ])
        const ids = all.map((e) => e.id)
        assert.deepStrictEqual(yield* api.Customers.getCustomerEvents({ path, urlParams: { limit: 1 } }), [all[0]])
        assert.deepStrictEqual(yield* api.Customers.getCustomerEvents({ path, urlParams: { limit: 2 } }), all.slice(0, 2))
        assert.deepStrictEqual(yield* api.Customers.getCustomerEvents({ path, urlParams: { limit: 10, eventID: ids[0]! } }), all.slice(1))
        assert.deepStrictEqual(yield* api.Customers.getCustomerEvents({ path, urlParams: { limit: 1, eventID: ids[1]! } }), [all[2]])
        assert.deepStrictEqual(yield* api.Customers.getCustomerEvents({ path, urlParams: { limit: 10, eventID: ids[3]! } }), [])
        assert.strictEqual(
          yield* errorTag(api.Customers.getCustomerEvents({ path, urlParams: { limit: 10, eventID: ids[3]! + 1000 } })),
          "NotFound"
        )
        assert.strictEqual(
          yield* errorTag(api.Customers.getCustomerEvents({ path: { customerID: "no-such-customer" }, urlParams: { limit: 10 } })),
          "NotFound"
        )
        // paging with eventID walks the whole history
        const walked: Array<number> = []
        let cursor: number | undefined = undefined
        for (let i = 0; i < 10; i++) {
          const page: ReadonlyArray<{ readonly id: number }> = yield* api.Customers.getCustomerEvents({
            path,
            urlParams: cursor === undefined ? { limit: 1 } : { limit: 1, eventID: cursor }
          })
          if (page.length === 0) break
          walked.push(page[0]!.id)
          cursor = page[0]!.id
        }
        assert.deepStrictEqual(walked, ids)

        // the wire
        const base = `${CUSTOMERS}/${customer.id}/events`
        invalidRequest(yield* call("GET", base, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=0`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=-1`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=many`, m.apiKey), "limit")
        invalidRequest(yield* call("GET", `${base}?limit=10&eventID=x`, m.apiKey), "eventID")
        const wire = yield* call("GET", `${base}?limit=10`, m.apiKey)
        assert.strictEqual(wire.status, 200)
        for (const e of wire.json) {
          assert.deepStrictEqual(Object.keys(e).sort(), ["changes", "createdAt", "id"])
          assert.match(e.createdAt, /(Z|[+-]\d{2}:\d{2})$/)
          assert.isTrue(Number.isInteger(e.id))
        }
        assert.deepStrictEqual(wire.json[3].changes[0].error, (yield* api.Customers.getBinding({
          path: { customerID: customer.id, customerBindingID: second.id }
        })).error)
        notFound(yield* call("GET", `${base}?limit=10&eventID=${ids[3]! + 1000}`, m.apiKey), "unknown eventID")
        noCardNumber(wire.text, "events")
      }))

    it.effect("a declining card fails the binding with {code, message} from TEST_CARDS.md; the customer stays unready", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        assert.isAtLeast(declinedCards.length, 20)
        const { customer } = yield* newCustomer(api, m.shopID)
        const path = { customerID: customer.id }
        const failed = yield* bind(api, customer.id, DECLINED)
        const done = yield* settled(api, customer.id, failed.id)
        assert.strictEqual(done.status, "failed")
        assert.deepStrictEqual(Object.keys(done.error!).sort(), ["code", "message"])
        assert.strictEqual(done.error!.code, "authorization_failed")
        assert.isString(done.error!.message)
        assert.isAbove(done.error!.message.length, 0)
        noCardNumber(done.error!.message, "the error message")
        assert.strictEqual((yield* api.Customers.getCustomerById({ path })).status, "unready")
        const events = yield* history(api, customer.id)
        assert.deepStrictEqual(events.at(-1)!.changes, [
          { changeType: "CustomerBindingStatusChanged", customerBindingID: failed.id, status: "failed", error: done.error! }
        ])

        // every declining card of the table, each on a customer of its own that stays unready
        yield* Effect.forEach(declinedCards, ({ card, path: errorPath }) =>
          Effect.gen(function*() {
            const { customer: c } = yield* newCustomer(api, m.shopID)
            const b = yield* bind(api, c.id, card)
            const result = yield* settled(api, c.id, b.id)
            assert.strictEqual(result.status, "failed", card)
            assert.strictEqual(result.error?.code, errorPath[0], card)
            noCardNumber(result.error?.message ?? "", card)
            assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: c.id } })).status, "unready", card)
          }), { concurrency: 3, discard: true })

        // a good card afterwards makes the customer ready; the failed binding stays failed
        const good = yield* bind(api, customer.id)
        assert.strictEqual((yield* settled(api, customer.id, good.id)).status, "succeeded")
        assert.strictEqual((yield* api.Customers.getCustomerById({ path })).status, "ready")
        assert.deepStrictEqual(
          yield* api.Customers.getBinding({ path: { customerID: customer.id, customerBindingID: failed.id } }),
          done
        )
      }))

    it.effect("bindings created at once on one customer are all accepted and all settle; the history keeps them all", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const cards = [VISA, MASTERCARD, DECLINED, VISA, MIR]
        const resources = yield* Effect.forEach(cards, (card) => tokenize(api, card))
        const created = yield* Effect.forEach(resources, (r) =>
          call("POST", `${CUSTOMERS}/${customer.id}/bindings`, m.apiKey, {
            paymentResource: { paymentToolToken: r.paymentToolToken, paymentSession: r.paymentSession }
          }), { concurrency: "unbounded" })
        for (const r of created) assert.strictEqual(r.status, 201, r.text)
        const ids = created.map((r) => r.json.id as string)
        assert.strictEqual(new Set(ids).size, cards.length)
        const done = yield* Effect.forEach(ids, (id) => settled(api, customer.id, id))
        assert.deepStrictEqual(done.map((b) => b.status), ["succeeded", "succeeded", "failed", "succeeded", "succeeded"])
        assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "ready")
        const events = yield* history(api, customer.id)
        const changes = events.flatMap((e) => e.changes)
        assert.sameMembers(
          changes.filter((c) => c.changeType === "CustomerBindingStarted").map((c) => (c as any).customerBinding.id),
          ids
        )
        assert.sameMembers(
          changes.filter((c) => c.changeType === "CustomerBindingStatusChanged").map((c) => (c as any).customerBindingID),
          ids
        )
      }))

    it.effect("3-D Secure binding: an interaction is requested; passing the challenge makes it succeeded", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const binding = yield* bind(api, customer.id, THREE_DS)
        const requested = yield* waitForChange(api, customer.id, "CustomerBindingInteractionRequested")
        assert.strictEqual(requested.changeType, "CustomerBindingInteractionRequested")
        if (requested.changeType !== "CustomerBindingInteractionRequested") return
        assert.strictEqual(requested.customerBindingID, binding.id)
        const path = Challenges.challengePath(requested.userInteraction)
        // still pending while the payer is away
        assert.strictEqual(
          (yield* api.Customers.getBinding({ path: { customerID: customer.id, customerBindingID: binding.id } })).status,
          "pending"
        )
        assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "unready")
        const page = yield* TestServer.raw("GET", path)
        assert.strictEqual(page.status, 200, page.text)
        assert.include(page.headers["content-type"] ?? "", "text/html")
        assert.include(page.text, "outcome")
        noCardNumber(page.text, "the challenge page")

        const passed = yield* Challenges.answer(path, "pass")
        assert.strictEqual(passed.status, 200, passed.text)
        const done = yield* settled(api, customer.id, binding.id)
        assert.strictEqual(done.status, "succeeded")
        assert.isUndefined(done.error)
        assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "ready")
        const events = yield* history(api, customer.id)
        assert.deepStrictEqual(events.flatMap((e) => e.changes.map((c) => c.changeType)), [
          "CustomerBindingStarted",
          "CustomerBindingInteractionRequested",
          "CustomerBindingInteractionCompleted",
          "CustomerBindingStatusChanged"
        ])
        const completed = events.flatMap((e) => e.changes).find((c) => c.changeType === "CustomerBindingInteractionCompleted")!
        assert.strictEqual((completed as any).customerBindingID, binding.id)
        assert.deepStrictEqual(events.at(-1)!.changes, [
          { changeType: "CustomerBindingStatusChanged", customerBindingID: binding.id, status: "succeeded" }
        ])
        // the challenge is over: the page and a second answer are 404, the outcome stays
        assert.strictEqual((yield* TestServer.raw("GET", path)).status, 404)
        assert.strictEqual((yield* Challenges.answer(path, "fail")).status, 404)
        assert.strictEqual((yield* settled(api, customer.id, binding.id)).status, "succeeded")
        assert.strictEqual((yield* history(api, customer.id)).length, events.length)
        // the 3-D Secure binding charges like any other
        const invoice = yield* newInvoice(api, m.shopID)
        const payment = yield* customerPayment(api, invoice.id, customer.id)
        assert.strictEqual((yield* finalPayment(api, invoice.id, payment.id)).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("3-D Secure binding answered ten times at once: the first answer decides, the others change nothing", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const binding = yield* bind(api, customer.id, THREE_DS)
        const requested = yield* waitForChange(api, customer.id, "CustomerBindingInteractionRequested")
        const path = Challenges.challengePath(requested)
        const { passed } = yield* Challenges.answerTenAtOnce(path)
        const done = yield* settled(api, customer.id, binding.id)
        assert.strictEqual(done.status, passed ? "succeeded" : "failed")
        const changes = (yield* history(api, customer.id)).flatMap((e) => e.changes.map((c) => c.changeType))
        assert.deepStrictEqual(changes, [
          "CustomerBindingStarted",
          "CustomerBindingInteractionRequested",
          "CustomerBindingInteractionCompleted",
          "CustomerBindingStatusChanged"
        ])
      }))

    it.effect("3-D Secure binding: failing the challenge makes it failed; a bad answer is 400", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const binding = yield* bind(api, customer.id, THREE_DS)
        const requested = yield* waitForChange(api, customer.id, "CustomerBindingInteractionRequested")
        const path = Challenges.challengePath(requested)
        // a customer whose only binding waits for its challenge cannot pay yet
        const early = yield* newInvoice(api, m.shopID)
        yield* businessError(customerPayment(api, early.id, customer.id), "invalidRequest")
        const bad = yield* Challenges.answer(path, "maybe")
        assert.strictEqual(bad.status, 400, bad.text)
        assert.strictEqual(
          (yield* api.Customers.getBinding({ path: { customerID: customer.id, customerBindingID: binding.id } })).status,
          "pending"
        )
        assert.strictEqual((yield* TestServer.raw("GET", "/3ds/no-such-challenge")).status, 404)
        assert.strictEqual((yield* Challenges.answer("/3ds/no-such-challenge", "pass")).status, 404)

        const failed = yield* Challenges.answer(path, "fail")
        assert.strictEqual(failed.status, 200, failed.text)
        const done = yield* settled(api, customer.id, binding.id)
        assert.strictEqual(done.status, "failed")
        assert.strictEqual(done.error?.code, "preauthorization_failed")
        assert.isString(done.error?.message)
        assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "unready")
        const events = yield* history(api, customer.id)
        assert.deepStrictEqual(events.flatMap((e) => e.changes.map((c) => c.changeType)), [
          "CustomerBindingStarted",
          "CustomerBindingInteractionRequested",
          "CustomerBindingInteractionCompleted",
          "CustomerBindingStatusChanged"
        ])
        assert.deepStrictEqual(events.at(-1)!.changes, [
          { changeType: "CustomerBindingStatusChanged", customerBindingID: binding.id, status: "failed", error: done.error! }
        ])
        assert.strictEqual((yield* Challenges.answer(path, "pass")).status, 404)
        assert.strictEqual((yield* settled(api, customer.id, binding.id)).status, "failed")
        // a customer whose only binding failed cannot pay
        const invoice = yield* newInvoice(api, m.shopID)
        yield* businessError(customerPayment(api, invoice.id, customer.id), "invalidRequest")
      }))

    it.effect("createBinding errors: invalidPaymentResource, invalidPaymentToolToken, invalidPaymentSession, bounds", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const otherApi = yield* TestServer.client(other.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const path = { customerID: customer.id }
        const create = (paymentResource: { paymentToolToken?: string; paymentSession?: string }) =>
          api.Customers.createBinding({ path, payload: { paymentResource } })
        // a payment terminal is no card
        const terminal = yield* api.Tokens.createPaymentResource({
          payload: { paymentTool: { paymentToolType: "PaymentTerminalData", provider: "euroset" }, clientInfo: { fingerprint: "f" } }
        })
        yield* businessError(
          create({ paymentToolToken: terminal.paymentToolToken, paymentSession: terminal.paymentSession }),
          "invalidPaymentResource"
        )
        const wallet = yield* api.Tokens.createPaymentResource({
          payload: { paymentTool: { paymentToolType: "DigitalWalletData", id: "wallet-42", provider: "qiwi" }, clientInfo: { fingerprint: "f" } }
        })
        yield* businessError(
          create({ paymentToolToken: wallet.paymentToolToken, paymentSession: wallet.paymentSession }),
          "invalidPaymentResource"
        )
        // unknown, missing and another party's tokens
        const card = yield* tokenize(api)
        yield* businessError(create({ paymentToolToken: "pt.no-such-token", paymentSession: card.paymentSession }), "invalidPaymentToolToken")
        yield* businessError(create({ paymentSession: card.paymentSession }), "invalidPaymentToolToken")
        const theirs = yield* tokenize(otherApi)
        yield* businessError(
          create({ paymentToolToken: theirs.paymentToolToken, paymentSession: theirs.paymentSession }),
          "invalidPaymentToolToken"
        )
        // a session that is not the token's
        const another = yield* tokenize(api)
        yield* businessError(create({ paymentToolToken: card.paymentToolToken, paymentSession: another.paymentSession }), "invalidPaymentSession")
        yield* businessError(create({ paymentToolToken: card.paymentToolToken, paymentSession: "ps.wrong" }), "invalidPaymentSession")
        yield* businessError(create({ paymentToolToken: card.paymentToolToken }), "invalidPaymentSession")
        // nothing was bound by the refused requests
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path }), [])
        assert.deepStrictEqual(yield* history(api, customer.id), [])
        // bounds on the wire
        const post = (body: unknown) => call("POST", `${CUSTOMERS}/${customer.id}/bindings`, m.apiKey, body)
        const paymentResource = { paymentToolToken: card.paymentToolToken, paymentSession: card.paymentSession }
        invalidRequest(yield* post({}), "paymentResource")
        invalidRequest(yield* post({ paymentResource, externalID: "" }), "externalID")
        invalidRequest(yield* post({ paymentResource, externalID: "e".repeat(41) }), "externalID")
        invalidRequest(yield* post({ paymentResource: { ...paymentResource, paymentToolToken: "t".repeat(2001) } }), "paymentToolToken")
        invalidRequest(yield* post({ paymentResource: { ...paymentResource, paymentSession: "s".repeat(1001) } }), "paymentSession")
        const wire = yield* post({ paymentResource: { paymentToolToken: terminal.paymentToolToken, paymentSession: terminal.paymentSession } })
        assert.strictEqual(wire.status, 400)
        assert.deepStrictEqual(wire.json, { code: "invalidPaymentResource", message: wire.json.message })
        // the good resource still binds
        const ok = yield* post({ paymentResource, externalID: "e".repeat(40) })
        assert.strictEqual(ok.status, 201, ok.text)
        assert.strictEqual(ok.json.externalID, "e".repeat(40))
        yield* settled(api, customer.id, ok.json.id)
        // another party cannot bind to this customer, even with its own card
        assert.strictEqual(
          yield* errorTag(otherApi.Customers.createBinding({
            path,
            payload: { paymentResource: { paymentToolToken: theirs.paymentToolToken, paymentSession: theirs.paymentSession } }
          })),
          "NotFound"
        )
      }))

    it.effect("createBinding and deleteCustomer refuse a blocked party or shop: invalidPartyStatus, invalidShopStatus", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const path = { customerID: customer.id }
        const resource = yield* tokenize(api)
        const paymentResource = { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        yield* block(m, "block")
        yield* businessError(api.Customers.createBinding({ path, payload: { paymentResource } }), "invalidPartyStatus")
        yield* businessError(api.Customers.deleteCustomer({ path }), "invalidPartyStatus")
        yield* block(m, "unblock")
        yield* shopActivity(m, "block")
        yield* businessError(api.Customers.createBinding({ path, payload: { paymentResource } }), "invalidShopStatus")
        yield* businessError(api.Customers.deleteCustomer({ path }), "invalidShopStatus")
        yield* shopActivity(m, "unblock")
        yield* shopActivity(m, "suspend")
        yield* businessError(api.Customers.createBinding({ path, payload: { paymentResource } }), "invalidShopStatus")
        yield* shopActivity(m, "activate")
        // nothing happened meanwhile; now both work
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path }), [])
        const binding = yield* api.Customers.createBinding({ path, payload: { paymentResource } })
        assert.strictEqual((yield* settled(api, customer.id, binding.id)).status, "succeeded")
        yield* api.Customers.deleteCustomer({ path })
        assert.strictEqual(yield* errorTag(api.Customers.getCustomerById({ path })), "NotFound")
      }))

    it.effect("createBinding is idempotent by externalID: the same request answers the same binding, another one 409", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const path = { customerID: customer.id }
        const resource = yield* tokenize(api)
        const paymentResource = { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        const first = yield* api.Customers.createBinding({ path, payload: { externalID: "bind-1", paymentResource } })
        assert.strictEqual(first.externalID, "bind-1")
        const done = yield* settled(api, customer.id, first.id)
        const again = yield* api.Customers.createBinding({ path, payload: { externalID: "bind-1", paymentResource } })
        assert.strictEqual(again.id, first.id)
        assert.deepStrictEqual(again, done)
        assert.strictEqual((yield* api.Customers.getBindings({ path })).length, 1)
        assert.strictEqual(
          (yield* history(api, customer.id)).flatMap((e) => e.changes).filter((c) => c.changeType === "CustomerBindingStarted").length,
          1
        )
        // another payment resource under the same externalID is a conflict
        const other = yield* tokenize(api, MASTERCARD)
        const conflict = yield* call("POST", `${CUSTOMERS}/${customer.id}/bindings`, m.apiKey, {
          externalID: "bind-1",
          paymentResource: { paymentToolToken: other.paymentToolToken, paymentSession: other.paymentSession }
        })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.deepStrictEqual(Object.keys(conflict.json).sort(), ["externalID", "id", "message"])
        assert.strictEqual(conflict.json.externalID, "bind-1")
        assert.strictEqual(conflict.json.id, first.id)
        assert.strictEqual(
          yield* errorTag(api.Customers.createBinding({
            path,
            payload: { externalID: "bind-1", paymentResource: { paymentToolToken: other.paymentToolToken, paymentSession: other.paymentSession } }
          })),
          "ExternalIdConflict"
        )
        assert.strictEqual((yield* api.Customers.getBindings({ path })).length, 1)
        // two requests at once with one externalID make one binding
        const third = yield* tokenize(api)
        const same = { paymentToolToken: third.paymentToolToken, paymentSession: third.paymentSession }
        const [p, q] = yield* Effect.all(
          [
            api.Customers.createBinding({ path, payload: { externalID: "bind-2", paymentResource: same } }),
            api.Customers.createBinding({ path, payload: { externalID: "bind-2", paymentResource: same } })
          ],
          { concurrency: 2 }
        )
        assert.strictEqual(p.id, q.id)
        yield* settled(api, customer.id, p.id)
        assert.strictEqual((yield* api.Customers.getBindings({ path })).length, 2)
        // without externalID, the same resource binds twice
        const a = yield* api.Customers.createBinding({ path, payload: { paymentResource } })
        assert.notStrictEqual(a.id, first.id)
        yield* settled(api, customer.id, a.id)
        assert.strictEqual((yield* api.Customers.getBindings({ path })).length, 3)
      }))

    it.effect("a customer token's binding externalID is the customer's own: the merchant's binding with it is another", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer, customerAccessToken } = yield* newCustomer(api, m.shopID)
        const path = { customerID: customer.id }
        const holder = yield* TestServer.client(customerAccessToken.payload)
        const resource = yield* tokenize(holder)
        const paymentResource = { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        const first = yield* holder.Customers.createBinding({ path, payload: { externalID: "bind-1", paymentResource } })
        // the holder's retry answers its own binding
        assert.strictEqual((yield* holder.Customers.createBinding({ path, payload: { externalID: "bind-1", paymentResource } })).id, first.id)
        // the merchant's "bind-1" with another card is a binding of its own, not a conflict
        const card = yield* tokenize(api, MASTERCARD)
        const merchants = yield* call("POST", `${CUSTOMERS}/${customer.id}/bindings`, m.apiKey, {
          externalID: "bind-1",
          paymentResource: { paymentToolToken: card.paymentToolToken, paymentSession: card.paymentSession }
        })
        assert.strictEqual(merchants.status, 201, merchants.text)
        assert.notStrictEqual(merchants.json.id, first.id)
        for (const id of [first.id, merchants.json.id]) assert.strictEqual((yield* settled(api, customer.id, id)).status, "succeeded")
        assert.strictEqual((yield* api.Customers.getBindings({ path })).length, 2)
      }))

    it.effect("a card of a payment system the contract does not offer is not bound (as it would not be paid)", () =>
      Effect.gen(function*() {
        // institution 2 offers bank cards without nspkmir
        const intl = yield* Fixtures.merchant({
          paymentInstitutionID: 2,
          shops: [{ name: "EU", url: "https://eu.kassa.test", categoryID: 1, currency: "EUR" }]
        })
        const api = yield* TestServer.client(intl.apiKey)
        const { customer } = yield* newCustomer(api, intl.shopID)
        const path = { customerID: customer.id }
        const methods = yield* api.Customers.getCustomerPaymentMethods({ path })
        assert.deepStrictEqual(methods.map((x) => x.method), ["BankCard"])
        if (methods[0]!.method === "BankCard") assert.notInclude([...methods[0]!.paymentSystems], "nspkmir")
        // createPayment refuses a MIR card on this contract (with a code of its own operation)...
        const invoice = yield* api.Invoices.createInvoice({
          payload: { shopID: intl.shopID, dueDate: new Date(Date.now() + DAY), amount: 1000, currency: "EUR", product: "Tea", metadata: {} }
        })
        const mir = yield* tokenize(api, MIR)
        const refusal = yield* businessError(
          api.Payments.createPayment({
            path: { invoiceID: invoice.invoice.id },
            payload: {
              flow: { type: "PaymentFlowInstant" },
              payer: { payerType: "PaymentResourcePayer", paymentToolToken: mir.paymentToolToken, paymentSession: mir.paymentSession, contactInfo: {} },
              makeRecurrent: false
            }
          }),
          "invalidRequest"
        )
        assert.include(refusal, "Invalid payment method: BankCard (nspkmir)")
        // ...so binding it, to charge it later as a CustomerPayer, is refused too (invalidPaymentResource is createBinding's)
        const other = yield* tokenize(api, MIR)
        const bindingRefusal = yield* businessError(
          api.Customers.createBinding({
            path,
            payload: { paymentResource: { paymentToolToken: other.paymentToolToken, paymentSession: other.paymentSession } }
          }),
          "invalidPaymentResource"
        )
        assert.include(bindingRefusal, "Invalid payment method: BankCard (nspkmir)")
        assert.deepStrictEqual(yield* api.Customers.getBindings({ path }), [])
        // a VISA card binds on this contract
        const visa = yield* bind(api, customer.id)
        assert.strictEqual((yield* settled(api, customer.id, visa.id)).status, "succeeded")
      }))

    it.effect("getCustomerPaymentMethods lists BankCard with the contract's payment systems", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer } = yield* newCustomer(api, m.shopID)
        const methods = yield* api.Customers.getCustomerPaymentMethods({ path: { customerID: customer.id } })
        assert.deepStrictEqual(methods.map((x) => x.method), ["BankCard"])
        const card = methods[0]!
        if (card.method === "BankCard") {
          assert.includeMembers([...card.paymentSystems], ["visa", "mastercard", "nspkmir"])
          assert.isAbove(card.paymentSystems.length, 3)
        }
        // the same BankCard entry as an invoice of the shop offers
        const invoice = yield* newInvoice(api, m.shopID)
        const invoiceMethods = yield* api.Invoices.getInvoicePaymentMethods({ path: { invoiceID: invoice.id } })
        assert.deepStrictEqual(methods, invoiceMethods.filter((x) => x.method === "BankCard"))
        const wire = yield* call("GET", `${CUSTOMERS}/${customer.id}/payment-methods`, m.apiKey)
        assert.strictEqual(wire.status, 200, wire.text)
        assert.strictEqual(wire.json[0].method, "BankCard")
        assert.isArray(wire.json[0].paymentSystems)
        assert.strictEqual(
          yield* errorTag(api.Customers.getCustomerPaymentMethods({ path: { customerID: "no-such-customer" } })),
          "NotFound"
        )
      }))

    it.effect("deleteCustomer answers 204; afterwards the customer is 404 everywhere and cannot pay", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer: c, binding } = yield* readyCustomer(api, m.shopID)
        const { customer: neighbour, customerAccessToken } = yield* newCustomer(api, m.shopID)
        const token = (yield* api.Customers.createCustomerAccessToken({ path: { customerID: c.id } })).payload
        const wire = yield* call("DELETE", `${CUSTOMERS}/${c.id}`, m.apiKey)
        assert.strictEqual(wire.status, 204, wire.text)
        assert.strictEqual(wire.text, "")
        for (const [who, key] of [["API key", m.apiKey], ["customer token", token]] as const) {
          for (
            const path of [
              `${CUSTOMERS}/${c.id}`,
              `${CUSTOMERS}/${c.id}/bindings`,
              `${CUSTOMERS}/${c.id}/bindings/${binding.id}`,
              `${CUSTOMERS}/${c.id}/events?limit=10`,
              `${CUSTOMERS}/${c.id}/payment-methods`
            ]
          ) {
            notFound(yield* call("GET", path, key), `${who} GET ${path}`)
          }
        }
        const resource = yield* tokenize(api)
        notFound(
          yield* call("POST", `${CUSTOMERS}/${c.id}/bindings`, m.apiKey, {
            paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
          }),
          "createBinding"
        )
        notFound(yield* call("POST", `${CUSTOMERS}/${c.id}/access-tokens`, m.apiKey), "createCustomerAccessToken")
        notFound(yield* call("DELETE", `${CUSTOMERS}/${c.id}`, m.apiKey), "deleteCustomer again")
        notFound(yield* call("DELETE", `${CUSTOMERS}/no-such-customer`, m.apiKey), "deleteCustomer unknown")
        // it cannot pay
        const invoice = yield* newInvoice(api, m.shopID)
        yield* businessError(customerPayment(api, invoice.id, c.id), "invalidRequest")
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: invoice.id } }), [])
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).status, "unpaid")
        // another customer of the shop is untouched
        const neighbourToken = yield* TestServer.client(customerAccessToken.payload)
        assert.deepStrictEqual(yield* neighbourToken.Customers.getCustomerById({ path: { customerID: neighbour.id } }), neighbour)
        assert.strictEqual(yield* errorTag(api.Customers.getCustomerById({ path: { customerID: c.id } })), "NotFound")
      }))

    it.effect("CustomerPayer: a ready customer pays with its binding, without a CVV → captured", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer, binding } = yield* readyCustomer(api, m.shopID)
        assert.strictEqual(customer.status, "ready")
        // a later failed binding does not stand in the way of the succeeded one
        const failed = yield* bind(api, customer.id, DECLINED)
        assert.strictEqual((yield* settled(api, customer.id, failed.id)).status, "failed")
        const invoice = yield* newInvoice(api, m.shopID, 2500)
        const wire = yield* call("POST", `/v2/processing/invoices/${invoice.id}/payments`, m.apiKey, {
          flow: { type: "PaymentFlowInstant" },
          payer: { payerType: "CustomerPayer", customerID: customer.id }
        })
        assert.strictEqual(wire.status, 201, wire.text)
        noCardNumber(wire.text, "createPayment")
        assert.strictEqual(wire.json.status, "pending")
        assert.strictEqual(wire.json.payer.payerType, "CustomerPayer")
        assert.strictEqual(wire.json.payer.customerID, customer.id)
        assert.deepStrictEqual(wire.json.payer.paymentToolDetails, binding.paymentResource.paymentToolDetails)
        const payment = yield* finalPayment(api, invoice.id, wire.json.id)
        assert.strictEqual(payment.status, "captured", JSON.stringify(payment.error))
        assert.strictEqual(payment.amount, 2500)
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: invoice.id } })).status, "paid")
        // the customer pays again on another invoice
        const next = yield* newInvoice(api, m.shopID)
        const second = yield* customerPayment(api, next.id, customer.id)
        assert.strictEqual((yield* finalPayment(api, next.id, second.id)).status, "captured")
        // the customer's history carries binding changes only; no card number on the invoice's
        yield* history(api, customer.id)
        const invoiceEvents = yield* call("GET", `/v2/processing/invoices/${invoice.id}/events?limit=100`, m.apiKey)
        assert.strictEqual(invoiceEvents.status, 200)
        noCardNumber(invoiceEvents.text, "invoice events")
        yield* LedgerChecks.invariants
      }))

    it.effect("CustomerPayer: no succeeded binding, another shop's or party's customer, an unknown one → 400 invalidRequest", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const invoice = yield* newInvoice(api, m.shopID)
        // no binding at all
        const { customer: bare } = yield* newCustomer(api, m.shopID)
        yield* businessError(customerPayment(api, invoice.id, bare.id), "invalidRequest")
        // a failed binding only
        const { customer: declined } = yield* newCustomer(api, m.shopID)
        const failed = yield* bind(api, declined.id, DECLINED)
        assert.strictEqual((yield* settled(api, declined.id, failed.id)).status, "failed")
        yield* businessError(customerPayment(api, invoice.id, declined.id), "invalidRequest")
        // a ready customer of the party's other shop
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        const { customer: elsewhere } = yield* readyCustomer(api, second)
        yield* businessError(customerPayment(api, invoice.id, elsewhere.id), "invalidRequest")
        // a ready customer of another party
        const otherApi = yield* TestServer.client(other.apiKey)
        const { customer: theirs } = yield* readyCustomer(otherApi, other.shopID)
        yield* businessError(customerPayment(api, invoice.id, theirs.id), "invalidRequest")
        yield* businessError(customerPayment(api, invoice.id, "no-such-customer"), "invalidRequest")
        // on the wire
        const wire = yield* call("POST", `/v2/processing/invoices/${invoice.id}/payments`, m.apiKey, {
          flow: { type: "PaymentFlowInstant" },
          payer: { payerType: "CustomerPayer", customerID: bare.id }
        })
        assert.strictEqual(wire.status, 400, wire.text)
        assert.strictEqual(wire.json.code, "invalidRequest")
        // nothing started; the invoice still takes a good customer's payment
        assert.deepStrictEqual(yield* api.Payments.getPayments({ path: { invoiceID: invoice.id } }), [])
        const { customer: good } = yield* readyCustomer(api, m.shopID)
        const payment = yield* customerPayment(api, invoice.id, good.id)
        assert.strictEqual((yield* finalPayment(api, invoice.id, payment.id)).status, "captured")
        yield* LedgerChecks.invariants
      }))

    it.effect("makeRecurrent on a customer payment makes it a parent of a RecurrentPayer payment of the same shop", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const { customer, binding } = yield* readyCustomer(api, m.shopID)
        const parentInvoice = yield* newInvoice(api, m.shopID)
        const parent = yield* customerPayment(api, parentInvoice.id, customer.id, true)
        assert.isTrue(parent.makeRecurrent)
        const parentDone = yield* finalPayment(api, parentInvoice.id, parent.id)
        assert.strictEqual(parentDone.status, "captured", JSON.stringify(parentDone.error))

        const childInvoice = yield* newInvoice(api, m.shopID, 700)
        const recurrentParentPayment = { invoiceID: parentInvoice.id, paymentID: parent.id }
        const child = yield* api.Payments.createPayment({
          path: { invoiceID: childInvoice.id },
          payload: {
            flow: { type: "PaymentFlowInstant" },
            payer: { payerType: "RecurrentPayer", contactInfo: { email: "payer@kassa.test" }, recurrentParentPayment },
            makeRecurrent: false
          }
        })
        assert.strictEqual(child.payer.payerType, "RecurrentPayer")
        if (child.payer.payerType === "RecurrentPayer") {
          assert.deepStrictEqual(child.payer.recurrentParentPayment, recurrentParentPayment)
          assert.deepStrictEqual(child.payer.paymentToolDetails, binding.paymentResource.paymentToolDetails)
        }
        const childDone = yield* finalPayment(api, childInvoice.id, child.id)
        assert.strictEqual(childDone.status, "captured", JSON.stringify(childDone.error))
        assert.strictEqual(childDone.amount, 700)
        assert.strictEqual((yield* api.Invoices.getInvoiceByID({ path: { invoiceID: childInvoice.id } })).status, "paid")

        // a customer payment without makeRecurrent is no parent
        const plainInvoice = yield* newInvoice(api, m.shopID)
        const plain = yield* customerPayment(api, plainInvoice.id, customer.id)
        assert.strictEqual((yield* finalPayment(api, plainInvoice.id, plain.id)).status, "captured")
        const orphanInvoice = yield* newInvoice(api, m.shopID)
        yield* businessError(
          api.Payments.createPayment({
            path: { invoiceID: orphanInvoice.id },
            payload: {
              flow: { type: "PaymentFlowInstant" },
              payer: {
                payerType: "RecurrentPayer",
                contactInfo: {},
                recurrentParentPayment: { invoiceID: plainInvoice.id, paymentID: plain.id }
              },
              makeRecurrent: false
            }
          }),
          "invalidRecurrentParent"
        )
        // nor is it a parent for another shop's invoice
        const second = m.shopIDs.find((id) => id !== m.shopID)!
        const elsewhere = yield* newInvoice(api, second)
        yield* businessError(
          api.Payments.createPayment({
            path: { invoiceID: elsewhere.id },
            payload: {
              flow: { type: "PaymentFlowInstant" },
              payer: { payerType: "RecurrentPayer", contactInfo: {}, recurrentParentPayment },
              makeRecurrent: false
            }
          }),
          "invalidRecurrentParent"
        )
        yield* LedgerChecks.invariants
      }))
  })

  // An abandoned challenge, on a server of its own whose payers have half a second to answer.
  layer(TestServer.layer(dialect, { settings: { interactionTimeoutMs: 500 } }), { timeout: "60 seconds", excludeTestServices: true })(
    `Customers, abandoned 3-D Secure [${dialect}]`,
    (it) => {
      it.effect("a binding whose challenge is never answered fails with preauthorization_failed", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const api = yield* TestServer.client(m.apiKey)
          const { customer } = yield* newCustomer(api, m.shopID)
          const binding = yield* bind(api, customer.id, THREE_DS)
          const requested = yield* waitForChange(api, customer.id, "CustomerBindingInteractionRequested")
          const path = Challenges.challengePath(requested)
          const done = yield* settled(api, customer.id, binding.id)
          assert.strictEqual(done.status, "failed")
          assert.strictEqual(done.error?.code, "preauthorization_failed")
          assert.isString(done.error?.message)
          assert.strictEqual((yield* api.Customers.getCustomerById({ path: { customerID: customer.id } })).status, "unready")
          const events = yield* history(api, customer.id)
          assert.deepStrictEqual(events.at(-1)!.changes, [
            { changeType: "CustomerBindingStatusChanged", customerBindingID: binding.id, status: "failed", error: done.error! }
          ])
          // too late to answer
          assert.strictEqual((yield* TestServer.raw("GET", path)).status, 404)
          assert.strictEqual((yield* Challenges.answer(path, "pass")).status, 404)
          assert.strictEqual((yield* settled(api, customer.id, binding.id)).status, "failed")
        }))
    }
  )
}
