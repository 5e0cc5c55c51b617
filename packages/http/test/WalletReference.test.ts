import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

const get = (path: string, token: string) =>
  TestServer.raw("GET", path, { headers: { "x-request-id": TestServer.requestId(), authorization: `Bearer ${token}` } })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Wallet reference data [${dialect}]`, (it) => {
    it.effect("getCurrency answers ISO 4217's code, numeric code, name, minor unit and sign; unknown is 404", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const rub = { id: "RUB", numericCode: "643", name: "Russian Ruble", sign: "₽", exponent: 2 }
        for (const code of ["RUB", "rub"]) {
          const answer = yield* get(`/wallet/v0/currencies/${code}`, m.apiKey)
          assert.strictEqual(answer.status, 200, answer.text)
          assert.deepStrictEqual(answer.json, rub)
          assert.strictEqual(answer.headers["content-type"], "application/json; charset=utf-8")
        }
        assert.deepStrictEqual((yield* get("/wallet/v0/currencies/JPY", m.apiKey)).json, {
          id: "JPY",
          numericCode: "392",
          name: "Yen",
          sign: "¥",
          exponent: 0
        })
        // no sign of its own: the field is left out
        assert.deepStrictEqual((yield* get("/wallet/v0/currencies/KWD", m.apiKey)).json, {
          id: "KWD",
          numericCode: "414",
          name: "Kuwaiti Dinar",
          exponent: 3
        })
        const unknown = yield* get("/wallet/v0/currencies/ZZZ", m.apiKey)
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(unknown.text, "")
      }))

    it.effect("getResidence answers an ISO 3166-1 country by its alpha-3 code; unknown is 404", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (const code of ["RUS", "rus"]) {
          const answer = yield* get(`/wallet/v0/residences/${code}`, m.apiKey)
          assert.strictEqual(answer.status, 200, answer.text)
          assert.deepStrictEqual(answer.json, { id: "RUS", name: "Russian Federation" })
        }
        assert.deepStrictEqual((yield* get("/wallet/v0/residences/ALA", m.apiKey)).json, { id: "ALA", name: "Åland Islands" })
        const unknown = yield* get("/wallet/v0/residences/ZZZ", m.apiKey)
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(unknown.text, "")
      }))
  })
}
