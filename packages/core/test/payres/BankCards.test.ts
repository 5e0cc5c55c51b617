/**
 * The card-token service on the memory ports, its tokens' life kept by the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Errors } from "@kassa/core"
import * as MemoryPorts from "@kassa/core/memory/MemoryPorts"
import { MemoryStore } from "@kassa/core/memory/MemoryStore"
import { BankCards, TOKEN_LIFETIME_MS } from "@kassa/core/payres/BankCards"
import { CardVault } from "@kassa/core/ports/CardVault"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { referenceSet } from "../support/ReferenceSet.js"

const START = Date.UTC(2026, 0, 15, 12)

const kassa = BankCards.Default.pipe(
  Layer.provideMerge(MemoryPorts.layerMemory({ reference: referenceSet })),
  Layer.provideMerge(Layer.effectDiscard(TestClock.setTime(START)))
)

const run = <A, E>(effect: Effect.Effect<A, E, BankCards | CardVault | MemoryStore>) => Effect.provide(effect, kassa)

describe("BankCards", () => {
  it.effect("stores a card in the vault and answers a token that shows only its BIN, last digits and system", () =>
    run(Effect.gen(function*() {
      const cards = yield* BankCards
      const stored = yield* cards.store("party-1", { cardNumber: "4242424242424242", expDate: "12/30", cvv: "123" })
      assert.match(stored.token, /^bc\./)
      assert.deepStrictEqual(
        { bin: stored.bin, lastDigits: stored.lastDigits, paymentSystem: stored.paymentSystem },
        { bin: "424242", lastDigits: "4242", paymentSystem: "visa" }
      )
      assert.strictEqual(stored.validUntil.getTime(), START + TOKEN_LIFETIME_MS)
      assert.notInclude(JSON.stringify(stored), "4242424242424242")
      // authData names the vault session that holds the CVV
      assert.isString(stored.authData)
      const vault = yield* CardVault
      assert.deepStrictEqual(yield* vault.getSession(stored.authData!), Option.some({ cvv: "123" }))
      const resolved = yield* cards.resolve("party-1", stored.token)
      assert.deepStrictEqual(
        Option.map(yield* vault.getCard(resolved.vaultToken), (c) => c.cardNumber),
        Option.some("4242424242424242")
      )
      assert.deepStrictEqual(yield* cards.get("party-1", stored.token), {
        token: stored.token,
        bin: "424242",
        lastDigits: "4242",
        paymentSystem: "visa",
        validUntil: stored.validUntil
      })
    })))

  it.effect("without a CVV there is no authData", () =>
    run(Effect.gen(function*() {
      const stored = yield* (yield* BankCards).store("party-1", { cardNumber: "5555555555554444", expDate: "01/2031" })
      assert.isUndefined(stored.authData)
      assert.strictEqual(stored.paymentSystem, "mastercard")
    })))

  it.effect("a token lives 64 minutes, then reads as not found and resolves as an invalid resource token", () =>
    run(Effect.gen(function*() {
      const cards = yield* BankCards
      const stored = yield* cards.store("party-1", { cardNumber: "2200000000000004", expDate: "12/30" })
      assert.strictEqual(stored.paymentSystem, "nspkmir")
      yield* TestClock.adjust(TOKEN_LIFETIME_MS - 1)
      assert.strictEqual((yield* cards.get("party-1", stored.token)).token, stored.token)
      yield* TestClock.adjust(1)
      assert.instanceOf(yield* Effect.flip(cards.get("party-1", stored.token)), Errors.NotFound)
      const invalid = yield* Effect.flip(cards.resolve("party-1", stored.token))
      assert.instanceOf(invalid, Errors.InvalidParameter)
      assert.strictEqual((invalid as Errors.InvalidParameter).errorType, "InvalidResourceToken")
    })))

  it.effect("another party's token and an unknown one read as not found", () =>
    run(Effect.gen(function*() {
      const cards = yield* BankCards
      const stored = yield* cards.store("party-1", { cardNumber: "4242424242424242", expDate: "12/30" })
      assert.instanceOf(yield* Effect.flip(cards.get("party-2", stored.token)), Errors.NotFound)
      assert.instanceOf(yield* Effect.flip(cards.get("party-1", "bc.nope")), Errors.NotFound)
      assert.instanceOf(yield* Effect.flip(cards.resolve("party-2", stored.token)), Errors.InvalidParameter)
    })))

  it.effect("refused cards answer the interface's messages and keep nothing", () =>
    run(Effect.gen(function*() {
      const cards = yield* BankCards
      const vault = yield* CardVault
      const bad = yield* Effect.flip(cards.store("party-1", { cardNumber: "4242424242424241", expDate: "12/30", cvv: "123" }))
      assert.instanceOf(bad, Errors.InvalidBankCard)
      assert.strictEqual(bad.message, "Card data is invalid")
      const unsupported = yield* Effect.flip(cards.store("party-1", { cardNumber: "9000000000000001", expDate: "12/30" }))
      assert.strictEqual(unsupported.message, "Unsupported card")
      const store = yield* MemoryStore
      assert.strictEqual((yield* store.table("vault_cards").values).length, 0)
      assert.strictEqual((yield* store.table("vault_sessions").values).length, 0)
      assert.strictEqual((yield* store.table("bank_card_tokens").values).length, 0)
      assert.isDefined(vault)
    })))
})
