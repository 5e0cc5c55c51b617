/**
 * The storage contract of the wallet side, on memory, SQLite and PostgreSQL: identities and their
 * challenges, wallets, deposits with reverts and adjustments (every list filter), W2W transfers,
 * wallet ledger accounts; and, through the services on each backend, 50 concurrent transfers
 * from one wallet that never overdraw it.
 */
import { assert, layer } from "@effect/vitest"
import type { AdjustmentRecord, DepositFilter, DepositRecord, RevertRecord } from "@kassa/core/deposit/Deposit"
import { DepositService } from "@kassa/core/deposit/DepositService"
import type { ChallengeRecord } from "@kassa/core/identity/Challenge"
import type { IdentityRecord } from "@kassa/core/identity/Identity"
import { IdentityService } from "@kassa/core/identity/IdentityService"
import { Onboarding } from "@kassa/core/onboarding/Onboarding"
import { DepositRepository } from "@kassa/core/ports/DepositRepository"
import { IdentityRepository } from "@kassa/core/ports/IdentityRepository"
import { type AccountKey, Ledger } from "@kassa/core/ports/Ledger"
import { W2WTransferRepository } from "@kassa/core/ports/W2WTransferRepository"
import { WalletGrantRepository } from "@kassa/core/ports/WalletGrantRepository"
import { WalletRepository } from "@kassa/core/ports/WalletRepository"
import type { W2WTransferRecord } from "@kassa/core/transfer/W2WTransfer"
import { W2WService } from "@kassa/core/transfer/W2WService"
import type { WalletGrantRecord, WalletRecord } from "@kassa/core/wallet/Wallet"
import { WalletService } from "@kassa/core/wallet/WalletService"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestServices from "effect/TestServices"
import { backends, kassa } from "./backends.js"
import { fresh } from "./records.js"

const at = (ms: number) => new Date(1_700_000_000_000 + ms)

const identity = (partyID: string, overrides: Partial<IdentityRecord> = {}): IdentityRecord => ({
  id: fresh("i"),
  partyID,
  name: "Ivan",
  provider: "test",
  class: "person",
  level: "anonymous",
  isBlocked: false,
  createdAt: at(0),
  version: 1,
  ...overrides
})

const wallet = (partyID: string, identityID: string, overrides: Partial<WalletRecord> = {}): WalletRecord => ({
  id: fresh("w"),
  partyID,
  identityID,
  name: "Main",
  currency: "RUB",
  isBlocked: false,
  createdAt: at(0),
  version: 1,
  ...overrides
})

