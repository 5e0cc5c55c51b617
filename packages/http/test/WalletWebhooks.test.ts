/**
 * The wallet interface's webhooks over HTTP, on SQLite and PostgreSQL: create, list, read and
 * delete an identity's webhooks, every 422 message, another party's webhook not found.
 */
import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

const JSON_TYPE = "application/json; charset=utf-8"

type Method = "GET" | "POST" | "DELETE"

const call = (method: Method, path: string, token: string, body?: unknown) =>
  TestServer.raw(method, path, {
    headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const refused = (response: TestServer.RawResponse, message: string) => {
  assert.strictEqual(response.status, 422, `${message}: ${response.text}`)
  assert.deepStrictEqual(response.json, { message })
  assert.strictEqual(response.headers["content-type"], JSON_TYPE)
}

const notFound = (response: TestServer.RawResponse) => {
  assert.strictEqual(response.status, 404, response.text)
  assert.strictEqual(response.text, "")
}

const walletOf = (apiKey: string) =>
  Effect.gen(function*() {
    const identity = (yield* call("POST", "/wallet/v0/identities", apiKey, { name: "Ivan", provider: "test" })).json
    const wallet = (yield* call("POST", "/wallet/v0/wallets", apiKey, { name: "Main", identity: identity.id, currency: "RUB" })).json
    return { identity, wallet }
  })

const URL = "https://hooks.example.com/kassa"

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Wallet webhooks [${dialect}]`, (it) => {
    it.effect("create (201, Location, publicKey), list, read and delete an identity's webhooks", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* Fixtures.merchant()
        const { identity, wallet } = yield* walletOf(apiKey)
        const withdrawals = yield* call("POST", "/wallet/v0/webhooks", apiKey, {
          identityID: identity.id,
          scope: { topic: "WithdrawalsTopic", walletID: wallet.id, eventTypes: ["WithdrawalStarted", "WithdrawalFailed"] },
          url: URL,
          unknownField: 1
        })
        assert.strictEqual(withdrawals.status, 201, withdrawals.text)
        assert.strictEqual(withdrawals.headers.location, `/wallet/v0/webhooks/${withdrawals.json.id}`)
        assert.deepStrictEqual({ ...withdrawals.json, id: undefined, publicKey: undefined }, {
          id: undefined,
          identityID: identity.id,
          active: true,
          scope: { topic: "WithdrawalsTopic", walletID: wallet.id, eventTypes: ["WithdrawalStarted", "WithdrawalFailed"] },
          url: URL,
          publicKey: undefined
        })
        assert.match(withdrawals.json.publicKey, /^-----BEGIN PUBLIC KEY-----\n/)
        const destinations = yield* TestServer.raw("POST", "/wallet/v0/webhooks", {
          headers: {
            "x-request-id": TestServer.requestId(),
            authorization: `Bearer ${apiKey}`,
            "content-type": "application/json;charset=utf-8"
          },
          body: JSON.stringify({ identityID: identity.id, scope: { topic: "DestinationsTopic", eventTypes: ["DestinationAuthorized"] }, url: URL })
        })
        assert.strictEqual(destinations.status, 201, destinations.text)
        assert.strictEqual(destinations.json.publicKey, withdrawals.json.publicKey)

        const list = yield* call("GET", `/wallet/v0/webhooks?identityID=${identity.id}`, apiKey)
        assert.strictEqual(list.status, 200, list.text)
        assert.deepStrictEqual(list.json, [withdrawals.json, destinations.json])
        const read = yield* call("GET", `/wallet/v0/webhooks/${withdrawals.json.id}?identityID=${identity.id}`, apiKey)
        assert.deepStrictEqual(read.json, withdrawals.json)

        const deleted = yield* call("DELETE", `/wallet/v0/webhooks/${withdrawals.json.id}?identityID=${identity.id}`, apiKey)
        assert.strictEqual(deleted.status, 204, deleted.text)
        notFound(yield* call("GET", `/wallet/v0/webhooks/${withdrawals.json.id}?identityID=${identity.id}`, apiKey))
        notFound(yield* call("DELETE", `/wallet/v0/webhooks/${withdrawals.json.id}?identityID=${identity.id}`, apiKey))
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/webhooks?identityID=${identity.id}`, apiKey)).json, [destinations.json])
      }))

    it.effect("422 No such identity / No such wallet; another party's webhook is 404 without a body", () =>
      Effect.gen(function*() {
        const mine = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const { identity, wallet } = yield* walletOf(mine.apiKey)
        const theirs = yield* walletOf(other.apiKey)
        const scope = { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalSucceeded"] }
        refused(yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: "nope", scope, url: URL }), "No such identity")
        refused(yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: theirs.identity.id, scope, url: URL }), "No such identity")
        refused(
          yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: identity.id, scope: { ...scope, walletID: theirs.wallet.id }, url: URL }),
          "No such wallet"
        )
        refused(yield* call("GET", `/wallet/v0/webhooks?identityID=${theirs.identity.id}`, mine.apiKey), "No such identity")

        const hook = yield* call("POST", "/wallet/v0/webhooks", other.apiKey, { identityID: theirs.identity.id, scope, url: URL })
        assert.strictEqual(hook.status, 201, hook.text)
        // read through the caller's own identity: still not theirs
        notFound(yield* call("GET", `/wallet/v0/webhooks/${hook.json.id}?identityID=${identity.id}`, mine.apiKey))
        notFound(yield* call("DELETE", `/wallet/v0/webhooks/${hook.json.id}?identityID=${identity.id}`, mine.apiKey))
        assert.strictEqual((yield* call("GET", `/wallet/v0/webhooks/${hook.json.id}?identityID=${theirs.identity.id}`, other.apiKey)).status, 200)
        // a webhook of the wallet's identity under another identity of the same party: not found
        const second = (yield* call("POST", "/wallet/v0/identities", mine.apiKey, { name: "Petr", provider: "test" })).json
        const own = yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: identity.id, scope: { ...scope, walletID: wallet.id }, url: URL })
        notFound(yield* call("GET", `/wallet/v0/webhooks/${own.json.id}?identityID=${second.id}`, mine.apiKey))
        refused(
          yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: second.id, scope: { ...scope, walletID: wallet.id }, url: URL }),
          "No such wallet"
        )
        const bad = yield* call("POST", "/wallet/v0/webhooks", mine.apiKey, { identityID: identity.id, scope, url: "not a url" })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.strictEqual(bad.json.errorType, "SchemaViolated")
      }))
  })
}
