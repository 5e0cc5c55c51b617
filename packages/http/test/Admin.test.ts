import { assert, layer } from "@effect/vitest"
import { RandomIds } from "@kassa/adapters"
import { Ids } from "@kassa/core"
import { ApiKeyRepository } from "@kassa/core/ports/ApiKeyRepository"
import { ContractRepository } from "@kassa/core/ports/ContractRepository"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { ShopRepository } from "@kassa/core/ports/ShopRepository"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const JSON_TYPE = "application/json; charset=utf-8"

const shop = (overrides: Record<string, unknown> = {}) => ({
  name: "Admin shop",
  url: "https://admin.kassa.test",
  categoryID: 1,
  currency: "RUB",
  ...overrides
})

/** POST /admin/v1/parties with the operator's token. */
const onboard = (body: unknown) =>
  Effect.flatMap(Fixtures.operatorToken, (token) =>
    TestServer.raw("POST", "/admin/v1/parties", {
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    }))

const operatorRaw = (method: "GET" | "POST" | "PUT" | "DELETE", path: string) =>
  Effect.flatMap(Fixtures.operatorToken, (token) =>
    TestServer.raw(method, path, { headers: { authorization: `Bearer ${token}` } }))

/** Nothing of the party was written: no party, contract, shop or key. */
const assertNothingWritten = (partyID: string) =>
  Effect.gen(function*() {
    const id = Ids.PartyID.make(partyID)
    assert.isTrue(Option.isNone(yield* (yield* PartyRepository).findById(id)), `party ${partyID}`)
    assert.deepStrictEqual(yield* (yield* ShopRepository).listByParty(id), [])
    assert.deepStrictEqual(yield* (yield* ContractRepository).listByParty(id), [])
    assert.deepStrictEqual(yield* (yield* ApiKeyRepository).listByParty(partyID), [])
    const listed = yield* operatorRaw("GET", `/admin/v1/parties/${partyID}/api-keys`)
    assert.strictEqual(listed.status, 404)
  })

