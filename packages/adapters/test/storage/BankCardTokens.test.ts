import { assert, layer } from "@effect/vitest"
import { type BankCardTokenRecord, BankCardTokenRepository } from "@kassa/core/ports/BankCardTokenRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"

let n = 0
const aToken = (authData: string | undefined): BankCardTokenRecord => ({
  token: `bc.storage-${process.pid}-${++n}-${Math.floor(Math.random() * 1e9)}`,
  partyID: "party-1",
  vaultToken: `vault-${n}`,
  bin: "424242",
  lastDigits: "4242",
  paymentSystem: "visa",
  authData,
  createdAt: new Date(Date.UTC(2026, 0, 15, 12, 0, 0, 123)),
  validUntil: new Date(Date.UTC(2026, 0, 15, 13, 4, 0, 123))
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: card tokens [${backend}]`, (it) => {
    it.effect("a card token reads back as written, with or without authData; an unknown one is none", () =>
      Effect.gen(function*() {
        const tokens = yield* BankCardTokenRepository
        const withCvv = aToken("session-1")
        const without = aToken(undefined)
        yield* tokens.insert(withCvv)
        yield* tokens.insert(without)
        assert.deepStrictEqual(yield* tokens.findByToken(withCvv.token), Option.some(withCvv))
        const read = yield* tokens.findByToken(without.token)
        assert.isTrue(Option.isSome(read))
        assert.deepStrictEqual({ ...Option.getOrThrow(read), authData: undefined }, without)
        assert.isUndefined(Option.getOrThrow(read).authData)
        assert.isTrue(Option.isNone(yield* tokens.findByToken("bc.none")))
      }))
  })
}
