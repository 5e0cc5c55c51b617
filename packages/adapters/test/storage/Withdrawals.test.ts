/**
 * The storage contract of destinations and withdrawals, on memory, SQLite and PostgreSQL: they
 * read back as written (with and without their optional parts), update optimistically, and list
 * by every filter in pages; the payment systems the operator forbade a provider.
 */
import { assert, layer } from "@effect/vitest"
import type { DestinationRecord } from "@kassa/core/destination/Destination"
import { DestinationRepository } from "@kassa/core/ports/DestinationRepository"
import { ProviderTermsRepository } from "@kassa/core/ports/ProviderTermsRepository"
import { WithdrawalRepository } from "@kassa/core/ports/WithdrawalRepository"
import type { WithdrawalFilter, WithdrawalRecord } from "@kassa/core/withdrawal/Withdrawal"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import { fresh } from "./records.js"

const at = (ms: number) => new Date(1_700_000_000_000 + ms)

const destination = (partyID: string, overrides: Partial<DestinationRecord> = {}): DestinationRecord => ({
  id: fresh("dst"),
  partyID,
  identityID: "i-1",
  name: "Card",
  currency: "RUB",
  resource: { type: "BankCardDestinationResource", token: "bc.tok", bin: "424242", lastDigits: "4242", paymentSystem: "visa" },
  vaultToken: "vault-1",
  status: "Unauthorized",
  isBlocked: false,
  createdAt: at(0),
  version: 1,
  ...overrides
})

