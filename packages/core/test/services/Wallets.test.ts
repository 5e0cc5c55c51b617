/**
 * Wallets, their accounts and grants; the operator's deposits, reverts and adjustments; W2W
 * transfers: what each leaves in the ledger, and that `available` never goes below zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { DepositService } from "@kassa/core/deposit/DepositService"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import { Ledger } from "@kassa/core/ports/Ledger"
import { W2WService } from "@kassa/core/transfer/W2WService"
import { sourceKey } from "@kassa/core/wallet/WalletAccount"
import { WalletService } from "@kassa/core/wallet/WalletService"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"
import { balance, deposit, identity, refusal, wallet } from "../support/WalletArrange.js"

describe("WalletService", () => {
  it.effect("a wallet of the party's identity in a currency of its provider, with an empty account", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const s = yield* WalletService
      const i = yield* identity(m.partyID)
      const w = yield* s.create(m.partyID, { name: "Main", identity: i.id, currency: "USD", externalID: "w-1" })
      assert.deepInclude(w, { identityID: i.id, currency: "USD", isBlocked: false })
      assert.deepStrictEqual(yield* s.account(m.partyID, w.id), { own: { amount: 0, currency: "USD" }, available: { amount: 0, currency: "USD" } })
      assert.strictEqual((yield* s.create(m.partyID, { name: "Main", identity: i.id, currency: "USD", externalID: "w-1" })).id, w.id)
      assert.deepInclude(yield* Effect.flip(s.create(m.partyID, { name: "Main", identity: i.id, currency: "EUR", externalID: "w-1" })), {
        _tag: "ExternalIdConflict",
        id: w.id
      })
      assert.strictEqual((yield* s.getByExternalID(m.partyID, "w-1")).id, w.id)
      assert.strictEqual((yield* Effect.flip(s.getByExternalID(other.partyID, "w-1")))._tag, "NotFound")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", identity: "nope", currency: "RUB" })), "No such identity")
      assert.strictEqual(yield* refusal(s.create(other.partyID, { name: "x", identity: i.id, currency: "RUB" })), "No such identity")
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", identity: i.id, currency: "JPY" })), "Currency not supported")
      const live = yield* (yield* IdentityService).create(m.partyID, { name: "LLC", provider: "live" })
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", identity: live.id, currency: "USD" })), "Currency not supported")
      yield* (yield* IdentityService).setBlocked(i.id, true)
      assert.strictEqual(yield* refusal(s.create(m.partyID, { name: "x", identity: i.id, currency: "RUB" })), "Identity inaccessible")
      assert.strictEqual((yield* Effect.flip(s.get(other.partyID, w.id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(s.account(other.partyID, w.id)))._tag, "NotFound")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("lists filter by identity and currency, and page", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WalletService
      const a = yield* identity(m.partyID)
      const b = yield* identity(m.partyID)
      yield* s.create(m.partyID, { name: "1", identity: a.id, currency: "RUB" })
      yield* s.create(m.partyID, { name: "2", identity: a.id, currency: "USD" })
      yield* s.create(m.partyID, { name: "3", identity: b.id, currency: "RUB" })
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10 })).result.length, 3)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, identityID: a.id })).result.length, 2)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, currencyID: "RUB" })).result.length, 2)
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, partyID: "other" })).result.length, 0)
      const page = yield* s.list(m.partyID, { limit: 2 })
      assert.strictEqual(page.result.length, 2)
      assert.isString(page.continuationToken)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a grant is signed for the owner and spends up to its asset in total until validUntil; an expired one is refused", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const s = yield* WalletService
      const w = yield* wallet(m.partyID)
      const at = new Date(MemoryKassa.START + 3_600_000)
      const grant = yield* s.issueGrant(m.partyID, w.id, { asset: { amount: 500, currency: "RUB" }, validUntil: at })
      assert.deepInclude(grant, { asset: { amount: 500, currency: "RUB" }, validUntil: at })
      const rub = (amount: number) => ({ amount, currency: "RUB" })
      // it spends up to its asset in total; what a failed operation gives back may be spent again
      assert.isTrue(yield* s.spendGrant(grant.token, w.id, rub(300)))
      assert.isFalse(yield* s.spendGrant(grant.token, w.id, rub(201)))
      assert.isFalse(yield* s.spendGrant(grant.token, "another", rub(1)))
      assert.isFalse(yield* s.spendGrant(grant.token, w.id, { amount: 1, currency: "USD" }))
      assert.isFalse(yield* s.spendGrant("forged", w.id, rub(1)))
      yield* s.releaseGrant(grant.token, w.id, rub(100))
      assert.isTrue(yield* s.spendGrant(grant.token, w.id, rub(300)))
      assert.isFalse(yield* s.spendGrant(grant.token, w.id, rub(1)))
      const other = yield* s.issueGrant(m.partyID, w.id, { asset: rub(100), validUntil: at })
      // concurrent spends never take more than the asset together
      const spent = yield* Effect.forEach(Array.from({ length: 10 }, () => 30), (n) => s.spendGrant(other.token, w.id, rub(n)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(spent.filter(Boolean).length, 3)
      yield* TestClock.adjust(3_600_000)
      assert.isFalse(yield* s.spendGrant(other.token, w.id, rub(1)))
      assert.strictEqual(
        yield* refusal(s.issueGrant(m.partyID, w.id, { asset: rub(0), validUntil: new Date(at.getTime() + 1e6) })),
        "Invalid cash amount"
      )
      assert.strictEqual(
        yield* refusal(s.issueGrant(m.partyID, w.id, { asset: { amount: 1, currency: "RUB" }, validUntil: at })),
        "Invalid expiration: already expired"
      )
      assert.strictEqual(
        (yield* Effect.flip(s.issueGrant("other", w.id, { asset: { amount: 1, currency: "RUB" }, validUntil: new Date(at.getTime() + 1e6) })))
          ._tag,
        "NotFound"
      )
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("DepositService", () => {
  it.effect("a deposit is Pending with its money held, then Succeeded with it in the wallet", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const w = yield* wallet(m.partyID)
      const s = yield* DepositService
      const d = yield* s.create({ wallet: w.id, source: "src-1", body: { amount: 1_000, currency: "RUB" }, externalID: "dep-1" })
      assert.strictEqual(d.status, "Pending")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 0, available: 0 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(d.id)).status, "Succeeded")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 1_000, available: 1_000 })
      assert.strictEqual((yield* s.create({ wallet: w.id, source: "src-1", body: { amount: 1_000, currency: "RUB" }, externalID: "dep-1" })).id, d.id)
      assert.strictEqual(yield* refusal(s.create({ wallet: "nope", source: "s", body: { amount: 1, currency: "RUB" } })), "No such wallet")
      assert.strictEqual(yield* refusal(s.create({ wallet: w.id, source: "s", body: { amount: 1, currency: "USD" } })), "Inconsistent currency")
      yield* (yield* WalletService).setBlocked(w.id, true)
      assert.strictEqual(yield* refusal(s.create({ wallet: w.id, source: "s", body: { amount: 1, currency: "RUB" } })), "Wallet inaccessible")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("reverts take back at most what remains; a revert the wallet cannot cover fails; revert status follows", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const w = yield* wallet(m.partyID)
      const other = yield* wallet(m.partyID)
      const s = yield* DepositService
      const d = yield* deposit(w.id, 1_000)
      const r1 = yield* s.revert(d.id, { body: { amount: 400, currency: "RUB" }, reason: "chargeback" })
      assert.strictEqual(r1.status, "Pending")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 1_000, available: 600 })
      assert.strictEqual(yield* refusal(s.revert(d.id, { body: { amount: 601, currency: "RUB" } })), "Insufficient deposit amount")
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.getRevert(d.id, r1.id)).status, "Succeeded")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 600, available: 600 })
      assert.strictEqual((yield* s.list(m.partyID, { limit: 10, revertStatus: "Partial" })).result.length, 1)
      // the wallet spends what the deposit left: a revert of it fails
      yield* (yield* W2WService).create(m.partyID, { sender: w.id, receiver: other.id, body: { amount: 500, currency: "RUB" } })
      yield* MemoryKassa.settle
      const r2 = yield* s.revert(d.id, { body: { amount: 600, currency: "RUB" } })
      assert.deepInclude(r2, { status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } })
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 100, available: 100 })
      const r3 = yield* s.revert(d.id, { body: { amount: 100, currency: "RUB" } })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.getRevert(d.id, r3.id)).status, "Succeeded")
      assert.strictEqual(yield* refusal(s.revert("nope", { body: { amount: 1, currency: "RUB" } })), "No such deposit")
      assert.strictEqual(yield* refusal(s.revert(d.id, { body: { amount: 1, currency: "USD" } })), "Inconsistent currency")
      const reverts = yield* s.listReverts(m.partyID, { limit: 10, depositID: d.id })
      assert.deepStrictEqual(reverts.result.map((r) => r.status).sort(), ["Failed", "Succeeded", "Succeeded"])
      assert.strictEqual((yield* s.listReverts(m.partyID, { limit: 10, status: "Failed" })).result.length, 1)
      assert.strictEqual((yield* s.listReverts(m.partyID, { limit: 10, amountFrom: 500 })).result.length, 1)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("an adjustment changes a settled deposit's status and moves its money; one at a time; never to the same status", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const w = yield* wallet(m.partyID)
      const s = yield* DepositService
      const d = yield* deposit(w.id, 1_000)
      assert.strictEqual(yield* refusal(s.adjust(d.id, { status: "Succeeded" })), "Invalid adjustment status")
      const a = yield* s.adjust(d.id, { status: "Failed", externalID: "adj-1" })
      assert.strictEqual(a.status, "Pending")
      assert.deepInclude(yield* Effect.flip(s.adjust(d.id, { status: "Failed" })), { _tag: "Conflict", id: a.id })
      assert.strictEqual((yield* s.adjust(d.id, { status: "Failed", externalID: "adj-1" })).id, a.id)
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.getAdjustment(d.id, a.id)).status, "Succeeded")
      assert.strictEqual((yield* s.get(d.id)).status, "Failed")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 0, available: 0 })
      assert.strictEqual(yield* refusal(s.revert(d.id, { body: { amount: 1, currency: "RUB" } })), "Invalid deposit status")
      yield* s.adjust(d.id, { status: "Succeeded" })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(d.id)).status, "Succeeded")
      assert.deepStrictEqual(yield* balance(m.partyID, w.id), { own: 1_000, available: 1_000 })
      const listed = yield* s.listAdjustments(m.partyID, { limit: 10, walletID: w.id })
      assert.strictEqual(listed.result.length, 2)
      assert.strictEqual((yield* s.listAdjustments(m.partyID, { limit: 10, currencyID: "USD" })).result.length, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("deposit lists: every filter, scoped to the party", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const a = yield* wallet(m.partyID)
      const b = yield* wallet(m.partyID, "USD")
      const theirs = yield* wallet(other.partyID)
      const d1 = yield* deposit(a.id, 100)
      yield* TestClock.adjust(1_000)
      yield* deposit(a.id, 200)
      yield* deposit(b.id, 300, "USD")
      yield* deposit(theirs.id, 400)
      const s = yield* DepositService
      const list = (params: Omit<Parameters<typeof s.list>[1], "limit">) =>
        Effect.map(s.list(m.partyID, { limit: 100, ...params }), (p) => p.result.map((d) => d.body.amount).sort())
      assert.deepStrictEqual(yield* list({}), [100, 200, 300])
      assert.deepStrictEqual(yield* list({ walletID: a.id }), [100, 200])
      assert.deepStrictEqual(yield* list({ identityID: b.identityID }), [300])
      assert.deepStrictEqual(yield* list({ depositID: d1.id }), [100])
      assert.deepStrictEqual(yield* list({ sourceID: "src-1", status: "Succeeded" }), [100, 200, 300])
      assert.deepStrictEqual(yield* list({ status: "Pending" }), [])
      assert.deepStrictEqual(yield* list({ createdAtFrom: new Date(MemoryKassa.START + 1) }), [200, 300])
      assert.deepStrictEqual(yield* list({ createdAtTo: new Date(MemoryKassa.START) }), [100])
      assert.deepStrictEqual(yield* list({ amountFrom: 150, amountTo: 250 }), [200])
      assert.deepStrictEqual(yield* list({ currencyID: "USD" }), [300])
      assert.deepStrictEqual(yield* list({ revertStatus: "None" }), [100, 200, 300])
      assert.deepStrictEqual(yield* list({ partyID: other.partyID }), [])
    }).pipe(Effect.provide(MemoryKassa.layer)))
})

describe("W2WService", () => {
  it.effect("a transfer holds, then commits: money moves from the caller's wallet to any wallet", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const from = yield* wallet(m.partyID)
      const to = yield* wallet(other.partyID)
      yield* deposit(from.id, 1_000)
      const s = yield* W2WService
      const t = yield* s.create(m.partyID, { sender: from.id, receiver: to.id, body: { amount: 300, currency: "RUB" }, externalID: "t-1" })
      assert.strictEqual(t.status, "Pending")
      assert.deepStrictEqual(yield* balance(m.partyID, from.id), { own: 1_000, available: 700 })
      yield* MemoryKassa.settle
      assert.strictEqual((yield* s.get(m.partyID, t.id)).status, "Succeeded")
      assert.deepStrictEqual(yield* balance(m.partyID, from.id), { own: 700, available: 700 })
      assert.deepStrictEqual(yield* balance(other.partyID, to.id), { own: 300, available: 300 })
      assert.strictEqual((yield* s.create(m.partyID, { sender: from.id, receiver: to.id, body: { amount: 300, currency: "RUB" }, externalID: "t-1" })).id, t.id)
      assert.strictEqual((yield* Effect.flip(s.get(other.partyID, t.id)))._tag, "NotFound")
      const poor = yield* s.create(m.partyID, { sender: from.id, receiver: to.id, body: { amount: 701, currency: "RUB" } })
      assert.deepInclude(poor, { status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } })
      assert.deepStrictEqual(yield* balance(m.partyID, from.id), { own: 700, available: 700 })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("refusals carry the wire's words", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const other = yield* Arrange.merchantNamed("other")
      const from = yield* wallet(m.partyID)
      const to = yield* wallet(m.partyID)
      const usd = yield* wallet(m.partyID, "USD")
      const theirs = yield* wallet(other.partyID)
      const s = yield* W2WService
      const send = (sender: string, receiver: string, amount: number, currency = "RUB") =>
        refusal(s.create(m.partyID, { sender, receiver, body: { amount, currency } }))
      assert.strictEqual(yield* send(from.id, to.id, 0), "Bad transfer amount")
      assert.strictEqual(yield* send(from.id, to.id, -5), "Bad transfer amount")
      assert.strictEqual(yield* send("nope", to.id, 1), "No such wallet sender")
      assert.strictEqual(yield* send(theirs.id, to.id, 1), "No such wallet sender")
      assert.strictEqual(yield* send(from.id, "nope", 1), "No such wallet receiver")
      assert.strictEqual(yield* send(from.id, to.id, 1, "USD"), "Currency not allowed")
      assert.strictEqual(yield* send(from.id, usd.id, 1), "Inconsistent currency")
      yield* (yield* WalletService).setBlocked(to.id, true)
      assert.strictEqual(yield* send(from.id, to.id, 1), "Wallet inaccessible")
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("50 concurrent transfers never overdraw: available never below zero, the ledger sums to zero", () =>
    Effect.gen(function*() {
      const m = yield* Arrange.merchant
      const from = yield* wallet(m.partyID)
      const to = yield* wallet(m.partyID)
      yield* deposit(from.id, 1_000)
      const s = yield* W2WService
      const made = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        () => s.create(m.partyID, { sender: from.id, receiver: to.id, body: { amount: 70, currency: "RUB" } }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(made.filter((t) => t.status === "Pending").length, 14)
      assert.strictEqual((yield* balance(m.partyID, from.id)).available, 20)
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* balance(m.partyID, from.id), { own: 20, available: 20 })
      assert.deepStrictEqual(yield* balance(m.partyID, to.id), { own: 980, available: 980 })
      const ledger = yield* Ledger
      const source = Option.getOrThrow(yield* ledger.balance(yield* ledger.account(sourceKey("RUB"))))
      assert.strictEqual(source.own + 20 + 980, 0)
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
