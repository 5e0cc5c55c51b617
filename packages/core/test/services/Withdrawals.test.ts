/**
 * Destinations and withdrawals on the memory ports under the TestClock: a destination's
 * authorization by the test payout provider, a withdrawal's hold, payout and settling for each
 * of the provider's cards, retries while it is unavailable, grants, every refusal, lists and
 * events, and that `available` never goes below zero however many withdrawals run at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { DestinationService } from "@kassa/core/destination/DestinationService"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import * as TestPayoutProvider from "@kassa/core/memory/TestPayoutProvider"
import { BankCards } from "@kassa/core/payres/BankCards"
import * as Settings from "@kassa/core/Settings"
import { WalletService } from "@kassa/core/wallet/WalletService"
import { toWithdrawal } from "@kassa/core/withdrawal/Withdrawal"
import { type ListParams, MAX_ATTEMPTS, WithdrawalService } from "@kassa/core/withdrawal/WithdrawalService"
import * as Effect from "effect/Effect"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"
import { balance, deposit, destination, identity, refusal, wallet } from "../support/WalletArrange.js"

const rub = (amount: number) => ({ amount, currency: "RUB" })
const RECOVERY = Settings.defaults.recoveryDelayMs

/** A wallet of the party holding `funds`, and an authorized destination of the party to `card`. */
const funded = (partyID: string, funds: number, card = "4242424242424242") =>
  Effect.gen(function*() {
    const w = yield* wallet(partyID)
    if (funds > 0) yield* deposit(w.id, funds)
    const d = yield* destination(partyID, card)
    return { w, d }
  })

