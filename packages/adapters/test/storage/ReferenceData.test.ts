import { assert, layer } from "@effect/vitest"
import { ReferenceData } from "@kassa/core/ports/ReferenceData"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: reference data [${backend}]`, (it) => {
    it.effect("ReferenceData serves the data set", () =>
      Effect.gen(function*() {
        const ref = yield* ReferenceData
        const countries = yield* ref.countries
        assert.strictEqual(countries.length, 249)
        assert.strictEqual(new Set(countries.map((c) => c.id)).size, 249)
        assert.isTrue(countries.every((c) => /^[A-Z]{3}$/.test(c.id)))
        assert.deepStrictEqual(yield* ref.country("RUS"), Option.some({ id: "RUS", name: "Russian Federation", tradeBlocs: ["EAEU", "CIS"] }))
        assert.isTrue(Option.isNone(yield* ref.country("ZZZ")))
        const blocs = yield* ref.tradeBlocs
        assert.strictEqual(blocs.length, 9)
        assert.strictEqual(Option.getOrThrow(yield* ref.tradeBloc("EAEU")).name, "Eurasian Economic Union")
        assert.isTrue(Option.isNone(yield* ref.tradeBloc("NOPE")))
        // every bloc a country names exists
        const blocIDs = new Set(blocs.map((b) => b.id))
        for (const c of countries) for (const b of c.tradeBlocs ?? []) assert.isTrue(blocIDs.has(b), `${c.id} ${b}`)

        const categories = yield* ref.categories
        assert.strictEqual(categories.length, 20)
        assert.deepStrictEqual(categories.filter((c) => c.type === "test").map((c) => c.categoryID), [1, 2, 3, 4, 5])
        assert.strictEqual(Option.getOrThrow(yield* ref.category(1)).type, "test")
        assert.isTrue(Option.isNone(yield* ref.category(999)))

        const pi = Option.getOrThrow(yield* ref.paymentInstitution(1))
        assert.strictEqual(pi.realm, "test")
        assert.deepStrictEqual(pi.terms.currencies, ["RUB", "USD", "EUR", "KZT", "BYN"])
        assert.deepStrictEqual(pi.payoutSchedules, [1, 2, 3])
        assert.isTrue(Option.isNone(yield* ref.paymentInstitution(3)))

        const ids = (filter: Parameters<typeof ref.paymentInstitutions>[0]) =>
          Effect.map(ref.paymentInstitutions(filter), (list) => list.map((p) => p.id))
        assert.deepStrictEqual(yield* ids({}), [1, 2, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS" }), [1, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "USA" }), [2])
        assert.deepStrictEqual(yield* ids({ realm: "test" }), [1, 2])
        assert.deepStrictEqual(yield* ids({ realm: "live" }), [100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS", realm: "test" }), [1])
        assert.deepStrictEqual(yield* ids({ residence: "KAZ", realm: "live" }), [101])
        assert.deepStrictEqual(yield* ids({ residence: "ZZZ" }), [])

        assert.deepStrictEqual((yield* ref.schedules).map((s) => s.scheduleID), [1, 2, 3, 4])
        const qiwi = Option.getOrThrow(yield* ref.serviceProvider("qiwi"))
        assert.strictEqual(qiwi.brandName, "QIWI Wallet")
        assert.strictEqual(qiwi.category, "wallet")
        assert.deepStrictEqual((qiwi.metadata as any).checkout.brandLogo, { banner: "/assets/qiwi.svg" })
        assert.isTrue(Option.isNone(yield* ref.serviceProvider("nope")))
      }))
  })
}
