import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Parties [${dialect}]`, (it) => {
    it.effect("getMyParty answers the caller's party", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const party = yield* api.Parties.getMyParty()
        assert.deepStrictEqual(party, { id: m.partyID as any, isBlocked: false, isSuspended: false })
      }))

    it.effect("suspendMyParty and activateMyParty move isSuspended, idempotently", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* api.Parties.suspendMyParty()
        assert.isTrue((yield* api.Parties.getMyParty()).isSuspended)
        yield* api.Parties.suspendMyParty()
        assert.isTrue((yield* api.Parties.getMyParty()).isSuspended)
        yield* api.Parties.activateMyParty()
        assert.isFalse((yield* api.Parties.getMyParty()).isSuspended)
        yield* api.Parties.activateMyParty()
        assert.isFalse((yield* api.Parties.getMyParty()).isSuspended)
      }))

    it.effect("the ByID variants act on the caller's party", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        yield* api.Parties.suspendPartyByID({ path: { partyID: m.partyID } })
        assert.isTrue((yield* api.Parties.getPartyByID({ path: { partyID: m.partyID } })).isSuspended)
        yield* api.Parties.activatePartyByID({ path: { partyID: m.partyID } })
        assert.isFalse((yield* api.Parties.getPartyByID({ path: { partyID: m.partyID } })).isSuspended)
      }))

    it.effect("another party's id is answered 404 and is not changed", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const api = yield* TestServer.client(a.apiKey)
        for (const call of [
          api.Parties.getPartyByID({ path: { partyID: b.partyID } }),
          api.Parties.suspendPartyByID({ path: { partyID: b.partyID } }),
          api.Parties.activatePartyByID({ path: { partyID: b.partyID } })
        ]) {
          const error = yield* Effect.flip(call)
          assert.strictEqual(error._tag, "NotFound")
        }
        const apiB = yield* TestServer.client(b.apiKey)
        assert.isFalse((yield* apiB.Parties.getMyParty()).isSuspended)
        const wire = yield* TestServer.raw("GET", `/v2/processing/parties/${b.partyID}`, {
          headers: { authorization: `Bearer ${a.apiKey}`, "x-request-id": "x" }
        })
        assert.strictEqual(wire.status, 404)
        assert.deepStrictEqual(Object.keys(wire.json), ["message"])
      }))

    it.effect("a party blocked by the operator refuses the merchant's suspend and activate", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "block" } })
        const api = yield* TestServer.client(m.apiKey)
        assert.deepStrictEqual(yield* api.Parties.getMyParty(), { id: m.partyID as any, isBlocked: true, isSuspended: false })
        const error = yield* Effect.flip(api.Parties.suspendMyParty())
        assert.strictEqual(error._tag, "BusinessError")
        assert.strictEqual((error as any).code, "invalidRequest")
        yield* operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command: "unblock" } })
        yield* api.Parties.suspendMyParty()
        assert.deepStrictEqual(yield* api.Parties.getMyParty(), { id: m.partyID as any, isBlocked: false, isSuspended: true })
      }))
  })
}