describe("DestinationService", () => {
  it.effect("a card destination starts Unauthorized, the provider authorizes it; what the token stood for stays", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* DestinationService
      const i = yield* identity(m.partyID)
      const card = yield* (yield* BankCards).store(m.partyID, { cardNumber: "5555555555554444", expDate: "12/30" })
      const params = {
        name: "Card",
        identity: i.id,
        currency: "RUB",
        resource: { type: "BankCardDestinationResource" as const, token: card.token },
        externalID: "d-1"
      }
      const d = yield* s.create(m.partyID, params)
      assert.strictEqual(d.status, "Unauthorized")
      assert.deepStrictEqual(d.resource, {
        type: "BankCardDestinationResource",
        token: card.token,
        bin: "555555",
        lastDigits: "4444",
        paymentSystem: "mastercard"
      })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(m.partyID, d.id)).status, "Authorized")
      // the same externalID answers the original; other parameters conflict
      assert.strictEqual((yield* s.create(m.partyID, params)).id, d.id)
      assert.deepInclude(yield* Effect.flip(s.create(m.partyID, { ...params, name: "Other" })), { _tag: "ExternalIdConflict", id: d.id })
      assert.strictEqual((yield* s.getByExternalID(m.partyID, "d-1")).id, d.id)
      assert.strictEqual((yield* Effect.flip(s.getByExternalID(other.partyID, "d-1")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.get(other.partyID, d.id)))._tag, "NotFound")
      // the destination outlives its card token
      yield* MemoryKassa.elapse("2 hours")
      assert.strictEqual((yield* s.get(m.partyID, d.id)).resource.lastDigits, "4444")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("the provider's unauthorized card stays Unauthorized, after its timer too", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const d = yield* destination(m.partyID, TestPayoutProvider.cards.unauthorized)
      yield* MemoryKassa.elapse(RECOVERY * 3)
      assert.strictEqual((yield* (yield* DestinationService).get(m.partyID, d.id)).status, "Unauthorized")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("refusals: No such identity, Identity inaccessible, Currency not supported, Resource type not allowed, a bad token", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* DestinationService
      const i = yield* identity(m.partyID)
      const token = (yield* (yield* BankCards).store(m.partyID, { cardNumber: "4242424242424242", expDate: "12/30" })).token
      const card = { type: "BankCardDestinationResource" as const, token }
      const base = { name: "Card", identity: i.id, currency: "RUB", resource: card }
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...base, identity: "nope" })), "No such identity")
      assert.strictEqual(yield* refusal(s.create(other.partyID, base)), "No such identity")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...base, currency: "JPY" })), "Currency not supported")
      assert.strictEqual(
        yield* refusal(s.create(m.partyID, { ...base, resource: { type: "CryptoWalletDestinationResource", id: "zzzzzzzzzzzzzzzzzz", currency: "BTC" } })),
        "Resource type not allowed"
      )
      assert.deepInclude(yield* Effect.flip(s.create(m.partyID, { ...base, resource: { ...card, token: "bad" } })), {
        _tag: "InvalidParameter",
        errorType: "InvalidResourceToken"
      })
      // a token of another party's is no token of this one's
      const theirs = (yield* (yield* BankCards).store(other.partyID, { cardNumber: "4242424242424242", expDate: "12/30" })).token
      assert.deepInclude(yield* Effect.flip(s.create(m.partyID, { ...base, resource: { ...card, token: theirs } })), {
        errorType: "InvalidResourceToken"
      })
      yield* (yield* IdentityService).setBlocked(i.id, true)
      assert.strictEqual(yield* refusal(s.create(m.partyID, base)), "Identity inaccessible")
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10 })).result.length, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("lists filter by identity and currency, and page; a grant is signed and expires, an expired one is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* DestinationService
      const a = yield* destination(m.partyID)
      yield* destination(m.partyID, "5555555555554444", "USD")
      yield* destination(m.partyID, "2200000000000004")
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10 })).result.length, 3)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, currencyID: "RUB" })).result.length, 2)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, identityID: a.identityID })).result.length, 1)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, partyID: "other" })).result.length, 0)
      const page = yield* s.list(m.partyID, { limit: 2 })
      assert.strictEqual(page.result.length, 2)
      assert.isString(page.continuationToken)
      const at = new Date(MemoryKassa.START + 3_600_000)
      const grant = yield* s.issueGrant(m.partyID, a.id, { validUntil: at })
      assert.deepStrictEqual(grant.validUntil, at)
      assert.isTrue(yield* s.granted(grant.token, a.id))
      assert.isFalse(yield* s.granted(grant.token, "another"))
      assert.strictEqual(yield* refusal(s.issueGrant(m.partyID, a.id, { validUntil: new Date(MemoryKassa.START - 1) })), "Invalid expiration: already expired")
      yield* MemoryKassa.elapse("2 hours")
      assert.isFalse(yield* s.granted(grant.token, a.id))
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("WithdrawalService", () => {
  it.effect("terms as they stand: a payment system the operator forbids leaves the methods and refuses its destinations; a card of an unknown issuer is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const identities = yield* IdentityService
      const s = yield* WithdrawalService
      const { w, d } = yield* funded(m.partyID, 5_000, "2200000000000004")
      const ok = { wallet: w.id, destination: d.id, body: rub(1000) }
      yield* identities.setPaymentSystemAllowed("test", "nspkmir", false)
      assert.deepStrictEqual((yield* identities.getWithdrawalMethods(m.partyID, w.identityID)).methods, [
        { method: "WithdrawalMethodBankCard", paymentSystems: ["visa", "mastercard"] }
      ])
      assert.strictEqual(yield* refusal(s.create(m.partyID, ok)), "Destination uses resource no longer allowed")
      assert.strictEqual(yield* refusal(destination(m.partyID, "2200000000000004")), "Resource type not allowed")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 5_000, available: 5_000 })
      assert.strictEqual((yield* Effect.flip(identities.setPaymentSystemAllowed("test", "amex", false)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(identities.setPaymentSystemAllowed("nope", "visa", false)))._tag, "NotFound")
      yield* identities.setPaymentSystemAllowed("test", "nspkmir", true)
      assert.strictEqual((yield* s.create(m.partyID, ok)).status, "Pending")
      const unknown = yield* destination(m.partyID, TestPayoutProvider.cards.unknownIssuer)
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, destination: unknown.id })), "Unknown card issuer")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("202 Pending with the hold of body + fee, then paid out: Succeeded, the plan committed, two events", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 10_000)
      const x = yield* s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000), externalID: "x-1", metadata: { a: 1 } })
      // the test terms' fee: 10 + 1 % of the body
      assert.deepInclude(toWithdrawal(x), { status: "Pending", body: rub(1000), fee: rub(20), wallet: w.id, destination: d.id })
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 10_000, available: 8_980 })
      yield* MemoryKassa.settle
      const done = yield* s.get(m.partyID, x.id)
      assert.strictEqual(done.status, "Succeeded")
      assert.strictEqual(done.attempts, 1)
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 8_980, available: 8_980 })
      const events = yield* s.events(m.partyID, x.id, { limit: 10 })
      assert.deepStrictEqual(events.map((e) => [e.eventID, e.changes[0]!.status]), [[1, "Pending"], [2, "Succeeded"]])
      assert.deepStrictEqual((yield* s.events(m.partyID, x.id, { limit: 10, eventCursor: 1 })).map((e) => e.eventID), [2])
      assert.deepStrictEqual((yield* s.events(m.partyID, x.id, { limit: 1 })).map((e) => e.eventID), [1])
      assert.strictEqual((yield* s.event(m.partyID, x.id, 2)).changes[0]!.type, "WithdrawalStatusChanged")
      assert.strictEqual((yield* Effect.flip(s.event(m.partyID, x.id, 3)))._tag, "NotFound")
      // externalID: the original, or a conflict
      assert.strictEqual((yield* s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000), externalID: "x-1", metadata: { a: 1 } })).id, x.id)
      assert.deepInclude(yield* Effect.flip(s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(999), externalID: "x-1" })), {
        _tag: "ExternalIdConflict",
        id: x.id
      })
      assert.strictEqual((yield* s.getByExternalID(m.partyID, "x-1")).id, x.id)
      const other = yield* Arrange.merchantNamed("other")
      assert.strictEqual((yield* Effect.flip(s.get(other.partyID, x.id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.events(other.partyID, x.id, { limit: 10 })))._tag, "NotFound")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a rejected card fails with the provider's nested failure and the wallet keeps its money", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 5_000, "4000000100000019")
      const x = yield* s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000) })
      yield* MemoryKassa.settle
      assert.deepInclude(toWithdrawal(yield* s.get(m.partyID, x.id)), {
        status: "Failed",
        failure: {
          code: "authorization_failed",
          subError: { code: "destination_rejected", subError: { code: "bank_card_rejected", subError: { code: "card_number_invalid" } } }
        }
      })
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 5_000, available: 5_000 })
      assert.deepStrictEqual((yield* s.events(m.partyID, x.id, { limit: 10 })).map((e) => e.changes[0]!.status), ["Pending", "Failed"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("more than available: Failed account_limit_exceeded > amount at once, nothing held", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 1_000)
      // 1000 + a fee of 20 is more than the 1000 the wallet holds
      const x = yield* s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000) })
      assert.deepInclude(toWithdrawal(x), { status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } })
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 1_000, available: 1_000 })
      assert.deepStrictEqual((yield* s.events(m.partyID, x.id, { limit: 10 })).map((e) => e.changes[0]!.status), ["Pending", "Failed"])
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("the card that fails once is paid out by the timer's retry; the always unavailable one fails once attempts run out", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const once = yield* funded(m.partyID, 5_000, TestPayoutProvider.cards.failsOnce)
      const x = yield* s.create(m.partyID, { wallet: once.w.id, destination: once.d.id, body: rub(1000) })
      yield* MemoryKassa.settle
      assert.deepInclude(yield* s.get(m.partyID, x.id), { status: "Pending", attempts: 1 })
      assert.deepStrictEqual(yield* balance(m.partyID, once.w.id), { own: 5_000, available: 3_980 })
      yield* MemoryKassa.elapse(RECOVERY)
      assert.deepInclude(yield* s.get(m.partyID, x.id), { status: "Succeeded", attempts: 2 })
      assert.deepStrictEqual(yield* balance(m.partyID, once.w.id), { own: 3_980, available: 3_980 })

      const never = yield* funded(m.partyID, 5_000, TestPayoutProvider.cards.unavailable)
      const y = yield* s.create(m.partyID, { wallet: never.w.id, destination: never.d.id, body: rub(1000) })
      yield* MemoryKassa.settle
      for (let i = 1; i < MAX_ATTEMPTS; i++) {
        assert.deepInclude(yield* s.get(m.partyID, y.id), { status: "Pending", attempts: i })
        yield* MemoryKassa.elapse(RECOVERY)
      }
      assert.deepInclude(toWithdrawal(yield* s.get(m.partyID, y.id)), {
        status: "Failed",
        failure: { code: "authorization_failed", subError: { code: "temporarily_unavailable" } }
      })
      assert.strictEqual((yield* s.get(m.partyID, y.id)).attempts, MAX_ATTEMPTS)
      assert.deepStrictEqual(yield* balance(m.partyID, never.w.id), { own: 5_000, available: 5_000 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("the slow card's withdrawal stays Pending until the provider answers", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 5_000, TestPayoutProvider.cards.slow)
      const now = MemoryKassa.START + 0
      const x = yield* s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000) })
      yield* MemoryKassa.awaitSleepUntil(now + TestPayoutProvider.SLOW_MS)
      assert.strictEqual((yield* s.get(m.partyID, x.id)).status, "Pending")
      yield* MemoryKassa.elapse(TestPayoutProvider.SLOW_MS)
      assert.strictEqual((yield* s.get(m.partyID, x.id)).status, "Succeeded")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("refusals, each with the interface's words", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 5_000)
      const ok = { wallet: w.id, destination: d.id, body: rub(1000) }
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, wallet: "nope" })), "No such wallet")
      assert.strictEqual(yield* refusal(s.create(other.partyID, ok)), "No such wallet")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, destination: "nope" })), "No such destination")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, body: rub(0) })), "Invalid cash amount")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, body: rub(99) })), "Invalid cash amount")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, body: rub(10_000_001) })), "Invalid cash amount")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, body: { amount: 1000, currency: "USD" } })), "Invalid currency")
      const unauthorized = yield* destination(m.partyID, TestPayoutProvider.cards.unauthorized)
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, destination: unauthorized.id })), "Destination unauthorized")
      const live = yield* destination(m.partyID, "4242424242424242", "RUB", "live")
      assert.strictEqual(
        yield* refusal(s.create(m.partyID, { ...ok, destination: live.id })),
        "This wallet and destination cannot be used together"
      )
      const eur = yield* wallet(m.partyID, "EUR")
      const eurCard = yield* destination(m.partyID, "4242424242424242", "EUR")
      assert.strictEqual(
        yield* refusal(s.create(m.partyID, { wallet: eur.id, destination: eurCard.id, body: { amount: 1000, currency: "EUR" } })),
        "Forbidden currency"
      )
      // another party's wallet or destination needs its grant; a bad one is refused
      assert.strictEqual(yield* refusal(s.create(other.partyID, { ...ok, walletGrant: "forged" })), "No such destination")
      assert.strictEqual(
        yield* refusal(s.create(other.partyID, { ...ok, walletGrant: "forged", destinationGrant: "forged" })),
        "Destination unauthorized"
      )
      yield* (yield* WalletService).setBlocked(w.id, true)
      assert.strictEqual(yield* refusal(s.create(m.partyID, ok)), "Wallet inaccessible")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 5_000, available: 5_000 })
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10 })).result.length, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("grants let another party withdraw, up to the wallet grant's asset; a failed payout gives back what it took", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 10_000)
      const bad = yield* destination(m.partyID, "4000000100000019")
      const validUntil = new Date(MemoryKassa.START + 3_600_000)
      const walletGrant = (yield* (yield* WalletService).issueGrant(m.partyID, w.id, { asset: rub(2_040), validUntil })).token
      const destinationGrant = (yield* (yield* DestinationService).issueGrant(m.partyID, d.id, { validUntil })).token
      const badGrant = (yield* (yield* DestinationService).issueGrant(m.partyID, bad.id, { validUntil })).token
      // to a destination the grant does not name: refused
      assert.strictEqual(
        yield* refusal(s.create(other.partyID, { wallet: w.id, destination: bad.id, body: rub(1000), walletGrant, destinationGrant })),
        "Destination unauthorized"
      )
      // a failed payout gives the grant's share back
      const failing = yield* s.create(other.partyID, { wallet: w.id, destination: bad.id, body: rub(1000), walletGrant, destinationGrant: badGrant })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(other.partyID, failing.id)).status, "Failed")
      const x = yield* s.create(other.partyID, { wallet: w.id, destination: d.id, body: rub(1000), walletGrant, destinationGrant })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(other.partyID, x.id)).status, "Succeeded")
      // the wallet's owner reads it too; nobody else
      assert.deepStrictEqual(yield* s.get(m.partyID, x.id), yield* s.get(other.partyID, x.id))
      const stranger = yield* Arrange.merchantNamed("stranger")
      assert.strictEqual((yield* Effect.flip(s.get(stranger.partyID, x.id)))._tag, "NotFound")
      // 1020 + 1020 is the grant's whole asset; a third is more than it leaves
      yield* s.create(other.partyID, { wallet: w.id, destination: d.id, body: rub(1000), walletGrant, destinationGrant })
      assert.strictEqual(
        yield* refusal(s.create(other.partyID, { wallet: w.id, destination: d.id, body: rub(100), walletGrant, destinationGrant })),
        "Wallet unauthorized"
      )
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 10_000 - 2 * 1_020, available: 10_000 - 2 * 1_020 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("lists filter by wallet, identity, withdrawal, destination, status, dates, amounts and currency, and page", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const a = yield* funded(m.partyID, 10_000)
      const b = yield* funded(m.partyID, 10_000, "4000000100000019")
      const x1 = yield* s.create(m.partyID, { wallet: a.w.id, destination: a.d.id, body: rub(1000) })
      yield* MemoryKassa.elapse("1 minute")
      yield* s.create(m.partyID, { wallet: a.w.id, destination: a.d.id, body: rub(2000) })
      yield* s.create(m.partyID, { wallet: b.w.id, destination: b.d.id, body: rub(3000) })
      yield* MemoryKassa.settle
      const count = (params: Omit<ListParams, "limit">) =>
        Effect.map(s.list(m.partyID, { limit: 10, ...params }), (p) => p.result.length)
      assert.strictEqual(yield* count({}), 3)
      assert.strictEqual(yield* count({ walletID: a.w.id }), 2)
      assert.strictEqual(yield* count({ identityID: b.w.identityID }), 1)
      assert.strictEqual(yield* count({ withdrawalID: x1.id }), 1)
      assert.strictEqual(yield* count({ destinationID: b.d.id }), 1)
      assert.strictEqual(yield* count({ status: "Failed" }), 1)
      assert.strictEqual(yield* count({ status: "Succeeded" }), 2)
      assert.strictEqual(yield* count({ createdAtFrom: new Date(MemoryKassa.START + 30_000) }), 2)
      assert.strictEqual(yield* count({ createdAtTo: new Date(MemoryKassa.START + 30_000) }), 1)
      assert.strictEqual(yield* count({ amountFrom: 1500, amountTo: 2500 }), 1)
      assert.strictEqual(yield* count({ currencyID: "USD" }), 0)
      assert.strictEqual(yield* count({ partyID: "other" }), 0)
      const page = yield* s.list(m.partyID, { limit: 2 })
      assert.strictEqual(page.result.length, 2)
      assert.isString(page.continuationToken)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("50 concurrent withdrawals from one wallet never overdraw it", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      // room for exactly ten withdrawals of 1000 + 20
      const { d, w } = yield* funded(m.partyID, 10 * 1_020)
      const all = yield* Effect.all(
        Array.from({ length: 50 }, () => s.create(m.partyID, { wallet: w.id, destination: d.id, body: rub(1000) })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(all.filter((x) => x.status === "Pending").length, 10)
      assert.isAtLeast((yield* balance(m.partyID, w.id)).available, 0)
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 0, available: 0 })
      assert.strictEqual((yield* s.list(m.partyID, { limit: 100, status: "Succeeded" })).result.length, 10)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("quotes price at the documented rates; a withdrawal with one pays out cashTo in the destination's currency", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 20_000)
      const usd = yield* destination(m.partyID, "4242424242424242", "USD")
      const sameParams = { walletID: w.id, destinationID: d.id, currencyFrom: "RUB", currencyTo: "RUB", cash: rub(1000), externalID: "q-1" }
      const same = yield* s.quote(m.partyID, sameParams)
      assert.deepStrictEqual([same.cashFrom, same.cashTo], [rub(1000), rub(1000)])
      assert.strictEqual(same.expiresOn.getTime() - same.createdAt.getTime(), 15 * 60_000)
      // externalID: the same request answers the first quote, another one is a conflict
      yield* MemoryKassa.elapse("1 minute")
      assert.deepStrictEqual(yield* s.quote(m.partyID, sameParams), same)
      assert.strictEqual((yield* Effect.flip(s.quote(m.partyID, { ...sameParams, cash: rub(1001) })))._tag, "ExternalIdConflict")
      // 90 RUB to the dollar: the payer's side rounds up, the payee's down
      const toUsd = yield* s.quote(m.partyID, { walletID: w.id, destinationID: usd.id, currencyFrom: "RUB", currencyTo: "USD", cash: rub(9_050) })
      assert.deepStrictEqual(toUsd.cashTo, { amount: 100, currency: "USD" })
      const byTarget = yield* s.quote(m.partyID, { walletID: w.id, currencyFrom: "RUB", currencyTo: "USD", cash: { amount: 100, currency: "USD" } })
      assert.deepStrictEqual(byTarget.cashFrom, rub(9_000))
      // without a quote a destination in another currency is refused
      assert.strictEqual(yield* refusal(s.create(m.partyID, { wallet: w.id, destination: usd.id, body: rub(9_050) })), "Invalid currency")
      const x = yield* s.create(m.partyID, { wallet: w.id, destination: usd.id, body: rub(9_050), quoteToken: toUsd.quoteToken })
      assert.deepStrictEqual(x.payout, { amount: 100, currency: "USD" })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(m.partyID, x.id)).status, "Succeeded")
      // 9050 + a fee of 10 + 91
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 20_000 - 9_151, available: 20_000 - 9_151 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("quotes refused, and withdrawals whose quote is expired or differs", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* WithdrawalService
      const { d, w } = yield* funded(m.partyID, 20_000)
      const q = { walletID: w.id, destinationID: d.id, currencyFrom: "RUB", currencyTo: "RUB", cash: rub(1000) }
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, cash: rub(0) })), "Invalid cash amount")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, cash: rub(50) })), "Invalid cash amount")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, cash: { amount: 10, currency: "EUR" } })), "Invalid currency")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, currencyFrom: "USD", cash: { amount: 10, currency: "USD" } })), "Invalid currency")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, destinationID: undefined, currencyTo: "EUR" })), "Forbidden currency")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, walletID: "nope" })), "No such wallet")
      assert.strictEqual(yield* refusal(s.quote(other.partyID, q)), "No such wallet")
      assert.strictEqual(yield* refusal(s.quote(other.partyID, { ...q, walletGrant: "forged" })), "Wallet unauthorized")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, destinationID: "nope" })), "No such destination")
      const unauthorized = yield* destination(m.partyID, TestPayoutProvider.cards.unauthorized)
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, destinationID: unauthorized.id })), "Destination unauthorized")
      const live = yield* destination(m.partyID, "4242424242424242", "RUB", "live")
      assert.strictEqual(yield* refusal(s.quote(m.partyID, { ...q, destinationID: live.id })), "This wallet and destination cannot be used together")

      const quote = yield* s.quote(m.partyID, q)
      const ok = { wallet: w.id, destination: d.id, body: rub(1000), quoteToken: quote.quoteToken }
      const w2 = yield* wallet(m.partyID)
      const d2 = yield* destination(m.partyID)
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, wallet: w2.id })), "Withdrawal wallet differs from quote`s one")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, destination: d2.id })), "Withdrawal destination differs from quote`s one")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, body: rub(1001) })), "Withdrawal body differs from quote`s one")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { ...ok, quoteToken: "forged" })), "Quote token expired")
      const validUntil = new Date(MemoryKassa.START + 3_600_000)
      const walletGrant = (yield* (yield* WalletService).issueGrant(m.partyID, w.id, { asset: rub(5_000), validUntil })).token
      const destinationGrant = (yield* (yield* DestinationService).issueGrant(m.partyID, d.id, { validUntil })).token
      assert.strictEqual(
        yield* refusal(s.create(other.partyID, { ...ok, walletGrant, destinationGrant })),
        "Withdrawal owner differs from quote`s one"
      )
      yield* MemoryKassa.elapse("16 minutes")
      assert.strictEqual(yield* refusal(s.create(m.partyID, ok)), "Quote token expired")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 20_000, available: 20_000 })
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