const withdrawal = (partyID: string, overrides: Partial<WithdrawalRecord> = {}): WithdrawalRecord => ({
  id: fresh("wd"),
  partyID,
  walletPartyID: partyID,
  walletID: "w-1",
  identityID: "i-1",
  destinationID: "dst-1",
  amount: 1_000,
  currency: "RUB",
  fee: 20,
  payout: { amount: 1_000, currency: "RUB" },
  status: "Pending",
  attempts: 0,
  events: [{ eventID: 1, occuredAt: at(0), status: "Pending" }],
  createdAt: at(0),
  version: 1,
  ...overrides
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "120 seconds" })(`Storage contract: withdrawals [${backend}]`, (it) => {
    it.effect("ProviderTermsRepository: forbidding is per provider and idempotent, allowing undoes it", () =>
      Effect.gen(function*() {
        const terms = yield* ProviderTermsRepository
        const provider = fresh("prov")
        assert.deepStrictEqual(yield* terms.forbidden(provider), [])
        yield* terms.setForbidden(provider, "visa", true)
        yield* terms.setForbidden(provider, "visa", true)
        yield* terms.setForbidden(provider, "mastercard", true)
        yield* terms.setForbidden(`${provider}-other`, "nspkmir", true)
        assert.deepStrictEqual([...yield* terms.forbidden(provider)].sort(), ["mastercard", "visa"])
        yield* terms.setForbidden(provider, "visa", false)
        yield* terms.setForbidden(provider, "amex", false)
        assert.deepStrictEqual(yield* terms.forbidden(provider), ["mastercard"])
        assert.deepStrictEqual(yield* terms.forbidden(`${provider}-other`), ["nspkmir"])
      }))

    it.effect("DestinationRepository: round-trips, updates status and blocking optimistically, lists by identity and currency in pages", () =>
      Effect.gen(function*() {
        const repo = yield* DestinationRepository
        const partyID = fresh("p")
        const bare = destination(partyID)
        const full = destination(partyID, {
          identityID: "i-2",
          currency: "USD",
          metadata: { note: "x", n: 1 },
          externalID: "ext-1",
          createdAt: at(1)
        })
        yield* repo.insert(bare)
        yield* repo.insert(full)
        yield* repo.insert(destination(fresh("p")))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(bare))
        assert.deepStrictEqual(yield* repo.findById(full.id), Option.some(full))
        assert.isTrue(Option.isNone(yield* repo.findById("nope")))
        const authorized: DestinationRecord = { ...bare, status: "Authorized", isBlocked: true, version: 2 }
        assert.isTrue(yield* repo.update(authorized, 1))
        assert.isFalse(yield* repo.update({ ...bare, version: 2 }, 1))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(authorized))
        const ids = (rows: ReadonlyArray<DestinationRecord>) => rows.map((d) => d.id)
        assert.deepStrictEqual(ids(yield* repo.list({ partyID }, { limit: 10 })), [bare.id, full.id])
        assert.deepStrictEqual(ids(yield* repo.list({ partyID, identityID: "i-2" }, { limit: 10 })), [full.id])
        assert.deepStrictEqual(ids(yield* repo.list({ partyID, currencyID: "RUB" }, { limit: 10 })), [bare.id])
        assert.deepStrictEqual(ids(yield* repo.list({ partyID }, { limit: 0 })), [bare.id])
        assert.deepStrictEqual(ids(yield* repo.list({ partyID }, { limit: 10, after: bare })), [full.id])
      }))

    it.effect("WithdrawalRepository: round-trips, updates status, failure, attempts and events optimistically, lists by every filter", () =>
      Effect.gen(function*() {
        const repo = yield* WithdrawalRepository
        const partyID = fresh("p")
        const bare = withdrawal(partyID)
        const full = withdrawal(partyID, {
          walletID: "w-2",
          identityID: "i-2",
          destinationID: "dst-2",
          amount: 9_050,
          fee: 101,
          payout: { amount: 100, currency: "USD" },
          metadata: { order: 7 },
          externalID: "ext-1",
          walletGrant: "grant-token",
          status: "Failed",
          failure: { code: "account_limit_exceeded", subError: { code: "amount" } },
          events: [
            { eventID: 1, occuredAt: at(1), status: "Pending" },
            { eventID: 2, occuredAt: at(1), status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } }
          ],
          createdAt: at(1)
        })
        yield* repo.insert(bare)
        yield* repo.insert(full)
        yield* repo.insert(withdrawal(fresh("p")))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(bare))
        assert.deepStrictEqual(yield* repo.findById(full.id), Option.some(full))
        assert.isTrue(Option.isNone(yield* repo.findById("nope")))
        const tried: WithdrawalRecord = { ...bare, attempts: 1, version: 2 }
        assert.isTrue(yield* repo.update(tried, 1))
        const failure = { code: "authorization_failed", subError: { code: "temporarily_unavailable" } }
        const failed: WithdrawalRecord = {
          ...tried,
          status: "Failed",
          failure,
          events: [...tried.events, { eventID: 2, occuredAt: at(9), status: "Failed", failure }],
          version: 3
        }
        assert.isTrue(yield* repo.update(failed, 2))
        assert.isFalse(yield* repo.update({ ...tried, status: "Succeeded", version: 3 }, 2))
        assert.deepStrictEqual(yield* repo.findById(bare.id), Option.some(failed))
        const ids = (filter: Omit<WithdrawalFilter, "partyID">, limit = 10) =>
          Effect.map(repo.list({ partyID, ...filter }, { limit }), (rows) => rows.map((w) => w.id))
        assert.deepStrictEqual(yield* ids({}), [bare.id, full.id])
        assert.deepStrictEqual(yield* ids({ walletID: "w-2" }), [full.id])
        assert.deepStrictEqual(yield* ids({ identityID: "i-1" }), [bare.id])
        assert.deepStrictEqual(yield* ids({ withdrawalID: full.id }), [full.id])
        assert.deepStrictEqual(yield* ids({ destinationID: "dst-1" }), [bare.id])
        assert.deepStrictEqual(yield* ids({ status: "Failed" }), [bare.id, full.id])
        assert.deepStrictEqual(yield* ids({ status: "Pending" }), [])
        assert.deepStrictEqual(yield* ids({ createdAtFrom: at(1) }), [full.id])
        assert.deepStrictEqual(yield* ids({ createdAtTo: at(0) }), [bare.id])
        assert.deepStrictEqual(yield* ids({ amountFrom: 2_000 }), [full.id])
        assert.deepStrictEqual(yield* ids({ amountTo: 2_000 }), [bare.id])
        assert.deepStrictEqual(yield* ids({ currencyID: "USD" }), [])
        assert.deepStrictEqual(yield* ids({}, 0), [bare.id])
        assert.deepStrictEqual(
          yield* Effect.map(repo.list({ partyID }, { limit: 10, after: bare }), (rows) => rows.map((w) => w.id)),
          [full.id]
        )
      }))

    it.effect("WithdrawalRepository: a withdrawal out of another party's wallet is listed to its maker and to the wallet's owner, to nobody else", () =>
      Effect.gen(function*() {
        const repo = yield* WithdrawalRepository
        const owner = fresh("owner")
        const grantee = fresh("grantee")
        const stranger = fresh("stranger")
        const own = withdrawal(owner, { walletID: "w-owner" })
        const granted = withdrawal(grantee, { walletPartyID: owner, walletID: "w-owner", createdAt: at(1) })
        const granteesOwn = withdrawal(grantee, { walletID: "w-grantee", createdAt: at(2) })
        const strangers = withdrawal(stranger, { walletID: "w-stranger", createdAt: at(3) })
        for (const w of [own, granted, granteesOwn, strangers]) yield* repo.insert(w)
        const ids = (filter: WithdrawalFilter, limit = 10) => Effect.map(repo.list(filter, { limit }), (rows) => rows.map((w) => w.id))
        assert.deepStrictEqual(yield* ids({ partyID: owner }), [own.id, granted.id])
        assert.deepStrictEqual(yield* ids({ partyID: grantee }), [granted.id, granteesOwn.id])
        assert.deepStrictEqual(yield* ids({ partyID: stranger }), [strangers.id])
        // with the other filters, and in pages
        assert.deepStrictEqual(yield* ids({ partyID: owner, walletID: "w-owner", createdAtFrom: at(1) }), [granted.id])
        assert.deepStrictEqual(yield* ids({ partyID: grantee, walletID: "w-owner" }), [granted.id])
        assert.deepStrictEqual(yield* ids({ partyID: stranger, withdrawalID: granted.id }), [])
        assert.deepStrictEqual(yield* ids({ partyID: owner }, 0), [own.id])
        assert.deepStrictEqual(
          yield* Effect.map(repo.list({ partyID: owner }, { limit: 10, after: own }), (rows) => rows.map((w) => w.id)),
          [granted.id]
        )
      }))
  })
}