const freshPartyID = () => `party-${RandomIds.make()}`

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Admin [${dialect}]`, (it) => {
    it.effect("POST /admin/v1/parties onboards a merchant whose key works", () =>
      Effect.gen(function*() {
        const response = yield* onboard({
          email: "onboard@kassa.test",
          name: "Onboarded merchant",
          shops: [
            shop({ name: "First", description: "The first shop" }),
            shop({ name: "Second", url: "https://second.kassa.test", currency: "USD", categoryID: 2 })
          ]
        })
        assert.strictEqual(response.status, 201, response.text)
        assert.strictEqual(response.headers["content-type"], JSON_TYPE)
        assert.deepStrictEqual(Object.keys(response.json).sort(), ["apiKey", "contractID", "partyID", "shopID", "shopIDs"])
        const { apiKey, contractID, partyID, shopID, shopIDs } = response.json
        assert.strictEqual(shopIDs.length, 2)
        assert.strictEqual(shopID, shopIDs[0])
        assert.strictEqual(new Set([partyID, contractID, ...shopIDs]).size, 4)

        const api = yield* TestServer.client(apiKey)
        assert.deepStrictEqual(yield* api.Parties.getMyParty(), { id: partyID, isBlocked: false, isSuspended: false })
        const shops = yield* api.Shops.getShops()
        assert.deepStrictEqual(shops.map((s) => s.id).sort(), [...shopIDs].sort())
        const first = yield* api.Shops.getShopByID({ path: { shopID: shopIDs[0] } })
        assert.deepStrictEqual(first.details, { name: "First", description: "The first shop" })
        assert.deepStrictEqual(first.location, { locationType: "ShopLocationUrl", url: "https://admin.kassa.test" })
        assert.strictEqual(first.currency, "RUB")
        assert.strictEqual(first.categoryID, 1)
        assert.strictEqual(first.contractID, contractID)
        const second = yield* api.Shops.getShopByID({ path: { shopID: shopIDs[1] } })
        assert.deepStrictEqual(second.details, { name: "Second" })
        assert.strictEqual(second.currency, "USD")
        assert.strictEqual(second.categoryID, 2)

        const contracts = yield* (yield* ContractRepository).listByParty(Ids.PartyID.make(partyID))
        assert.strictEqual(contracts.length, 1)
        assert.strictEqual(contracts[0]!.id, contractID)
        assert.strictEqual(contracts[0]!.paymentInstitutionID, 1)
        assert.strictEqual(contracts[0]!.status, "active")
      }))

    it.effect("onboarding with explicit ids and another payment institution", () =>
      Effect.gen(function*() {
        const partyID = freshPartyID()
        const response = yield* onboard({
          partyID,
          email: "explicit@kassa.test",
          paymentInstitutionID: 2,
          shops: [shop({ id: "shop-a", currency: "GBP" }), shop({ id: "shop-b", currency: "EUR" })]
        })
        assert.strictEqual(response.status, 201, response.text)
        assert.strictEqual(response.json.partyID, partyID)
        assert.deepStrictEqual(response.json.shopIDs, ["shop-a", "shop-b"])
        assert.strictEqual(response.json.shopID, "shop-a")
        const api = yield* TestServer.client(response.json.apiKey)
        assert.strictEqual((yield* api.Shops.getShopByID({ path: { shopID: "shop-b" } })).currency, "EUR")
        const [contract] = yield* (yield* ContractRepository).listByParty(Ids.PartyID.make(partyID))
        assert.strictEqual(contract!.paymentInstitutionID, 2)
      }))

    it.effect("the typed client onboards too", () =>
      Effect.gen(function*() {
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const onboarded = yield* operator.Admin.onboardParty({
          payload: { email: "typed@kassa.test", paymentInstitutionID: 1, shops: [shop()] }
        })
        const api = yield* TestServer.client(onboarded.apiKey)
        assert.strictEqual((yield* api.Parties.getMyParty()).id, onboarded.partyID)
      }))

    it.effect("invalid onboarding is 400 invalidChangeset and writes nothing", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["unknown category", { shops: [shop({ categoryID: 999 })] }],
          ["currency not in the terms", { shops: [shop({ currency: "GBP" })] }],
          ["category of the wrong realm (live category, test institution)", { shops: [shop({ categoryID: 100 })] }],
          [
            "category of the wrong realm (test category, live institution)",
            { paymentInstitutionID: 100, shops: [shop({ categoryID: 1 })] }
          ],
          ["unknown payment institution", { paymentInstitutionID: 3, shops: [shop()] }],
          ["a valid shop, then an invalid one", { shops: [shop(), shop({ currency: "JPY" })] }],
          ["duplicate shop ids", { shops: [shop({ id: "same" }), shop({ id: "same" })] }]
        ]
        for (const [name, body] of cases) {
          const partyID = freshPartyID()
          const response = yield* onboard({ partyID, email: "invalid@kassa.test", ...body })
          assert.strictEqual(response.status, 400, `${name}: ${response.text}`)
          assert.strictEqual(response.headers["content-type"], JSON_TYPE)
          assert.deepStrictEqual(Object.keys(response.json).sort(), ["code", "message"], name)
          assert.strictEqual(response.json.code, "invalidChangeset", name)
          yield* assertNothingWritten(partyID)
        }
      }))

    it.effect("a duplicate explicit partyID is invalidChangeset and leaves the first party as it was", () =>
      Effect.gen(function*() {
        const partyID = freshPartyID()
        const first = yield* onboard({ partyID, email: "first@kassa.test", shops: [shop({ id: "only" })] })
        assert.strictEqual(first.status, 201, first.text)
        const again = yield* onboard({
          partyID,
          email: "second@kassa.test",
          shops: [shop({ id: "other" }), shop({ id: "only", currency: "USD" })]
        })
        assert.strictEqual(again.status, 400, again.text)
        assert.strictEqual(again.json.code, "invalidChangeset")

        const id = Ids.PartyID.make(partyID)
        const party = Option.getOrThrow(yield* (yield* PartyRepository).findById(id))
        assert.strictEqual(party.email, "first@kassa.test")
        const shops = yield* (yield* ShopRepository).listByParty(id)
        assert.deepStrictEqual(shops.map((s) => [s.id, s.currency]), [["only", "RUB"]])
        assert.strictEqual((yield* (yield* ContractRepository).listByParty(id)).length, 1)
        assert.strictEqual((yield* (yield* ApiKeyRepository).listByParty(partyID)).length, 1)
        const api = yield* TestServer.client(first.json.apiKey)
        assert.deepStrictEqual((yield* api.Shops.getShops()).map((s) => s.id), ["only"])
      }))

    it.effect("malformed onboarding requests are 400 invalidRequest and write nothing", () =>
      Effect.gen(function*() {
        for (
          const body of [
            { email: "not-an-email", shops: [shop()] },
            { email: "a@b.c", shops: [] },
            { email: "a@b.c", shops: [shop({ currency: "rub" })] },
            { email: "a@b.c", shops: [shop({ name: "" })] },
            { email: "a@b.c", shops: [shop({ categoryID: 1.5 })] }
          ]
        ) {
          const partyID = freshPartyID()
          const response = yield* onboard({ partyID, ...body })
          assert.strictEqual(response.status, 400, JSON.stringify(body))
          assert.strictEqual(response.json.code, "invalidRequest")
          yield* assertNothingWritten(partyID)
        }
      }))

    it.effect("issueApiKey, listApiKeys and revokeApiKey", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)

        const issued = yield* operatorRaw("POST", `/admin/v1/parties/${m.partyID}/api-keys`)
        assert.strictEqual(issued.status, 201, issued.text)
        assert.deepStrictEqual(Object.keys(issued.json).sort(), ["apiKey", "keyID"])
        const second = issued.json as { keyID: string; apiKey: string }
        const api2 = yield* TestServer.client(second.apiKey)
        assert.strictEqual((yield* api2.Parties.getMyParty()).id, m.partyID)

        const listed = yield* operator.Admin.listApiKeys({ path: { partyID: m.partyID } })
        assert.strictEqual(listed.length, 2)
        assert.include(listed.map((k) => k.keyID), second.keyID)
        for (const k of listed) {
          assert.instanceOf(k.createdAt, Date)
          assert.isUndefined(k.revokedAt)
        }
        const wireList = yield* operatorRaw("GET", `/admin/v1/parties/${m.partyID}/api-keys`)
        assert.strictEqual(wireList.status, 200)
        for (const k of wireList.json) assert.deepStrictEqual(Object.keys(k).sort(), ["createdAt", "keyID"])
        const firstKeyID = listed.find((k) => k.keyID !== second.keyID)!.keyID

        const revoked = yield* operatorRaw("DELETE", `/admin/v1/parties/${m.partyID}/api-keys/${firstKeyID}`)
        assert.strictEqual(revoked.status, 204, revoked.text)
        const after = yield* operator.Admin.listApiKeys({ path: { partyID: m.partyID } })
        assert.instanceOf(after.find((k) => k.keyID === firstKeyID)!.revokedAt, Date)
        assert.isUndefined(after.find((k) => k.keyID === second.keyID)!.revokedAt)

        const api1 = yield* TestServer.client(m.apiKey)
        assert.strictEqual((yield* Effect.flip(api1.Parties.getMyParty()))._tag, "Unauthorized")
        assert.strictEqual((yield* api2.Parties.getMyParty()).id, m.partyID)

        // revoking again, or an unknown key, is 404
        for (const keyID of [firstKeyID, "no-such-key"]) {
          const error = yield* Effect.flip(operator.Admin.revokeApiKey({ path: { partyID: m.partyID, keyID } }))
          assert.strictEqual(error._tag, "NotFound", keyID)
        }
      }))

    it.effect("a key cannot be revoked through another party", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const [bKey] = yield* operator.Admin.listApiKeys({ path: { partyID: b.partyID } })
        const response = yield* operatorRaw("DELETE", `/admin/v1/parties/${a.partyID}/api-keys/${bKey!.keyID}`)
        assert.strictEqual(response.status, 404)
        assert.deepStrictEqual(Object.keys(response.json), ["message"])
        const apiB = yield* TestServer.client(b.apiKey)
        assert.strictEqual((yield* apiB.Parties.getMyParty()).id, b.partyID)
        assert.isUndefined((yield* operator.Admin.listApiKeys({ path: { partyID: b.partyID } }))[0]!.revokedAt)
        // and keys of one party are not listed under another
        const listedA = yield* operator.Admin.listApiKeys({ path: { partyID: a.partyID } })
        assert.notInclude(listedA.map((k) => k.keyID), bKey!.keyID)
      }))

    it.effect("setPartyActivity is reflected in getMyParty", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const api = yield* TestServer.client(m.apiKey)
        const set = (command: "suspend" | "activate" | "block" | "unblock") =>
          operator.Admin.setPartyActivity({ path: { partyID: m.partyID, command } })
        const state = () => Effect.map(api.Parties.getMyParty(), ({ isBlocked, isSuspended }) => ({ isBlocked, isSuspended }))

        yield* set("suspend")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: true })
        yield* set("activate")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: false })
        yield* set("block")
        assert.deepStrictEqual(yield* state(), { isBlocked: true, isSuspended: false })
        yield* set("block")
        assert.deepStrictEqual(yield* state(), { isBlocked: true, isSuspended: false })
        yield* set("unblock")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: false })

        const wire = yield* operatorRaw("PUT", `/admin/v1/parties/${m.partyID}/block`)
        assert.strictEqual(wire.status, 204)
        assert.strictEqual(wire.text, "")
        assert.deepStrictEqual(yield* state(), { isBlocked: true, isSuspended: false })
        yield* set("unblock")

        const unknownCommand = yield* operatorRaw("PUT", `/admin/v1/parties/${m.partyID}/delete`)
        assert.strictEqual(unknownCommand.status, 400)
        assert.strictEqual(unknownCommand.json.code, "invalidRequest")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: false })
      }))

    it.effect("setShopActivity is reflected in getShopByID, for that shop only", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const api = yield* TestServer.client(m.apiKey)
        const other = m.shopIDs.find((id) => id !== m.shopID)!
        const set = (command: "suspend" | "activate" | "block" | "unblock") =>
          operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command } })
        const state = (shopID = m.shopID) =>
          Effect.map(api.Shops.getShopByID({ path: { shopID } }), ({ isBlocked, isSuspended }) => ({ isBlocked, isSuspended }))

        yield* set("suspend")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: true })
        yield* set("activate")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: false })
        yield* set("block")
        assert.deepStrictEqual(yield* state(), { isBlocked: true, isSuspended: false })
        assert.deepStrictEqual(yield* state(other), { isBlocked: false, isSuspended: false })
        assert.deepStrictEqual(
          (yield* api.Parties.getMyParty()),
          { id: m.partyID as any, isBlocked: false, isSuspended: false }
        )
        yield* set("unblock")
        assert.deepStrictEqual(yield* state(), { isBlocked: false, isSuspended: false })
      }))

    it.effect("operator endpoints on an unknown party are 404 {message}", () =>
      Effect.gen(function*() {
        const partyID = freshPartyID()
        for (
          const [method, path] of [
            ["POST", `/admin/v1/parties/${partyID}/api-keys`],
            ["GET", `/admin/v1/parties/${partyID}/api-keys`],
            ["DELETE", `/admin/v1/parties/${partyID}/api-keys/some-key`],
            ["PUT", `/admin/v1/parties/${partyID}/suspend`],
            ["PUT", `/admin/v1/parties/${partyID}/activate`],
            ["PUT", `/admin/v1/parties/${partyID}/block`],
            ["PUT", `/admin/v1/parties/${partyID}/unblock`],
            ["PUT", `/admin/v1/parties/${partyID}/shops/some-shop/block`]
          ] as const
        ) {
          const response = yield* operatorRaw(method, path)
          assert.strictEqual(response.status, 404, `${method} ${path}: ${response.text}`)
          assert.strictEqual(response.headers["content-type"], JSON_TYPE)
          assert.deepStrictEqual(Object.keys(response.json), ["message"])
        }
        // no key was issued for the unknown party
        assert.deepStrictEqual(yield* (yield* ApiKeyRepository).listByParty(partyID), [])
      }))

    it.effect("setShopActivity on an unknown shop, or another party's shop, is 404", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        for (const shopID of ["no-such-shop", b.shopID]) {
          const response = yield* operatorRaw("PUT", `/admin/v1/parties/${a.partyID}/shops/${shopID}/block`)
          assert.strictEqual(response.status, 404, shopID)
          assert.deepStrictEqual(Object.keys(response.json), ["message"])
        }
        const apiB = yield* TestServer.client(b.apiKey)
        assert.isFalse((yield* apiB.Shops.getShopByID({ path: { shopID: b.shopID } })).isBlocked)
      }))
  })
}
