import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"

const get = (path: string, token?: string) =>
  TestServer.raw("GET", path, {
    headers: {
      "x-request-id": TestServer.requestId(),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
    }
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Reference [${dialect}]`, (it) => {
    it.effect("getCategories and getCategoryByRef", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const categories = yield* api.Categories.getCategories()
        assert.strictEqual(categories.length, 20)
        assert.deepStrictEqual(categories.slice(0, 5).map((c) => c.categoryID), [1, 2, 3, 4, 5])
        const one = yield* api.Categories.getCategoryByRef({ path: { categoryID: 1 } })
        assert.deepStrictEqual(one, categories[0])
        assert.strictEqual(one.name, "Basic test category")
        assert.strictEqual((yield* api.Categories.getCategoryByRef({ path: { categoryID: 100 } })).categoryID, 100)
        assert.strictEqual(
          (yield* Effect.flip(api.Categories.getCategoryByRef({ path: { categoryID: 999 } })))._tag,
          "NotFound"
        )
        // the wire form carries no internal fields (the realm type)
        const wire = yield* get("/v2/processing/categories/1", m.apiKey)
        assert.strictEqual(wire.status, 200)
        assert.deepStrictEqual(Object.keys(wire.json).sort(), ["categoryID", "description", "name"])
        const unknown = yield* get("/v2/processing/categories/999", m.apiKey)
        assert.strictEqual(unknown.status, 404)
        assert.deepStrictEqual(Object.keys(unknown.json), ["message"])
        for (const bad of ["abc", "1.5", "99999999999"]) {
          const wrong = yield* get(`/v2/processing/categories/${bad}`, m.apiKey)
          assert.strictEqual(wrong.status, 400, bad)
          assert.strictEqual(wrong.json.code, "invalidRequest")
          assert.isString(wrong.json.message)
        }
      }))

    it.effect("categories need Authorization (401 without)", () =>
      Effect.gen(function*() {
        const anonymous = yield* TestServer.client()
        assert.strictEqual((yield* Effect.flip(anonymous.Categories.getCategories()))._tag, "Unauthorized")
        for (const path of ["/v2/processing/categories", "/v2/processing/categories/1"]) {
          const wire = yield* get(path)
          assert.strictEqual(wire.status, 401, path)
          assert.strictEqual(wire.text, "")
        }
      }))

    it.effect("getCountries and getCountryByID need no Authorization", () =>
      Effect.gen(function*() {
        const api = yield* TestServer.client()
        const countries = yield* api.Countries.getCountries()
        assert.strictEqual(countries.length, 249)
        assert.deepStrictEqual(
          yield* api.Countries.getCountryByID({ path: { countryID: "RUS" } }),
          { id: "RUS", name: "Russian Federation", tradeBlocs: ["EAEU", "CIS"] }
        )
        assert.deepStrictEqual(countries.find((c) => c.id === "RUS"), { id: "RUS", name: "Russian Federation", tradeBlocs: ["EAEU", "CIS"] })
        assert.strictEqual(
          (yield* Effect.flip(api.Countries.getCountryByID({ path: { countryID: "ZZZ" } })))._tag,
          "NotFound"
        )
        const zzz = yield* get("/v2/processing/countries/ZZZ")
        assert.strictEqual(zzz.status, 404)
        assert.deepStrictEqual(Object.keys(zzz.json), ["message"])
        for (const bad of ["rus", "RU", "RUSS", "R1S"]) {
          const wrong = yield* get(`/v2/processing/countries/${bad}`)
          assert.strictEqual(wrong.status, 400, bad)
          assert.strictEqual(wrong.json.code, "invalidRequest")
        }
        const wire = yield* get("/v2/processing/countries")
        assert.strictEqual(wire.status, 200)
        assert.strictEqual(wire.json.length, 249)
      }))

    it.effect("getTradeBlocs and getTradeBlocByID need no Authorization", () =>
      Effect.gen(function*() {
        const api = yield* TestServer.client()
        const blocs = yield* api.TradeBlocs.getTradeBlocs()
        assert.strictEqual(blocs.length, 9)
        assert.includeMembers(blocs.map((b) => b.id), ["EAEU", "EU", "EEA", "EFTA", "CIS"])
        const eaeu = yield* api.TradeBlocs.getTradeBlocByID({ path: { tradeBlocID: "EAEU" } })
        assert.strictEqual(eaeu.name, "Eurasian Economic Union")
        assert.deepStrictEqual(eaeu, blocs.find((b) => b.id === "EAEU"))
        assert.strictEqual(
          (yield* Effect.flip(api.TradeBlocs.getTradeBlocByID({ path: { tradeBlocID: "NOPE" } })))._tag,
          "NotFound"
        )
        assert.strictEqual((yield* get("/v2/processing/tradeblocs")).status, 200)
        assert.strictEqual((yield* get("/v2/processing/tradeblocs/NOPE")).status, 404)
      }))

    it.effect("getPaymentInstitutions with residence and realm filters", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const ids = (urlParams: { residence?: string; realm?: "test" | "live" }) =>
          Effect.map(api.PaymentInstitutions.getPaymentInstitutions({ urlParams }), (list) => list.map((p) => p.id))
        assert.deepStrictEqual(yield* ids({}), [1, 2, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS" }), [1, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "USA" }), [2])
        assert.deepStrictEqual(yield* ids({ residence: "KAZ" }), [1, 101])
        assert.deepStrictEqual(yield* ids({ residence: "BRA" }), [])
        assert.deepStrictEqual(yield* ids({ realm: "test" }), [1, 2])
        assert.deepStrictEqual(yield* ids({ realm: "live" }), [100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS", realm: "live" }), [100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "DEU", realm: "live" }), [])

        const wire = yield* get("/v2/processing/payment-institutions?residence=RUS&realm=test", m.apiKey)
        assert.strictEqual(wire.status, 200)
        assert.strictEqual(wire.json.length, 1)
        // the wire form is the interface's, without the internal terms
        assert.deepStrictEqual(Object.keys(wire.json[0]).sort(), ["description", "id", "name", "realm", "residences"])
        assert.deepStrictEqual(wire.json[0].residences, ["RUS", "BLR", "KAZ", "ARM", "KGZ"])

        for (const query of ["realm=sandbox", "residence=rus", "residence=RUSSIA"]) {
          const bad = yield* get(`/v2/processing/payment-institutions?${query}`, m.apiKey)
          assert.strictEqual(bad.status, 400, query)
          assert.strictEqual(bad.json.code, "invalidRequest")
        }
        assert.strictEqual((yield* get("/v2/processing/payment-institutions")).status, 401)
      }))

    it.effect("getPaymentInstitutionByRef and getPaymentInstitutionPaymentTerms", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const pi = yield* api.PaymentInstitutions.getPaymentInstitutionByRef({ path: { paymentInstitutionID: 1 } })
        assert.strictEqual(pi.id, 1)
        assert.strictEqual(pi.name, "Kassa Test")
        assert.strictEqual(pi.realm, "test")
        assert.deepStrictEqual(
          yield* api.PaymentInstitutions.getPaymentInstitutionPaymentTerms({ path: { paymentInstitutionID: 1 } }),
          { currencies: ["RUB", "USD", "EUR", "KZT", "BYN"], categories: [1, 2, 3, 4, 5] }
        )
        const terms = yield* get("/v2/processing/payment-institutions/100/terms/payments", m.apiKey)
        assert.deepStrictEqual(terms.json, {
          currencies: ["RUB"],
          categories: [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114]
        })
        for (
          const call of [
            Effect.asVoid(api.PaymentInstitutions.getPaymentInstitutionByRef({ path: { paymentInstitutionID: 3 } })),
            Effect.asVoid(api.PaymentInstitutions.getPaymentInstitutionPaymentTerms({ path: { paymentInstitutionID: 3 } })),
            Effect.asVoid(
              api.PaymentInstitutions.getPaymentInstitutionPayoutMethods({ path: { paymentInstitutionID: 3 }, urlParams: {} })
            ),
            Effect.asVoid(
              api.PaymentInstitutions.getPaymentInstitutionPayoutSchedules({ path: { paymentInstitutionID: 3 }, urlParams: {} })
            )
          ]
        ) {
          assert.strictEqual((yield* Effect.flip(call))._tag, "NotFound")
        }
        assert.strictEqual((yield* get("/v2/processing/payment-institutions/abc", m.apiKey)).status, 400)
        assert.strictEqual((yield* get("/v2/processing/payment-institutions/1")).status, 401)
      }))

    it.effect("getPaymentInstitutionPayoutMethods filters by currency", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const methods = (paymentInstitutionID: number, currency?: string) =>
          api.PaymentInstitutions.getPaymentInstitutionPayoutMethods({
            path: { paymentInstitutionID },
            urlParams: currency === undefined ? {} : { currency }
          })
        assert.deepStrictEqual(yield* methods(1), ["BankAccount", "InternationalBankAccount"])
        assert.deepStrictEqual(yield* methods(1, "RUB"), ["BankAccount", "InternationalBankAccount"])
        assert.deepStrictEqual(yield* methods(1, "GBP"), [])
        assert.deepStrictEqual(yield* methods(2, "GBP"), ["InternationalBankAccount"])
        assert.deepStrictEqual(yield* methods(100), ["BankAccount"])
        assert.deepStrictEqual(yield* methods(100, "USD"), [])
        const bad = yield* get("/v2/processing/payment-institutions/1/terms/payouts/methods?currency=rub", m.apiKey)
        assert.strictEqual(bad.status, 400)
        assert.strictEqual(bad.json.code, "invalidRequest")
      }))

    it.effect("getPaymentInstitutionPayoutSchedules filters by currency and payout method", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const schedules = (
          paymentInstitutionID: number,
          urlParams: { currency?: string; payoutMethod?: "BankAccount" | "InternationalBankAccount" } = {}
        ) => api.PaymentInstitutions.getPaymentInstitutionPayoutSchedules({ path: { paymentInstitutionID }, urlParams })
        assert.deepStrictEqual(yield* schedules(1), [1, 2, 3])
        assert.deepStrictEqual(yield* schedules(100), [1, 2, 3, 4])
        assert.deepStrictEqual(yield* schedules(100, { currency: "RUB" }), [1, 2, 3, 4])
        assert.deepStrictEqual(yield* schedules(100, { currency: "USD" }), [])
        assert.deepStrictEqual(yield* schedules(100, { payoutMethod: "BankAccount" }), [1, 2, 3, 4])
        assert.deepStrictEqual(yield* schedules(100, { payoutMethod: "InternationalBankAccount" }), [])
        assert.deepStrictEqual(yield* schedules(2, { currency: "EUR", payoutMethod: "InternationalBankAccount" }), [1, 2, 3])
        const bad = yield* get("/v2/processing/payment-institutions/1/terms/payouts/schedules?payoutMethod=Cash", m.apiKey)
        assert.strictEqual(bad.status, 400)
      }))

    it.effect("getScheduleByRef", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const api = yield* TestServer.client(m.apiKey)
        const schedule = yield* api.Payouts.getScheduleByRef({ path: { scheduleID: 4 } })
        assert.strictEqual(schedule.scheduleID, 4)
        assert.strictEqual(schedule.name, "Twice a month (1st and 16th)")
        assert.isString(schedule.description)
        assert.strictEqual((yield* api.Payouts.getScheduleByRef({ path: { scheduleID: 1 } })).name, "Daily")
        assert.strictEqual((yield* Effect.flip(api.Payouts.getScheduleByRef({ path: { scheduleID: 99 } })))._tag, "NotFound")
        assert.strictEqual((yield* get("/v2/processing/schedules/x", m.apiKey)).status, 400)
        assert.strictEqual((yield* get("/v2/processing/schedules/1")).status, 401)
      }))

    it.effect("getServiceProviderByID needs no Authorization", () =>
      Effect.gen(function*() {
        const api = yield* TestServer.client()
        const qiwi = yield* api.ServiceProviders.getServiceProviderByID({ path: { serviceProviderID: "qiwi" } })
        assert.strictEqual(qiwi.id, "qiwi")
        assert.strictEqual(qiwi.brandName, "QIWI Wallet")
        assert.strictEqual(qiwi.category, "wallet")
        assert.deepStrictEqual((qiwi.metadata as any).checkout.localization.name.en_US, "QIWI Wallet")
        assert.strictEqual(
          (yield* Effect.flip(api.ServiceProviders.getServiceProviderByID({ path: { serviceProviderID: "nope" } })))._tag,
          "NotFound"
        )
        const tooLong = yield* get(`/v2/processing/service-providers/${"x".repeat(101)}`)
        assert.strictEqual(tooLong.status, 400)
        assert.strictEqual((yield* get(`/v2/processing/service-providers/${"x".repeat(100)}`)).status, 404)
      }))

    it.effect("an access token may read the reference data", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        // an operator token does not open the merchant side, reference data included
        assert.strictEqual((yield* Effect.flip(operator.Categories.getCategories()))._tag, "Unauthorized")
        const api = yield* TestServer.client(m.apiKey)
        assert.strictEqual((yield* api.Categories.getCategories()).length, 20)
      }))
  })
}