const deposit = (w: WalletRecord, overrides: Partial<DepositRecord> = {}): DepositRecord => ({
  id: fresh("d"),
  partyID: w.partyID,
  walletID: w.id,
  identityID: w.identityID,
  sourceID: "src-1",
  amount: 1_000,
  currency: w.currency,
  status: "Pending",
  reverted: 0,
  createdAt: at(0),
  version: 1,
  ...overrides
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "120 seconds" })(`Storage contract: wallets [${backend}]`, (it) => {
    it.effect("IdentityRepository: identities and challenges round-trip, update optimistically, list in pages", () =>
      Effect.gen(function*() {
        const repo = yield* IdentityRepository
        const partyID = fresh("p")
        const bare = identity(partyID)
        const full = identity(partyID, {
          provider: "live",
          class: "company",
          effectiveChallenge: "c-0",
          metadata: { display_name: "LLC", n: 1 },
          externalID: "ext-1",
          createdAt: at(1)
        })
        yield* repo.insert(bare)
        yield* repo.insert(full)
        yield* repo.insert(identity(fresh("p")))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(bare))
        assert.deepStrictEqual(yield* repo.findById(full.id), Option.some(full))
        assert.isTrue(Option.isNone(yield* repo.findById("nope")))

        const raised = { ...bare, level: "partial", effectiveChallenge: "c-1", isBlocked: true, version: 2 }
        assert.isTrue(yield* repo.update(raised, 1))
        assert.isFalse(yield* repo.update({ ...bare, level: "full", version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(raised))

        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 10 })).map((i) => i.id), [bare.id, full.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, providerID: "live" }, { limit: 10 })).map((i) => i.id), [full.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, classID: "person" }, { limit: 10 })).map((i) => i.id), [bare.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, levelID: "partial" }, { limit: 10 })).map((i) => i.id), [bare.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, levelID: "full" }, { limit: 10 })).map((i) => i.id), [])
        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 0 })).map((i) => i.id), [bare.id])
        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 10, after: bare })).map((i) => i.id), [full.id])

        const challenge: ChallengeRecord = {
          id: fresh("c"),
          identityID: bare.id,
          partyID,
          type: "esia",
          proofs: [{ type: "RUSDomesticPassport", token: "passport-1" }, { token: "no-type" }],
          status: "Pending",
          events: [{ eventID: 1, occuredAt: at(5), status: "Pending" }],
          createdAt: at(5),
          version: 1
        }
        yield* repo.insertChallenge(challenge)
        assert.deepStrictEqual(yield* repo.findChallenge(bare.id, challenge.id), Option.some(challenge))
        const failed: ChallengeRecord = {
          ...challenge,
          status: "Failed",
          failureReason: "Proof rejected",
          validUntil: at(9),
          events: [...challenge.events, { eventID: 2, occuredAt: at(6), status: "Failed", failureReason: "Proof rejected" }],
          version: 2
        }
        assert.isTrue(yield* repo.updateChallenge(failed, 1))
        assert.isFalse(yield* repo.updateChallenge({ ...challenge, status: "Completed", version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.challengesOf(bare.id), [failed])
        assert.deepStrictEqual(yield* repo.challengesOf(full.id), [])
      }))

    it.effect("WalletRepository: round-trip, optimistic update, list by identity and currency in pages", () =>
      Effect.gen(function*() {
        const repo = yield* WalletRepository
        const partyID = fresh("p")
        const a = wallet(partyID, "i-1")
        const b = wallet(partyID, "i-2", { currency: "USD", metadata: { k: ["v"] }, externalID: "w-ext", createdAt: at(1) })
        yield* repo.insert(a)
        yield* repo.insert(b)
        yield* repo.insert(wallet(fresh("p"), "i-1"))
        assert.deepStrictEqual(yield* repo.findById(a.id), Option.some(a))
        assert.deepStrictEqual(yield* repo.findById(b.id), Option.some(b))
        const blocked = { ...a, isBlocked: true, version: 2 }
        assert.isTrue(yield* repo.update(blocked, 1))
        assert.isFalse(yield* repo.update({ ...a, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(a.id), Option.some(blocked))
        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 10 })).map((w) => w.id), [a.id, b.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, identityID: "i-2" }, { limit: 10 })).map((w) => w.id), [b.id])
        assert.deepStrictEqual((yield* repo.list({ partyID, currencyID: "RUB" }, { limit: 10 })).map((w) => w.id), [a.id])
        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 10, after: a })).map((w) => w.id), [b.id])
      }))

    it.effect("DepositRepository: deposits, reverts and adjustments round-trip and answer every filter", () =>
      Effect.gen(function*() {
        const repo = yield* DepositRepository
        const partyID = fresh("p")
        const w1 = wallet(partyID, "i-1")
        const w2 = wallet(partyID, "i-2", { currency: "USD" })
        const d1 = deposit(w1, { amount: 100 })
        const d2 = deposit(w1, {
          amount: 200,
          sourceID: "src-2",
          externalID: "dep-ext",
          description: "top-up",
          createdAt: at(10)
        })
        const d3 = deposit(w2, { amount: 300, createdAt: at(20) })
        for (const d of [d1, d2, d3, deposit(wallet(fresh("p"), "i-9"))]) yield* repo.insert(d)
        assert.deepStrictEqual(yield* repo.findById(d2.id), Option.some(d2))
        const d1Done = { ...d1, status: "Succeeded" as const, reverted: 40, version: 2 }
        assert.isTrue(yield* repo.update(d1Done, 1))
        const d3Failed = { ...d3, status: "Failed" as const, failure: { code: "adjusted", subError: { code: "x" } }, version: 2 }
        assert.isTrue(yield* repo.update(d3Failed, 1))
        assert.isFalse(yield* repo.update({ ...d3, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(d1.id), Option.some(d1Done))
        assert.deepStrictEqual(yield* repo.findById(d3.id), Option.some(d3Failed))

        const ids = (filter: Omit<DepositFilter, "partyID">) =>
          Effect.map(repo.list({ partyID, ...filter }, { limit: 100 }), (rows) => rows.map((d) => d.amount))
        assert.deepStrictEqual(yield* ids({}), [100, 200, 300])
        assert.deepStrictEqual(yield* ids({ walletID: w1.id }), [100, 200])
        assert.deepStrictEqual(yield* ids({ identityID: "i-2" }), [300])
        assert.deepStrictEqual(yield* ids({ depositID: d2.id }), [200])
        assert.deepStrictEqual(yield* ids({ sourceID: "src-2" }), [200])
        assert.deepStrictEqual(yield* ids({ status: "Succeeded" }), [100])
        assert.deepStrictEqual(yield* ids({ createdAtFrom: at(10) }), [200, 300])
        assert.deepStrictEqual(yield* ids({ createdAtTo: at(10) }), [100, 200])
        assert.deepStrictEqual(yield* ids({ amountFrom: 150, amountTo: 250 }), [200])
        assert.deepStrictEqual(yield* ids({ currencyID: "USD" }), [300])
        assert.deepStrictEqual(yield* ids({ revertStatus: "Partial" }), [100])
        assert.deepStrictEqual(yield* ids({ revertStatus: "None" }), [200, 300])
        assert.deepStrictEqual(yield* ids({ revertStatus: "Full" }), [])
        assert.deepStrictEqual((yield* repo.list({ partyID }, { limit: 1, after: d1 })).map((d) => d.amount), [200, 300])

        const revert: RevertRecord = {
          ...deposit(w1, { amount: 40, createdAt: at(30) }),
          id: fresh("r"),
          depositID: d1.id,
          reason: "chargeback"
        }
        const { description: _d, reverted: _r, ...revertFields } = revert as RevertRecord & Partial<DepositRecord>
        const r: RevertRecord = revertFields
        yield* repo.insertRevert(r)
        assert.deepStrictEqual(yield* repo.findRevert(d1.id, r.id), Option.some(r))
        const rDone = { ...r, status: "Succeeded" as const, version: 2 }
        assert.isTrue(yield* repo.updateRevert(rDone, 1))
        assert.isFalse(yield* repo.updateRevert({ ...r, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.revertsOf(d1.id), [rDone])
        assert.deepStrictEqual((yield* repo.listReverts({ partyID, depositID: d1.id, status: "Succeeded" }, { limit: 10 })).map((x) => x.id), [r.id])
        assert.deepStrictEqual(yield* repo.listReverts({ partyID, depositID: d2.id }, { limit: 10 }), [])

        const { description: _d2, reverted: _r2, ...base } = deposit(w1, { amount: 60, createdAt: at(40) })
        const adjustment: AdjustmentRecord = { ...base, id: fresh("a"), depositID: d1.id, target: "Failed" }
        yield* repo.insertAdjustment(adjustment)
        assert.deepStrictEqual(yield* repo.findAdjustment(d1.id, adjustment.id), Option.some(adjustment))
        const aFailed = { ...adjustment, status: "Failed" as const, failure: { code: "account_limit_exceeded", subError: { code: "amount" } }, version: 2 }
        assert.isTrue(yield* repo.updateAdjustment(aFailed, 1))
        assert.deepStrictEqual(yield* repo.adjustmentsOf(d1.id), [aFailed])
        assert.deepStrictEqual((yield* repo.listAdjustments({ partyID, amountFrom: 60, currencyID: "RUB" }, { limit: 10 })).map((x) => x.id), [adjustment.id])
        assert.deepStrictEqual(yield* repo.listAdjustments({ partyID: fresh("p") }, { limit: 10 }), [])
      }))

    it.effect("W2WTransferRepository and a wallet's ledger account: round-trip, optimistic update", () =>
      Effect.gen(function*() {
        const repo = yield* W2WTransferRepository
        const t: W2WTransferRecord = {
          id: fresh("t"),
          partyID: fresh("p"),
          senderID: "w-1",
          receiverID: "w-2",
          amount: 70,
          currency: "RUB",
          externalID: "t-ext",
          status: "Pending",
          createdAt: at(0),
          version: 1
        }
        yield* repo.insert(t)
        assert.deepStrictEqual(yield* repo.findById(t.id), Option.some(t))
        const failed = { ...t, status: "Failed" as const, failure: { code: "account_limit_exceeded" }, version: 2 }
        assert.isTrue(yield* repo.update(failed, 1))
        assert.isFalse(yield* repo.update({ ...t, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(t.id), Option.some(failed))

        const ledger = yield* Ledger
        const key: AccountKey = { kind: "wallet", partyID: t.partyID, walletID: "w-1", currency: "RUB" }
        const id = yield* ledger.account(key)
        assert.strictEqual(yield* ledger.account(key), id)
        assert.notStrictEqual(yield* ledger.account({ ...key, walletID: "w-2" }), id)
        assert.deepStrictEqual(Option.map(yield* ledger.balance(id), (b) => b.key), Option.some(key))
        assert.deepStrictEqual(Option.map(yield* ledger.balance(yield* ledger.account({ kind: "source", currency: "RUB" })), (b) => b.key), Option.some<AccountKey>({ kind: "source", currency: "RUB" }))
      }))

    it.effect("WalletGrantRepository: round-trip, optimistic update of what was spent", () =>
      Effect.gen(function*() {
        const repo = yield* WalletGrantRepository
        const grant: WalletGrantRecord = {
          id: fresh("g"),
          partyID: fresh("p"),
          walletID: "w-1",
          amount: 500,
          currency: "RUB",
          validUntil: at(3_600_000),
          spent: 0,
          createdAt: at(0),
          version: 1
        }
        yield* repo.insert(grant)
        assert.deepStrictEqual(yield* repo.findById(grant.id), Option.some(grant))
        const spent = { ...grant, spent: 300, version: 2 }
        assert.isTrue(yield* repo.update(spent, 1))
        assert.isFalse(yield* repo.update({ ...grant, spent: 100, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(grant.id), Option.some(spent))
        assert.isTrue(Option.isNone(yield* repo.findById("nope")))
      }))

    // on the real clock: the deposit and the transfers settle in the background
    it.effect("through the services: 50 concurrent transfers from one wallet never overdraw it", () =>
      Effect.gen(function*() {
        const { partyID } = yield* Effect.orDie((yield* Onboarding).onboard({
          email: `${fresh("w2w")}@kassa.test`,
          paymentInstitutionID: 1,
          shops: [{ name: "Shop", url: "https://shop.kassa.test", categoryID: 1, currency: "RUB" }]
        }))
        const i = yield* (yield* IdentityService).create(partyID, { name: "Ivan", provider: "test" })
        const wallets = yield* WalletService
        const from = yield* wallets.create(partyID, { name: "From", identity: i.id, currency: "RUB" })
        const to = yield* wallets.create(partyID, { name: "To", identity: i.id, currency: "RUB" })
        const d = yield* (yield* DepositService).create({ wallet: from.id, source: "src", body: { amount: 1_000, currency: "RUB" } })
        const deposits = yield* DepositService
        while ((yield* deposits.get(d.id)).status === "Pending") yield* Effect.sleep("20 millis")
        const transfers = yield* W2WService
        const made = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, n) => n),
          () => transfers.create(partyID, { sender: from.id, receiver: to.id, body: { amount: 70, currency: "RUB" } }),
          { concurrency: 50 }
        )
        assert.strictEqual(made.filter((t) => t.status !== "Failed").length, 14)
        assert.strictEqual((yield* wallets.account(partyID, from.id)).available.amount, 20)
        for (const t of made.filter((x) => x.status === "Pending")) {
          while ((yield* transfers.get(partyID, t.id)).status === "Pending") yield* Effect.sleep("20 millis")
        }
        assert.deepStrictEqual(yield* wallets.account(partyID, from.id), { own: { amount: 20, currency: "RUB" }, available: { amount: 20, currency: "RUB" } })
        assert.strictEqual((yield* wallets.account(partyID, to.id)).own.amount, 980)
      }).pipe(TestServices.provideLive))
  })
}
