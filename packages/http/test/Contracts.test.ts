import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Contracts [${dialect}]`, (it) => {
    it.effect("the onboarding contract is listed and read, with the payment institution and contractor", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const list = yield* api.Contracts.getContracts()
        assert.deepStrictEqual(list.map((c) => c.id), [m.contractID])
        const contract = yield* api.Contracts.getContractByID({ path: { contractID: m.contractID } })
        assert.strictEqual(contract.status, "active")
        assert.strictEqual(contract.paymentInstitutionID, 1)
        assert.strictEqual(contract.contractor.contractorType, "RegisteredUser")
        const forParty = yield* api.Contracts.getContractByIDForParty({
          path: { partyID: m.partyID, contractID: m.contractID }
        })
        assert.strictEqual(forParty.id, m.contractID)
        assert.deepStrictEqual(yield* api.Contracts.getContractAdjustments({ path: { contractID: m.contractID } }), [])
        const missing = yield* Effect.flip(
          api.Contracts.getContractAdjustmentByID({ path: { contractID: m.contractID, adjustmentID: "a1" } })
        )
        assert.strictEqual(missing._tag, "NotFound")
      }))

    it.effect("the contract's terms are its payment institution's: the demo terms' currencies and categories, the fields the specification lists", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const headers = { authorization: `Bearer ${m.apiKey}`, "x-request-id": "terms" }
        const contract = yield* TestServer.raw("GET", `/v2/processing/contracts/${m.contractID}`, { headers })
        assert.strictEqual(contract.status, 200)
        // the specification's Contract has no terms (nor fees): only the institution it names
        assert.includeMembers(["id", "createdAt", "status", "validSince", "validUntil", "terminatedAt", "contractor", "legalAgreement", "paymentInstitutionID", "reportingPreferences"], Object.keys(contract.json))
        assert.strictEqual(contract.json.paymentInstitutionID, 1)
        const terms = yield* TestServer.raw("GET", `/v2/processing/payment-institutions/${contract.json.paymentInstitutionID}/terms/payments`, { headers })
        // PaymentTerms lists currencies and categories only: the demo fees (3.5 % per payment, 100 per refund) have no field
        assert.deepStrictEqual(terms.json, { currencies: ["RUB", "USD", "EUR", "KZT", "BYN"], categories: [1, 2, 3, 4, 5] })
      }))

    it.effect("another party's contracts are not found", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const api = yield* TestServer.client(a.apiKey)
        const byID = yield* Effect.flip(api.Contracts.getContractByID({ path: { contractID: b.contractID } }))
        assert.strictEqual(byID._tag, "NotFound")
        const forParty = yield* Effect.flip(api.Contracts.getContractsForParty({ path: { partyID: b.partyID } }))
        assert.strictEqual(forParty._tag, "NotFound")
        const wire = yield* TestServer.raw("GET", `/v1/processing/contracts/${b.contractID}`, {
          headers: { authorization: `Bearer ${a.apiKey}`, "x-request-id": "c1" }
        })
        assert.strictEqual(wire.status, 404)
        assert.deepStrictEqual(Object.keys(wire.json), ["message"])
      }))
  })
}
