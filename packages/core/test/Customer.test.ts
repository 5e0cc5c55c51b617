import { assert, describe, it } from "@effect/vitest"
import { Customer } from "@kassa/core"
import { Arbitrary, FastCheck, Schema } from "effect"
import * as Either from "effect/Either"

/**
 * The customer's schemas and projections, without a database: the bounds of the create
 * parameters, the public shapes of a customer and a binding, and the change types of the
 * customer's history.
 */

const decodeCustomerParams = Schema.decodeUnknownEither(Customer.CustomerParams)
const decodeBindingParams = Schema.decodeUnknownEither(Customer.BindingParams)

const customerParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  shopID: "shop-1",
  contactInfo: { email: "payer@kassa.test" },
  metadata: {},
  ...overrides
})

const bindingParams = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  paymentResource: { paymentToolToken: "pt.1", paymentSession: "ps.1" },
  ...overrides
})

const without = (o: Record<string, unknown>, key: string) => {
  const copy = { ...o }
  delete copy[key]
  return copy
}

const s = (n: number, c = "x") => c.repeat(n)

const cardDetails = {
  detailsType: "PaymentToolDetailsBankCard",
  cardNumberMask: "424242******4242",
  first6: "424242",
  last4: "4242",
  bin: "424242",
  lastDigits: "4242",
  paymentSystem: "visa"
} as const

const customerRecord = (overrides: Partial<Customer.CustomerRecord> = {}): Customer.CustomerRecord => ({
  id: "c1",
  shopID: "shop-1",
  partyID: "party-1",
  contactInfo: { email: "payer@kassa.test", phoneNumber: "+79161234567" },
  status: "unready",
  metadata: { order: 7, tags: ["a"] },
  createdAt: new Date("2030-01-01T00:00:00Z"),
  deletedAt: undefined,
  version: 3,
  ...overrides
})

const bindingRecord = (overrides: Partial<Customer.BindingRecord> = {}): Customer.BindingRecord => ({
  id: "b1",
  paymentResource: {
    paymentToolToken: "pt.1",
    paymentSession: "ps.1",
    paymentToolDetails: cardDetails,
    clientInfo: { fingerprint: "device-1" }
  },
  status: "pending",
  customerID: "c1",
  partyID: "party-1",
  createdAt: new Date("2030-01-01T00:00:00Z"),
  tool: { type: "BankCard", vaultToken: "vault-secret", paymentSystem: "visa", expMonth: 12, expYear: 2040 },
  vaultSession: "vault-session-secret",
  recurrentToken: "rt-secret",
  interactionID: "interaction-secret",
  version: 2,
  ...overrides
})

