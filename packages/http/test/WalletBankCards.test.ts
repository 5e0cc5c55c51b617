import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

const call = TestServer.call

const CARD = "4242424242424242"

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Card tokens (payres) [${dialect}]`, (it) => {
    it.effect("storeBankCard: 201 with a token, BIN, last digits, payment system and validUntil; getBankCard reads it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const stored = yield* call("POST", "/payres/v0/bank-cards", m.apiKey, {
          type: "BankCard",
          cardNumber: CARD,
          expDate: "12/40",
          cardHolder: "IVAN PETROV"
        })
        assert.strictEqual(stored.status, 201, stored.text)
        assert.strictEqual(stored.headers["content-type"], "application/json; charset=utf-8")
        assert.deepStrictEqual(Object.keys(stored.json).sort(), ["bin", "lastDigits", "paymentSystem", "token", "validUntil"])
        assert.deepStrictEqual(
          [stored.json.bin, stored.json.lastDigits, stored.json.paymentSystem],
          ["424242", "4242", "visa"]
        )
        // the server runs on the test's clock
        assert.strictEqual(Date.parse(stored.json.validUntil) - (yield* Clock.currentTimeMillis), 64 * 60_000)
        assert.notInclude(stored.text, CARD)
        assert.strictEqual(stored.headers["location"], `/payres/v0/bank-cards/${encodeURIComponent(stored.json.token)}`)

        const read = yield* call("GET", `/payres/v0/bank-cards/${encodeURIComponent(stored.json.token)}`, m.apiKey)
        assert.strictEqual(read.status, 200, read.text)
        assert.deepStrictEqual(read.json, {
          token: stored.json.token,
          bin: "424242",
          lastDigits: "4242",
          paymentSystem: "visa",
          validUntil: stored.json.validUntil
        })
      }))

    it.effect("a CVV is answered as authData, never echoed; the older revision's bare body works", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const stored = yield* call("POST", "/payres/v0/bank-cards", m.apiKey, {
          cardNumber: "5555555555554444",
          expDate: "01/2041",
          cvv: "737",
          somethingNew: true
        })
        assert.strictEqual(stored.status, 201, stored.text)
        assert.isString(stored.json.authData)
        assert.strictEqual(stored.json.paymentSystem, "mastercard")
        assert.notInclude(stored.text, "5555555555554444")
        assert.notInclude(stored.text, "737\"")
      }))

    it.effect("the typed client derived from the contract speaks the card-token interface, errors as core's", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const stored = yield* api.WithdrawalResources.storeBankCard({
          payload: { cardNumber: "2200000000000004", expDate: "12/40", cvv: "123" }
        })
        assert.strictEqual(stored.paymentSystem, "nspkmir")
        assert.instanceOf(stored.validUntil, Date)
        assert.isString(stored.authData)
        const read = yield* api.WithdrawalResources.getBankCard({ path: { token: stored.token } })
        assert.strictEqual(read.lastDigits, "0004")
        const refused = yield* Effect.flip(
          api.WithdrawalResources.storeBankCard({ payload: { cardNumber: "9000000000000001", expDate: "12/40" } })
        )
        assert.strictEqual(refused._tag, "InvalidBankCard")
        const missing = yield* Effect.flip(api.WithdrawalResources.getBankCard({ path: { token: "bc.none" } }))
        assert.strictEqual(missing._tag, "NotFound")
      }))

    it.effect("a bad or another party's token is 404 without a body", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const stored = yield* call("POST", "/payres/v0/bank-cards", m.apiKey, { cardNumber: CARD, expDate: "12/40" })
        for (const [token, path] of [
          [other.apiKey, `/payres/v0/bank-cards/${encodeURIComponent(stored.json.token)}`],
          [m.apiKey, "/payres/v0/bank-cards/bc.nope"]
        ] as const) {
          const missing = yield* call("GET", path, token)
          assert.strictEqual(missing.status, 404, missing.text)
          assert.strictEqual(missing.text, "")
        }
      }))

    it.effect("422 InvalidBankCard: 'Card data is invalid' and 'Unsupported card', never repeating the card", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const [card, message] of [
            [{ cardNumber: "4242424242424241", expDate: "12/40", cvv: "123" }, "Card data is invalid"],
            [{ cardNumber: CARD, expDate: "12/1969" }, "Card data is invalid"],
            [{ cardNumber: CARD, expDate: "12/40", cvv: "1234" }, "Card data is invalid"],
            [{ cardNumber: CARD }, "Card data is invalid"],
            [{ cardNumber: "9000000000000001", expDate: "12/40" }, "Unsupported card"]
          ] as const
        ) {
          const refused = yield* call("POST", "/payres/v0/bank-cards", m.apiKey, card)
          assert.strictEqual(refused.status, 422, refused.text)
          assert.deepStrictEqual(refused.json, { message })
          assert.notInclude(refused.text, card.cardNumber)
        }
      }))
  })
}
