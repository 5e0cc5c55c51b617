import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

const byId = <A extends { readonly id: string }>(xs: ReadonlyArray<A>) => [...xs].sort((a, b) => a.id.localeCompare(b.id))

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Shops [${dialect}]`, (it) => {
    it.effect("getShops lists the caller's shops, getShopByID reads one", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const shops = yield* api.Shops.getShops()
        assert.deepStrictEqual(shops.map((s) => s.id).sort(), [...m.shopIDs].sort())
        for (const shop of shops) {
          assert.strictEqual(shop.contractID, m.contractID)
          assert.strictEqual(shop.currency, "RUB")
          assert.strictEqual(shop.categoryID, 1)
          assert.isFalse(shop.isBlocked)
          assert.isFalse(shop.isSuspended)
          assert.strictEqual(shop.location.locationType, "ShopLocationUrl")
          assert.instanceOf(shop.createdAt, Date)
          assert.deepStrictEqual(yield* api.Shops.getShopByID({ path: { shopID: shop.id } }), shop)
        }
        const names = shops.map((s) => s.details.name).sort()
        assert.strictEqual(names.length, 2)
        assert.match(names[0]!, /^Shop \d+-1$/)
      }))

    it.effect("the wire form of a shop", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const wire = yield* TestServer.raw("GET", `/v2/processing/shops/${m.shopID}`, {
          headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId() }
        })
        assert.strictEqual(wire.status, 200)
        assert.deepStrictEqual(
          Object.keys(wire.json).sort(),
          ["categoryID", "contractID", "createdAt", "currency", "details", "id", "isBlocked", "isSuspended", "location"]
        )
        assert.strictEqual(wire.json.id, m.shopID)
        assert.isFalse(Number.isNaN(Date.parse(wire.json.createdAt)))
        assert.match(wire.json.createdAt, /(Z|[+-]\d{2}:\d{2})$/)
      }))

    it.effect("the ForParty variants act on the caller's own party", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const own = yield* api.Shops.getShops()
        assert.deepStrictEqual(byId(yield* api.Shops.getShopsForParty({ path: { partyID: m.partyID } })), byId(own))
        const path = { partyID: m.partyID, shopID: m.shopID }
        assert.deepStrictEqual(
          yield* api.Shops.getShopByIDForParty({ path }),
          yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })
        )
        yield* api.Shops.suspendShopForParty({ path })
        assert.isTrue((yield* api.Shops.getShopByIDForParty({ path })).isSuspended)
        assert.isTrue((yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })).isSuspended)
        yield* api.Shops.activateShopForParty({ path })
        assert.isFalse((yield* api.Shops.getShopByIDForParty({ path })).isSuspended)
      }))

    it.effect("suspendShop and activateShop move isSuspended of that shop only, idempotently", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const other = m.shopIDs.find((id) => id !== m.shopID)!
        const get = (shopID: string) => api.Shops.getShopByID({ path: { shopID } })
        const before = yield* get(m.shopID)
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        const suspended = yield* get(m.shopID)
        assert.deepStrictEqual(suspended, { ...before, isSuspended: true })
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        assert.deepStrictEqual(yield* get(m.shopID), suspended)
        assert.isFalse((yield* get(other)).isSuspended)
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        assert.deepStrictEqual(yield* get(m.shopID), before)
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        assert.deepStrictEqual(yield* get(m.shopID), before)
        // the party itself is not touched
        assert.isFalse((yield* api.Parties.getMyParty()).isSuspended)
      }))

    it.effect("suspend and activate answer 204 with no body", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (const command of ["suspend", "activate"]) {
          const wire = yield* TestServer.raw("PUT", `/v2/processing/shops/${m.shopID}/${command}`, {
            headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId() }
          })
          assert.strictEqual(wire.status, 204)
          assert.strictEqual(wire.text, "")
        }
      }))

    it.effect("an unknown shop is 404 {message}", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const shopID = "no-such-shop"
        for (
          const call of [
            api.Shops.getShopByID({ path: { shopID } }),
            api.Shops.suspendShop({ path: { shopID } }),
            api.Shops.activateShop({ path: { shopID } }),
            api.Shops.getShopByIDForParty({ path: { partyID: m.partyID, shopID } }),
            api.Shops.suspendShopForParty({ path: { partyID: m.partyID, shopID } }),
            api.Shops.activateShopForParty({ path: { partyID: m.partyID, shopID } })
          ]
        ) {
          assert.strictEqual((yield* Effect.flip(call))._tag, "NotFound")
        }
        const wire = yield* TestServer.raw("GET", `/v2/processing/shops/${shopID}`, {
          headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId() }
        })
        assert.strictEqual(wire.status, 404)
        assert.deepStrictEqual(Object.keys(wire.json), ["message"])
        assert.isString(wire.json.message)
      }))

    it.effect("two parties can neither see nor change each other's shops", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const apiA = yield* TestServer.client(a.apiKey)
        const apiB = yield* TestServer.client(b.apiKey)
        const before = yield* apiB.Shops.getShopByID({ path: { shopID: b.shopID } })

        const listed = yield* apiA.Shops.getShops()
        assert.isFalse(listed.some((s) => b.shopIDs.includes(s.id)))

        for (
          const call of [
            apiA.Shops.getShopByID({ path: { shopID: b.shopID } }),
            apiA.Shops.suspendShop({ path: { shopID: b.shopID } }),
            apiA.Shops.activateShop({ path: { shopID: b.shopID } }),
            apiA.Shops.getShopsForParty({ path: { partyID: b.partyID } }),
            apiA.Shops.getShopByIDForParty({ path: { partyID: b.partyID, shopID: b.shopID } }),
            apiA.Shops.suspendShopForParty({ path: { partyID: b.partyID, shopID: b.shopID } }),
            apiA.Shops.activateShopForParty({ path: { partyID: b.partyID, shopID: b.shopID } }),
            // own party in the path, the other party's shop
            apiA.Shops.getShopByIDForParty({ path: { partyID: a.partyID, shopID: b.shopID } }),
            apiA.Shops.suspendShopForParty({ path: { partyID: a.partyID, shopID: b.shopID } })
          ]
        ) {
          const error = yield* Effect.flip(call)
          assert.strictEqual(error._tag, "NotFound")
        }
        assert.deepStrictEqual(yield* apiB.Shops.getShopByID({ path: { shopID: b.shopID } }), before)

        for (
          const [method, path] of [
            ["GET", `/v2/processing/shops/${b.shopID}`],
            ["PUT", `/v2/processing/shops/${b.shopID}/suspend`],
            ["GET", `/v2/processing/parties/${b.partyID}/shops`],
            ["GET", `/v2/processing/parties/${b.partyID}/shops/${b.shopID}`],
            ["PUT", `/v2/processing/parties/${b.partyID}/shops/${b.shopID}/suspend`]
          ] as const
        ) {
          const wire = yield* TestServer.raw(method, path, {
            headers: { authorization: `Bearer ${a.apiKey}`, "x-request-id": TestServer.requestId() }
          })
          assert.strictEqual(wire.status, 404, `${method} ${path}`)
          assert.deepStrictEqual(Object.keys(wire.json), ["message"])
        }
        assert.deepStrictEqual(yield* apiB.Shops.getShopByID({ path: { shopID: b.shopID } }), before)
      }))

    it.effect("a shop blocked by the operator refuses suspend and activate until unblocked", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const api = yield* TestServer.client(m.apiKey)
        const path = { partyID: m.partyID, shopID: m.shopID, command: "block" as const }
        yield* operator.Admin.setShopActivity({ path })
        const blocked = yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })
        assert.isTrue(blocked.isBlocked)
        assert.isFalse(blocked.isSuspended)

        for (
          const call of [
            api.Shops.suspendShop({ path: { shopID: m.shopID } }),
            api.Shops.activateShop({ path: { shopID: m.shopID } }),
            api.Shops.suspendShopForParty({ path: { partyID: m.partyID, shopID: m.shopID } })
          ]
        ) {
          const error = yield* Effect.flip(call)
          assert.strictEqual(error._tag, "BusinessError")
          assert.strictEqual((error as any).code, "invalidRequest")
        }
        const wire = yield* TestServer.raw("PUT", `/v2/processing/shops/${m.shopID}/suspend`, {
          headers: { authorization: `Bearer ${m.apiKey}`, "x-request-id": TestServer.requestId() }
        })
        assert.strictEqual(wire.status, 400)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["code", "message"])
        assert.strictEqual(wire.json.code, "invalidRequest")
        assert.deepStrictEqual(yield* api.Shops.getShopByID({ path: { shopID: m.shopID } }), blocked)
        // the other shop is not blocked
        const other = m.shopIDs.find((id) => id !== m.shopID)!
        yield* api.Shops.suspendShop({ path: { shopID: other } })

        yield* operator.Admin.setShopActivity({ path: { ...path, command: "unblock" } })
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        const after = yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })
        assert.isFalse(after.isBlocked)
        assert.isTrue(after.isSuspended)
        yield* api.Shops.activateShop({ path: { shopID: m.shopID } })
        assert.isFalse((yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })).isSuspended)
      }))

    it.effect("block keeps the merchant's suspension; unblock restores the state before", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const api = yield* TestServer.client(m.apiKey)
        yield* api.Shops.suspendShop({ path: { shopID: m.shopID } })
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "block" } })
        const blocked = yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })
        assert.isTrue(blocked.isBlocked)
        assert.isTrue(blocked.isSuspended)
        yield* operator.Admin.setShopActivity({ path: { partyID: m.partyID, shopID: m.shopID, command: "unblock" } })
        const unblocked = yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })
        assert.isFalse(unblocked.isBlocked)
        assert.isTrue(unblocked.isSuspended)
      }))

    it.effect("shop operations need an API key", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const anonymous = yield* TestServer.client()
        assert.strictEqual((yield* Effect.flip(anonymous.Shops.getShops()))._tag, "Unauthorized")
        assert.strictEqual(
          (yield* Effect.flip(anonymous.Shops.suspendShop({ path: { shopID: m.shopID } })))._tag,
          "Unauthorized"
        )
        const api = yield* TestServer.client(m.apiKey)
        assert.isFalse((yield* api.Shops.getShopByID({ path: { shopID: m.shopID } })).isSuspended)
      }))
  })
}