describe("CustomerParams", () => {
  it("accepts the minimal customer and keeps every field it is given", () => {
    const minimal = decodeCustomerParams(customerParams())
    assert.deepStrictEqual(Either.getOrThrow(minimal), { shopID: "shop-1", contactInfo: { email: "payer@kassa.test" }, metadata: {} })
    const full = {
      externalID: "ext-1",
      shopID: "shop-1",
      partyID: "party-1",
      contactInfo: {
        email: "payer@kassa.test",
        phoneNumber: "+79161234567",
        firstName: "Ivan",
        lastName: "Petrov",
        country: "RUS",
        state: "Moscow",
        city: "Moscow",
        address: "Tverskaya 1",
        postalCode: "125009",
        dateOfBirth: "1990-01-01",
        documentId: "4510 123456"
      },
      metadata: { order: 7, nested: { a: [1, 2] } }
    }
    assert.deepStrictEqual(Either.getOrThrow(decodeCustomerParams(full)), full)
    // an empty contact info is an object all the same
    assert.isTrue(Either.isRight(decodeCustomerParams(customerParams({ contactInfo: {} }))))
  })

  it("shopID, contactInfo and metadata are required", () => {
    for (const field of ["shopID", "contactInfo", "metadata"]) {
      const decoded = decodeCustomerParams(without(customerParams(), field))
      assert.isTrue(Either.isLeft(decoded), `${field} may not be left out`)
    }
  })

  it("identifiers are 1..40 characters", () => {
    for (const field of ["shopID", "externalID", "partyID"]) {
      assert.isTrue(Either.isRight(decodeCustomerParams(customerParams({ [field]: s(1) }))), `${field} of 1`)
      assert.isTrue(Either.isRight(decodeCustomerParams(customerParams({ [field]: s(40) }))), `${field} of 40`)
      assert.isTrue(Either.isLeft(decodeCustomerParams(customerParams({ [field]: "" }))), `${field} empty`)
      assert.isTrue(Either.isLeft(decodeCustomerParams(customerParams({ [field]: s(41) }))), `${field} of 41`)
      assert.isTrue(Either.isLeft(decodeCustomerParams(customerParams({ [field]: 42 }))), `${field} a number`)
    }
  })

  it("contact info fields keep their bounds; metadata is an object", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, boolean]> = [
      [{ email: `${s(89)}@kassa.test` }, true],
      [{ email: `${s(90)}@kassa.test` }, false],
      [{ email: "nope" }, false],
      [{ phoneNumber: s(20, "1") }, true],
      [{ phoneNumber: s(21, "1") }, false],
      [{ firstName: s(101) }, false],
      [{ lastName: s(101) }, false],
      [{ country: "RUS" }, true],
      [{ country: "rus" }, false],
      [{ country: "RU" }, false],
      [{ city: s(41) }, false],
      [{ state: s(41) }, false],
      [{ postalCode: s(41) }, false],
      [{ address: s(1000) }, true],
      [{ address: s(1001) }, false],
      [{ documentId: s(101) }, false],
      [{ email: 7 }, false]
    ]
    for (const [contactInfo, ok] of cases) {
      const decoded = decodeCustomerParams(customerParams({ contactInfo }))
      assert.strictEqual(Either.isRight(decoded), ok, JSON.stringify(contactInfo).slice(0, 60))
    }
    for (const metadata of ["none", 7, null, ["a"]]) {
      assert.isTrue(Either.isLeft(decodeCustomerParams(customerParams({ metadata }))), `metadata ${JSON.stringify(metadata)}`)
    }
    assert.isTrue(Either.isLeft(decodeCustomerParams(customerParams({ contactInfo: "payer@kassa.test" }))))
  })

  it("a customer's status is ready or unready only", () => {
    const customer = Customer.toCustomer(customerRecord())
    const decode = Schema.decodeUnknownEither(Customer.Customer)
    assert.isTrue(Either.isRight(decode({ ...customer, status: "ready" })))
    assert.isTrue(Either.isRight(decode({ ...customer, status: "unready" })))
    for (const status of ["pending", "deleted", "READY", ""]) {
      assert.isTrue(Either.isLeft(decode({ ...customer, status })), status)
    }
  })
})

describe("BindingParams", () => {
  it("accepts a payment resource, with or without externalID", () => {
    assert.deepStrictEqual(Either.getOrThrow(decodeBindingParams(bindingParams())), bindingParams())
    assert.deepStrictEqual(
      Either.getOrThrow(decodeBindingParams(bindingParams({ externalID: "e" }))),
      bindingParams({ externalID: "e" })
    )
  })

  it("paymentResource is required; externalID is 1..40; token ≤ 2000 and session ≤ 1000", () => {
    assert.isTrue(Either.isLeft(decodeBindingParams({})))
    assert.isTrue(Either.isLeft(decodeBindingParams({ externalID: "e" })))
    assert.isTrue(Either.isLeft(decodeBindingParams({ paymentResource: "pt.1" })))
    assert.isTrue(Either.isRight(decodeBindingParams(bindingParams({ externalID: s(40) }))))
    assert.isTrue(Either.isLeft(decodeBindingParams(bindingParams({ externalID: "" }))))
    assert.isTrue(Either.isLeft(decodeBindingParams(bindingParams({ externalID: s(41) }))))
    const resource = (r: Record<string, unknown>) => decodeBindingParams({ paymentResource: r })
    assert.isTrue(Either.isRight(resource({ paymentToolToken: s(2000), paymentSession: s(1000) })))
    assert.isTrue(Either.isLeft(resource({ paymentToolToken: s(2001), paymentSession: "ps" })))
    assert.isTrue(Either.isLeft(resource({ paymentToolToken: "pt", paymentSession: s(1001) })))
    assert.isTrue(Either.isLeft(resource({ paymentToolToken: 1, paymentSession: "ps" })))
    // missing token or session decode: the service answers invalidPaymentToolToken / invalidPaymentSession
    assert.isTrue(Either.isRight(resource({})))
  })

  it("a binding's status is pending, succeeded or failed only; an error is {code, message}", () => {
    const binding = Customer.toBinding(bindingRecord())
    const decode = Schema.decodeUnknownEither(Customer.Binding)
    for (const status of ["pending", "succeeded", "failed"]) assert.isTrue(Either.isRight(decode({ ...binding, status })))
    for (const status of ["ready", "cancelled", ""]) assert.isTrue(Either.isLeft(decode({ ...binding, status })), status)
    assert.isTrue(Either.isRight(decode({ ...binding, status: "failed", error: { code: "authorization_failed", message: "m" } })))
    assert.isTrue(Either.isLeft(decode({ ...binding, status: "failed", error: { code: "authorization_failed" } })))
    assert.isTrue(Either.isLeft(decode({ ...binding, status: "failed", error: { code: { code: "x" }, message: "m" } })))
  })
})

