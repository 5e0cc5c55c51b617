/**
 * The wallet interface's identities, challenges, providers, wallets, grants, deposits and W2W
 * transfers over HTTP, on SQLite and PostgreSQL: every operation, every 422 message, and the
 * operator's deposits, reverts, adjustments, challenge decisions and blocking.
 */
import { assert, layer } from "@effect/vitest"
import { ApiKeyService } from "@kassa/core"
import { Dialects, Expect, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { created, future, operator, refused } from "./support/WalletCalls.js"

const call = TestServer.call

/** A merchant with an identity and a wallet (RUB unless told). */
const walletOf = (apiKey: string, currency = "RUB") =>
  Effect.gen(function*() {
    const identity = (yield* call("POST", "/wallet/v0/identities", apiKey, { name: "Ivan", provider: "test" })).json
    const wallet = (yield* call("POST", "/wallet/v0/wallets", apiKey, { name: "Main", identity: identity.id, currency })).json
    return { identity, wallet }
  })

const account = (apiKey: string, walletID: string) =>
  Effect.map(call("GET", `/wallet/v0/wallets/${walletID}/account`, apiKey), (r) => ({ own: r.json.own.amount, available: r.json.available.amount }))

/** The operator's deposit, once it succeeded. */
const funded = (walletID: string, amount: number) =>
  Effect.gen(function*() {
    const d = yield* operator("POST", "/deposits", { wallet: walletID, source: "src-1", body: { amount, currency: "RUB" } })
    assert.strictEqual(d.status, 201, d.text)
    return yield* Expect.poll(operator("GET", `/deposits/${d.json.id}`), (r) => r.json.status !== "Pending", `deposit ${d.json.id}`)
  })

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Wallet domain [${dialect}]`, (it) => {
    it.effect("providers, identity classes and levels; an unknown one is 404 without a body", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* Fixtures.merchant()
        const providers = yield* call("GET", "/wallet/v0/providers?residence=rus", apiKey)
        assert.strictEqual(providers.status, 200, providers.text)
        assert.deepStrictEqual(providers.json.map((p: { id: string }) => p.id), ["test", "live"])
        assert.deepStrictEqual(providers.json[0], { id: "test", name: "Test provider", residences: ["RUS"] })
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/providers/live", apiKey)).json.id, "live")
        const missing = yield* call("GET", "/wallet/v0/providers/nope", apiKey)
        assert.strictEqual(missing.status, 404)
        assert.strictEqual(missing.text, "")
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/providers/test/identity-classes", apiKey)).json, [{ id: "person", name: "Person" }])
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/providers/live/identity-classes/company", apiKey)).json, { id: "company", name: "Company" })
        assert.strictEqual((yield* call("GET", "/wallet/v0/providers/test/identity-classes/company", apiKey)).status, 404)
        const levels = yield* call("GET", "/wallet/v0/providers/test/identity-classes/person/levels", apiKey)
        assert.deepStrictEqual(levels.json.map((l: { id: string }) => l.id), ["anonymous", "partial", "full"])
        const partial = yield* call("GET", "/wallet/v0/providers/test/identity-classes/person/levels/partial", apiKey)
        assert.deepStrictEqual(partial.json.challenges, [{
          id: "identification",
          name: "Full identification",
          requiredProofs: ["RUSDomesticPassport", "RUSRetireeInsuranceCertificate"]
        }])
        assert.strictEqual((yield* call("GET", "/wallet/v0/providers/test/identity-classes/person/levels/gold", apiKey)).status, 404)
      }))

    it.effect("identities: 201 with Location, the provider's default class, externalID replay and 409, lists, 422 words", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const first = created(
          yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test", externalID: "idt-1", metadata: { a: 1 } }),
          201,
          "/wallet/v0/identities"
        )
        assert.deepInclude(first, { name: "Ivan", provider: "test", class: "person", level: "anonymous", isBlocked: false, externalID: "idt-1" })
        assert.strictEqual(first.partyID, m.partyID)
        const again = yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test", externalID: "idt-1", metadata: { a: 1 } })
        assert.strictEqual(again.status, 201)
        assert.strictEqual(again.json.id, first.id)
        const conflict = yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Petr", provider: "test", externalID: "idt-1" })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.strictEqual(conflict.json.id, first.id)
        const live = created(yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "LLC", provider: "live" }), 201, "/wallet/v0/identities")
        assert.strictEqual(live.class, "company")

        refused(yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "x", provider: "nope" }), "No such provider")
        refused(yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "x", provider: "test", class: "company" }), "No such identity class")
        refused(yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "x", provider: "test", partyID: other.partyID }), "Party inaccessible")
        // a key an embedder issued through core for a party nobody onboarded
        const unknown = yield* (yield* ApiKeyService.ApiKeyService).issue("never-onboarded")
        refused(yield* call("POST", "/wallet/v0/identities", unknown.token, { name: "x", provider: "test" }), "Party does not exist")
        // the operator blocks, then suspends, the party: its identities are out of reach, nothing is written
        const standing = (command: string) => Effect.flatMap(Fixtures.operatorToken, (token) => call("PUT", `/admin/v1/parties/${other.partyID}/${command}`, token))
        for (const [command, undo] of [["block", "unblock"], ["suspend", "activate"]] as const) {
          assert.strictEqual((yield* standing(command)).status, 204)
          refused(yield* call("POST", "/wallet/v0/identities", other.apiKey, { name: "x", provider: "test", externalID: "blocked" }), "Identity inaccessible")
          assert.strictEqual((yield* standing(undo)).status, 204)
        }
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/identities", other.apiKey)).json, { result: [] })

        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/identities/${first.id}`, m.apiKey)).json, first)
        const theirs = yield* call("GET", `/wallet/v0/identities/${first.id}`, other.apiKey)
        assert.strictEqual(theirs.status, 404)
        assert.strictEqual(theirs.text, "")

        const all = yield* call("GET", "/wallet/v0/identities", m.apiKey)
        assert.strictEqual(all.status, 200, all.text)
        assert.deepStrictEqual(all.json.result.map((i: { id: string }) => i.id).sort(), [first.id, live.id].sort())
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/identities?providerID=live", m.apiKey)).json.result.map((i: { id: string }) => i.id), [live.id])
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/identities?partyID=${other.partyID}`, m.apiKey)).json, { result: [] })
        const page = yield* call("GET", "/wallet/v0/identities?limit=1", m.apiKey)
        assert.strictEqual(page.json.result.length, 1)
        const next = yield* call("GET", `/wallet/v0/identities?limit=1&continuationToken=${page.json.continuationToken}`, m.apiKey)
        assert.strictEqual(next.json.result.length, 1)
        assert.notStrictEqual(next.json.result[0].id, page.json.result[0].id)
        const bad = yield* call("GET", "/wallet/v0/identities?continuationToken=%21%21", m.apiKey)
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepInclude(bad.json, { errorType: "InvalidToken", name: "continuationToken" })

        const methods = yield* call("GET", `/wallet/v0/identities/${first.id}/withdrawal-methods`, m.apiKey)
        assert.deepStrictEqual(methods.json, { methods: [{ method: "WithdrawalMethodBankCard", paymentSystems: ["visa", "mastercard", "nspkmir"] }] })
        refused(yield* call("GET", `/wallet/v0/identities/${first.id}/withdrawal-methods`, other.apiKey), "No such identity")
      }))

    it.effect("challenges: 202 Pending with Location, one at a time (409), the operator completes it and the level rises; 422 words", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const identity = (yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test" })).json
        const base = `/wallet/v0/identities/${identity.id}/challenges`
        refused(yield* call("POST", base, m.apiKey, { type: "dna", proofs: [{ token: "passport-1" }] }), "No such challenge type")
        refused(
          yield* call("POST", base, m.apiKey, { type: "identification", proofs: [{ token: "passport-1" }, { token: "snils-1" }] }),
          "Illegal identification type for current identity level"
        )
        refused(yield* call("POST", base, m.apiKey, { type: "esia", proofs: [{ token: "scan-1" }] }), "Proof not found")
        refused(yield* call("POST", base, m.apiKey, { type: "esia", proofs: [{ token: "snils-1" }] }), "Insufficient proof")
        const challenge = created(yield* call("POST", base, m.apiKey, { type: "esia", proofs: [{ token: "passport-hold" }] }), 202, base)
        assert.deepInclude(challenge, { type: "esia", status: "Pending", proofs: [{ type: "RUSDomesticPassport", token: "passport-hold" }] })
        const busy = yield* call("POST", base, m.apiKey, { type: "esia", proofs: [{ token: "passport-2" }] })
        assert.strictEqual(busy.status, 409, busy.text)
        assert.deepStrictEqual(Object.keys(busy.json).sort(), ["id", "message"])
        assert.strictEqual(busy.json.id, challenge.id)
        assert.deepStrictEqual((yield* call("GET", `${base}/${challenge.id}`, m.apiKey)).json, challenge)
        assert.deepStrictEqual((yield* call("GET", `${base}?status=Pending`, m.apiKey)).json, [challenge])

        const decided = yield* operator("POST", `/identities/${identity.id}/challenges/${challenge.id}/complete`, {})
        assert.strictEqual(decided.status, 200, decided.text)
        assert.strictEqual(decided.json.status, "Completed")
        assert.isString(decided.json.validUntil)
        assert.deepInclude((yield* call("GET", `/wallet/v0/identities/${identity.id}`, m.apiKey)).json, { level: "partial", effectiveChallenge: challenge.id })
        const events = yield* call("GET", `${base}/${challenge.id}/events?limit=10`, m.apiKey)
        assert.deepStrictEqual(events.json.map((e: { eventID: number; changes: Array<{ status: string }> }) => [e.eventID, e.changes[0]!.status]), [
          [1, "Pending"],
          [2, "Completed"]
        ])
        assert.strictEqual((yield* call("GET", `${base}/${challenge.id}/events?limit=10&eventCursor=1`, m.apiKey)).json.length, 1)
        const event = yield* call("GET", `${base}/${challenge.id}/events/2`, m.apiKey)
        assert.deepStrictEqual(event.json.changes, [{ type: "IdentityChallengeStatusChanged", status: "Completed" }])
        assert.strictEqual((yield* call("GET", `${base}/${challenge.id}/events/3`, m.apiKey)).status, 404)
        assert.strictEqual((yield* call("GET", `${base}/nope`, m.apiKey)).status, 404)
        assert.strictEqual((yield* operator("POST", `/identities/${identity.id}/challenges/nope/cancel`, {})).status, 404)
      }))

    it.effect("wallets: 201 with Location, externalID, lists, account, grants; 422 words", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const identity = (yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test" })).json
        const wallet = created(
          yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Main", identity: identity.id, currency: "RUB", externalID: "wal-1" }),
          201,
          "/wallet/v0/wallets"
        )
        assert.deepInclude(wallet, { name: "Main", identity: identity.id, currency: "RUB", isBlocked: false, externalID: "wal-1" })
        assert.strictEqual((yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Main", identity: identity.id, currency: "RUB", externalID: "wal-1" })).json.id, wallet.id)
        assert.strictEqual((yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Main", identity: identity.id, currency: "USD", externalID: "wal-1" })).status, 409)
        refused(yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "x", identity: "nope", currency: "RUB" }), "No such identity")
        refused(yield* call("POST", "/wallet/v0/wallets", other.apiKey, { name: "x", identity: identity.id, currency: "RUB" }), "No such identity")
        refused(yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "x", identity: identity.id, currency: "JPY" }), "Currency not supported")

        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/wallets/${wallet.id}`, m.apiKey)).json, wallet)
        assert.strictEqual((yield* call("GET", `/wallet/v0/wallets/${wallet.id}`, other.apiKey)).status, 404)
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/external/wallets?externalID=wal-1", m.apiKey)).json, wallet)
        assert.strictEqual((yield* call("GET", "/wallet/v0/external/wallets?externalID=wal-1", other.apiKey)).status, 404)
        yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Dollars", identity: identity.id, currency: "USD" })
        assert.strictEqual((yield* call("GET", "/wallet/v0/wallets?limit=10", m.apiKey)).json.result.length, 2)
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/wallets?limit=10&currencyID=RUB", m.apiKey)).json.result.map((w: { id: string }) => w.id), [wallet.id])
        assert.strictEqual((yield* call("GET", `/wallet/v0/wallets?limit=10&identityID=${identity.id}`, m.apiKey)).json.result.length, 2)
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/wallets?limit=10", other.apiKey)).json, { result: [] })
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/wallets/${wallet.id}/account`, m.apiKey)).json, {
          own: { amount: 0, currency: "RUB" },
          available: { amount: 0, currency: "RUB" }
        })
        assert.strictEqual((yield* call("GET", `/wallet/v0/wallets/${wallet.id}/account`, other.apiKey)).status, 404)

        const validUntil = yield* future(3_600_000)
        const grant = yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, m.apiKey, { asset: { amount: 500, currency: "RUB" }, validUntil })
        assert.strictEqual(grant.status, 201, grant.text)
        assert.isString(grant.json.token)
        assert.deepStrictEqual(grant.json.asset, { amount: 500, currency: "RUB" })
        refused(
          yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, m.apiKey, { asset: { amount: 500, currency: "RUB" }, validUntil: "2020-01-01T00:00:00Z" }),
          "Invalid expiration: already expired"
        )
        assert.strictEqual((yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, other.apiKey, { asset: { amount: 5, currency: "RUB" }, validUntil })).status, 404)

        assert.strictEqual((yield* operator("PUT", `/identities/${identity.id}/block`)).status, 204)
        refused(yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "x", identity: identity.id, currency: "RUB" }), "Identity inaccessible")
        assert.strictEqual((yield* call("GET", `/wallet/v0/identities/${identity.id}`, m.apiKey)).json.isBlocked, true)
      }))

    it.effect("deposits by the operator: Pending then Succeeded, reverts and adjustments, every list with its filters", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const { identity, wallet } = yield* walletOf(m.apiKey)
        refused(yield* operator("POST", "/deposits", { wallet: "nope", source: "s", body: { amount: 1, currency: "RUB" } }), "No such wallet")
        refused(yield* operator("POST", "/deposits", { wallet: wallet.id, source: "s", body: { amount: 1, currency: "USD" } }), "Inconsistent currency")
        const deposit = (yield* funded(wallet.id, 1_000)).json
        assert.deepInclude(deposit, { wallet: wallet.id, source: "src-1", status: "Succeeded", body: { amount: 1_000, currency: "RUB" } })
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 1_000, available: 1_000 })

        refused(yield* operator("POST", `/deposits/${deposit.id}/reverts`, { body: { amount: 1_001, currency: "RUB" } }), "Insufficient deposit amount")
        refused(yield* operator("POST", "/deposits/nope/reverts", { body: { amount: 1, currency: "RUB" } }), "No such deposit")
        const revert = yield* operator("POST", `/deposits/${deposit.id}/reverts`, { body: { amount: 400, currency: "RUB" }, reason: "fraud" })
        assert.strictEqual(revert.status, 201, revert.text)
        yield* Expect.poll(account(m.apiKey, wallet.id), (a) => a.own === 600, "the revert")
        const adjustment = yield* operator("POST", `/deposits/${deposit.id}/adjustments`, { status: "Failed" })
        assert.strictEqual(adjustment.status, 201, adjustment.text)
        yield* Expect.poll(operator("GET", `/deposits/${deposit.id}`), (r) => r.json.status === "Failed", "the adjustment")
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 0, available: 0 })
        refused(yield* operator("POST", `/deposits/${deposit.id}/adjustments`, { status: "Failed" }), "Invalid adjustment status")
        refused(yield* operator("POST", `/deposits/${deposit.id}/reverts`, { body: { amount: 1, currency: "RUB" } }), "Invalid deposit status")

        const list = (path: string) => Effect.map(call("GET", path, m.apiKey), (r) => {
          assert.strictEqual(r.status, 200, r.text)
          return r.json.result as Array<{ id: string }>
        })
        assert.deepStrictEqual((yield* list(`/wallet/v0/deposits?limit=10&walletID=${wallet.id}&status=Failed&currencyID=RUB`)).map((d) => d.id), [deposit.id])
        assert.deepStrictEqual(yield* list(`/wallet/v0/deposits?limit=10&status=Succeeded`), [])
        assert.strictEqual((yield* list(`/wallet/v0/deposits?limit=10&identityID=${identity.id}&revertStatus=Partial&amountFrom=1000&amountTo=1000`)).length, 1)
        assert.strictEqual((yield* list(`/wallet/v0/deposits?limit=10&sourceID=src-1&createdAtFrom=2020-01-01T00:00:00Z&createdAtTo=2100-01-01T00:00:00Z`)).length, 1)
        assert.deepStrictEqual((yield* list(`/wallet/v0/deposit-reverts?limit=10&depositID=${deposit.id}`)).map((r) => r.id), [revert.json.id])
        assert.deepStrictEqual((yield* list(`/wallet/v0/deposit-adjustments?limit=10&depositID=${deposit.id}&status=Succeeded`)).map((a) => a.id), [adjustment.json.id])
        assert.deepStrictEqual(yield* list("/wallet/v0/deposit-adjustments?limit=10&partyID=someone-else"), [])
      }))

    it.effect("W2W: 202 Pending with Location, then Succeeded; a transfer the wallet cannot cover fails; 422 words", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const from = (yield* walletOf(m.apiKey)).wallet
        const to = (yield* walletOf(other.apiKey)).wallet
        const usd = (yield* walletOf(m.apiKey, "USD")).wallet
        yield* funded(from.id, 1_000)
        const transfer = created(
          yield* call("POST", "/wallet/v0/w2w/transfers", m.apiKey, { sender: from.id, receiver: to.id, body: { amount: 300, currency: "RUB" }, externalID: "w2w-1" }),
          202,
          "/wallet/v0/w2w/transfers"
        )
        assert.deepInclude(transfer, { sender: from.id, receiver: to.id, body: { amount: 300, currency: "RUB" }, externalID: "w2w-1" })
        const done = yield* Expect.poll(
          call("GET", `/wallet/v0/w2w/transfers/${transfer.id}`, m.apiKey),
          (r) => r.json.status.status !== "Pending",
          "the transfer"
        )
        assert.deepStrictEqual(done.json.status, { status: "Succeeded" })
        assert.deepStrictEqual(yield* account(other.apiKey, to.id), { own: 300, available: 300 })
        assert.strictEqual((yield* call("GET", `/wallet/v0/w2w/transfers/${transfer.id}`, other.apiKey)).status, 404)
        const poor = yield* call("POST", "/wallet/v0/w2w/transfers", m.apiKey, { sender: from.id, receiver: to.id, body: { amount: 701, currency: "RUB" } })
        assert.strictEqual(poor.status, 202, poor.text)
        assert.deepStrictEqual(poor.json.status, { status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } })

        const send = (sender: string, receiver: string, amount: number, currency = "RUB") =>
          call("POST", "/wallet/v0/w2w/transfers", m.apiKey, { sender, receiver, body: { amount, currency } })
        refused(yield* send(from.id, to.id, 0), "Bad transfer amount")
        refused(yield* send("nope", to.id, 1), "No such wallet sender")
        refused(yield* send(to.id, from.id, 1), "No such wallet sender")
        refused(yield* send(from.id, "nope", 1), "No such wallet receiver")
        refused(yield* send(from.id, to.id, 1, "USD"), "Currency not allowed")
        refused(yield* send(from.id, usd.id, 1), "Inconsistent currency")
        refused(yield* send(from.id, from.id, 1), "Sender and receiver are one wallet")
        assert.strictEqual((yield* operator("PUT", `/wallets/${to.id}/block`)).status, 204)
        refused(yield* send(from.id, to.id, 1), "Wallet inaccessible")
        assert.strictEqual((yield* call("GET", `/wallet/v0/wallets/${to.id}`, other.apiKey)).json.isBlocked, true)
      }))

    it.effect("30 concurrent W2W requests never overdraw the sender", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const from = (yield* walletOf(m.apiKey)).wallet
        const to = (yield* walletOf(m.apiKey)).wallet
        yield* funded(from.id, 1_000)
        const answers = yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          () => call("POST", "/wallet/v0/w2w/transfers", m.apiKey, { sender: from.id, receiver: to.id, body: { amount: 70, currency: "RUB" } }),
          { concurrency: 30 }
        )
        assert.isTrue(answers.every((r) => r.status === 202))
        assert.strictEqual(answers.filter((r) => r.json.status.status !== "Failed").length, 14)
        assert.strictEqual((yield* account(m.apiKey, from.id)).available, 20)
        yield* Expect.poll(account(m.apiKey, to.id), (a) => a.own === 980, "the transfers")
        assert.deepStrictEqual(yield* account(m.apiKey, from.id), { own: 20, available: 20 })
      }))
  })
}
