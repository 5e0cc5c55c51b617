/**
 * What the wallet service tests start from, made through the services: an identity, a wallet,
 * a deposit that succeeded, and the wallet's balance.
 */
import { DepositService } from "@kassa/core/deposit/DepositService"
import { DestinationService } from "@kassa/core/destination/DestinationService"
import { BankCards } from "@kassa/core/payres/BankCards"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import { WalletService } from "@kassa/core/wallet/WalletService"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { assert } from "@effect/vitest"
import { settle } from "./MemoryKassa.js"

/** An identity of the party on provider `test`. */
export const identity = (partyID: string, name = "Ivan") =>
  Effect.flatMap(IdentityService, (s) => s.create(partyID, { name, provider: "test" }))

/** A wallet of a new identity of the party. */
export const wallet = (partyID: string, currency = "RUB") =>
  Effect.gen(function*() {
    const i = yield* identity(partyID)
    return yield* (yield* WalletService).create(partyID, { name: "Main", identity: i.id, currency })
  })

/** The operator's deposit of `amount` into the wallet, settled. */
export const deposit = (walletID: string, amount: number, currency = "RUB") =>
  Effect.gen(function*() {
    const d = yield* (yield* DepositService).create({ wallet: walletID, source: "src-1", body: { amount, currency } })
    yield* settle
    return d
  })

/** `{own, available}` of the wallet. */
export const balance = (partyID: string, walletID: string) =>
  Effect.map(Effect.flatMap(WalletService, (s) => s.account(partyID, walletID)), (a) => ({ own: a.own.amount, available: a.available.amount }))

/** The 422 message the effect fails with (it must fail with an `InvalidOperation`). */
export const refusal = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(effect), (result) => {
    if (Either.isRight(result)) return assert.fail("expected an InvalidOperation, the call succeeded")
    const error = result.left as { readonly _tag?: unknown; readonly message?: unknown }
    if (error._tag !== "InvalidOperation") return assert.fail(`expected an InvalidOperation, got ${String(error._tag)}`)
    return error.message as string
  })

/** A destination of a new identity of the party (provider `test` unless given) to `card`, authorized when the provider says so. */
export const destination = (partyID: string, card = "4242424242424242", currency = "RUB", provider = "test") =>
  Effect.gen(function*() {
    const i = yield* (yield* IdentityService).create(partyID, { name: "Payee", provider })
    const token = yield* (yield* BankCards).store(partyID, { cardNumber: card, expDate: "12/30" })
    const d = yield* (yield* DestinationService).create(partyID, {
      name: "Card",
      identity: i.id,
      currency,
      resource: { type: "BankCardDestinationResource", token: token.token }
    })
    yield* settle
    return d
  })