describe("toCustomer", () => {
  it("shows id, shopID, partyID, contactInfo, status and metadata; never the stored bookkeeping", () => {
    const record = customerRecord()
    const customer = Customer.toCustomer(record)
    assert.deepStrictEqual(customer, {
      id: "c1",
      shopID: "shop-1",
      partyID: "party-1",
      contactInfo: { email: "payer@kassa.test", phoneNumber: "+79161234567" },
      status: "unready",
      metadata: { order: 7, tags: ["a"] }
    })
    assert.notProperty(customer, "externalID")
    for (const hidden of ["createdAt", "deletedAt", "version"]) assert.notProperty(customer, hidden)
    const withExternal = Customer.toCustomer(customerRecord({ externalID: "ext-1", status: "ready" }))
    assert.strictEqual(withExternal.externalID, "ext-1")
    assert.strictEqual(withExternal.status, "ready")
    assert.deepStrictEqual(
      Object.keys(withExternal).sort(),
      ["contactInfo", "externalID", "id", "metadata", "partyID", "shopID", "status"]
    )
  })

  it("its answer is a valid Customer and survives JSON", () => {
    const customer = Customer.toCustomer(customerRecord({ externalID: "ext-1" }))
    const encoded = Schema.encodeSync(Customer.Customer)(customer)
    const decoded = Schema.decodeUnknownSync(Customer.Customer)(JSON.parse(JSON.stringify(encoded)))
    assert.deepStrictEqual(decoded, customer)
  })
})

describe("toBinding", () => {
  it("shows id, paymentResource and status; never the tool, vault, recurrent token or interaction", () => {
    const binding = Customer.toBinding(bindingRecord())
    assert.deepStrictEqual(binding, {
      id: "b1",
      paymentResource: {
        paymentToolToken: "pt.1",
        paymentSession: "ps.1",
        paymentToolDetails: cardDetails,
        clientInfo: { fingerprint: "device-1" }
      },
      status: "pending"
    })
    assert.deepStrictEqual(Object.keys(binding).sort(), ["id", "paymentResource", "status"])
    const text = JSON.stringify(binding)
    for (const secret of ["vault-secret", "vault-session-secret", "rt-secret", "interaction-secret", "party-1", "c1"]) {
      assert.notInclude(text, `"${secret}"`, secret)
    }
  })

  it("adds externalID and error when the binding has them", () => {
    const failed = Customer.toBinding(bindingRecord({
      externalID: "ext-b",
      status: "failed",
      error: { code: "authorization_failed", message: "Declined by the test acquirer" }
    }))
    assert.strictEqual(failed.externalID, "ext-b")
    assert.deepStrictEqual(failed.error, { code: "authorization_failed", message: "Declined by the test acquirer" })
    assert.deepStrictEqual(Object.keys(failed).sort(), ["error", "externalID", "id", "paymentResource", "status"])
    const succeeded = Customer.toBinding(bindingRecord({ status: "succeeded" }))
    assert.notProperty(succeeded, "error")
    assert.notProperty(succeeded, "externalID")
  })

  it("its answer is a valid Binding and survives JSON", () => {
    const binding = Customer.toBinding(bindingRecord({ externalID: "x", status: "failed", error: { code: "timeout", message: "m" } }))
    const encoded = Schema.encodeSync(Customer.Binding)(binding)
    assert.deepStrictEqual(Schema.decodeUnknownSync(Customer.Binding)(JSON.parse(JSON.stringify(encoded))), binding)
  })
})

