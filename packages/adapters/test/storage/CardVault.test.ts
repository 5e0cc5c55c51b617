import { assert, layer } from "@effect/vitest"
import { CardVault } from "@kassa/core/ports/CardVault"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { backends, kassa } from "./backends.js"

/** A card number of its own for each test (Luhn does not matter to the vault). */
let n = 0
const aCard = () => ({
  cardNumber: `4000${String(Math.floor(Math.random() * 1e8)).padStart(8, "0")}${String(++n).padStart(4, "0")}`,
  expMonth: 12,
  expYear: 2040
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: card vault [${backend}]`, (it) => {
    it.effect("a card is stored once: the same number answers the same token, and a reissue replaces its data", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const card = aCard()
        const stored = yield* vault.putCard(card)
        assert.deepStrictEqual([stored.bin, stored.last4], [card.cardNumber.slice(0, 6), card.cardNumber.slice(-4)])
        assert.isFalse(JSON.stringify(stored).includes(card.cardNumber))
        assert.deepStrictEqual(yield* vault.getCard(stored.token), Option.some(card))
        const reissued = { ...card, expYear: 2041, cardHolder: "A HOLDER" }
        assert.strictEqual((yield* vault.putCard(reissued)).token, stored.token)
        assert.deepStrictEqual(yield* vault.getCard(stored.token), Option.some(reissued))
        assert.notStrictEqual((yield* vault.putCard(aCard())).token, stored.token)
        assert.isTrue(Option.isNone(yield* vault.getCard("no-such-token")))
      }))

    it.effect("a session secret lives until it expires or is erased", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const now = yield* Clock.currentTimeMillis
        const card = aCard()
        const { card: stored, session } = yield* vault.putCardAndSession(card, { cvv: "123" }, new Date(now + 1_000))
        assert.deepStrictEqual(yield* vault.getSession(session), Option.some({ cvv: "123" }))
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(stored.token, session),
          Option.some({ card, secret: Option.some({ cvv: "123" }) })
        )
        assert.deepStrictEqual(yield* vault.getCardAndSession(stored.token, undefined), Option.some({ card, secret: Option.none() }))
        yield* TestClock.adjust("1 second")
        assert.isTrue(Option.isNone(yield* vault.getSession(session)))
        assert.deepStrictEqual(yield* vault.getCardAndSession(stored.token, session), Option.some({ card, secret: Option.none() }))

        const later = yield* Clock.currentTimeMillis
        const other = yield* vault.putSession({ cvv: "999" }, new Date(later + 60_000))
        assert.deepStrictEqual(yield* vault.getSession(other), Option.some({ cvv: "999" }))
        yield* vault.deleteSession(other)
        assert.isTrue(Option.isNone(yield* vault.getSession(other)))
        assert.isTrue(Option.isNone(yield* vault.getCardAndSession("no-such-token", other)))
      }))

    it.effect("a key rotation keeps every card and session readable", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const now = yield* Clock.currentTimeMillis
        const card = aCard()
        const { card: stored, session } = yield* vault.putCardAndSession(card, { cvv: "321" }, new Date(now + 60_000))
        yield* vault.rotateKey
        assert.deepStrictEqual(yield* vault.getCardAndSession(stored.token, session), Option.some({ card, secret: Option.some({ cvv: "321" }) }))
        const after = aCard()
        assert.deepStrictEqual(yield* vault.getCard((yield* vault.putCard(after)).token), Option.some(after))
      }))
  })
}
