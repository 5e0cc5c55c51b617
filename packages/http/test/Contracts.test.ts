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