describe("CustomerChange", () => {
  const encode = Schema.encodeSync(Customer.CustomerChange)
  const decode = Schema.decodeUnknownSync(Customer.CustomerChange)
  const isChange = Schema.is(Customer.CustomerChange)

  it("every change encodes and decodes back to itself, also through JSON (property)", () => {
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Customer.CustomerChange), (change) => {
        const encoded = encode(change)
        assert.deepStrictEqual(decode(encoded), change)
        // on the wire (JSON drops keys whose value is undefined) decode ∘ encode is the identity too
        const wire = JSON.parse(JSON.stringify(encoded))
        assert.deepStrictEqual(JSON.parse(JSON.stringify(encode(decode(wire)))), wire)
        assert.include(
          [
            "CustomerBindingStarted",
            "CustomerBindingStatusChanged",
            "CustomerBindingInteractionRequested",
            "CustomerBindingInteractionCompleted"
          ],
          encoded.changeType
        )
      }),
      { numRuns: 100 }
    )
  })

  it("the change types are exactly the specification's four", () => {
    const binding = Customer.toBinding(bindingRecord())
    const interaction = {
      interactionType: "Redirect",
      request: { requestType: "BrowserGetRequest", uriTemplate: "https://kassa.test/3ds/1" }
    } as const
    const changes: ReadonlyArray<Customer.CustomerChange> = [
      { changeType: "CustomerBindingStarted", customerBinding: binding },
      { changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "succeeded" },
      {
        changeType: "CustomerBindingStatusChanged",
        customerBindingID: "b1",
        status: "failed",
        error: { code: "authorization_failed", message: "m" }
      },
      { changeType: "CustomerBindingInteractionRequested", customerBindingID: "b1", userInteraction: interaction },
      { changeType: "CustomerBindingInteractionCompleted", customerBindingID: "b1", userInteraction: interaction },
      { changeType: "CustomerBindingInteractionCompleted", customerBindingID: "b1" }
    ]
    for (const change of changes) {
      assert.isTrue(isChange(change), change.changeType)
      assert.deepStrictEqual(decode(JSON.parse(JSON.stringify(encode(change)))), change)
    }
    // the lifecycle changes kept for notifications are not part of the history's schema
    for (const changeType of ["CustomerCreated", "CustomerDeleted", "CustomerReady"]) {
      assert.isFalse(isChange({ changeType }), changeType)
      assert.isTrue(Schema.is(Customer.LifecycleChange)({ changeType }), changeType)
    }
    for (const bad of [
      { changeType: "PaymentStarted" },
      { changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "ready" },
      { changeType: "CustomerBindingStarted" },
      { changeType: "CustomerBindingInteractionRequested", customerBindingID: "b1" }
    ]) {
      assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Customer.CustomerChange)(bad)), JSON.stringify(bad))
    }
  })

  it("a CustomerEvent carries an int id, a date-time createdAt and the changes", () => {
    const wire: typeof Customer.CustomerEvent.Encoded = {
      id: 3,
      createdAt: "2030-01-01T00:00:00.000Z",
      changes: [{ changeType: "CustomerBindingStatusChanged", customerBindingID: "b1", status: "succeeded" }]
    }
    const event = Schema.decodeUnknownSync(Customer.CustomerEvent)(wire)
    assert.strictEqual(event.createdAt.getTime(), Date.parse(wire.createdAt))
    assert.deepStrictEqual(Schema.encodeSync(Customer.CustomerEvent)(event), wire)
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Customer.CustomerEvent)({ ...wire, id: 1.5 })))
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Customer.CustomerEvent)({ ...wire, changes: [{ changeType: "CustomerReady" }] })))
  })
})
