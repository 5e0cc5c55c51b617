/**
 * The wallet interface's destinations and withdrawals over HTTP, on SQLite and PostgreSQL: every
 * operation, every 422 message and 400 errorType they answer, the test payout provider's cards,
 * events, lists, grants (a granted withdrawal read by its maker and the wallet's owner), and 50
 * concurrent withdrawals that never overdraw their wallet.
 */
import { assert, layer } from "@effect/vitest"
import { Dialects, Expect, Fixtures, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { created, future, operator, refused } from "./support/WalletCalls.js"

const call = TestServer.call
const rub = (amount: number) => ({ amount, currency: "RUB" })

const identityOf = (apiKey: string, provider = "test") =>
  Effect.map(call("POST", "/wallet/v0/identities", apiKey, { name: "Ivan", provider }), (r) => r.json)

const walletOf = (apiKey: string, currency = "RUB") =>
  Effect.gen(function*() {
    const identity = yield* identityOf(apiKey)
    return (yield* call("POST", "/wallet/v0/wallets", apiKey, { name: "Main", identity: identity.id, currency })).json
  })

const cardToken = (apiKey: string, cardNumber: string) =>
  Effect.map(call("POST", "/payres/v0/bank-cards", apiKey, { type: "BankCard", cardNumber, expDate: "12/40" }), (r) => r.json.token as string)

/** A destination of a new identity to `card`, once the provider decided on it. */
const destinationOf = (apiKey: string, card = "4242424242424242", currency = "RUB", provider = "test") =>
  Effect.gen(function*() {
    const identity = yield* identityOf(apiKey, provider)
    const d = yield* call("POST", "/wallet/v0/destinations", apiKey, {
      name: "Card",
      identity: identity.id,
      currency,
      resource: { type: "BankCardDestinationResource", token: yield* cardToken(apiKey, card) }
    })
    assert.strictEqual(d.status, 201, d.text)
    if (card === "4000000100000076") return d.json
    return (yield* Expect.poll(call("GET", `/wallet/v0/destinations/${d.json.id}`, apiKey), (r) => r.json.status === "Authorized", "authorization"))
      .json
  })

const account = (apiKey: string, walletID: string) =>
  Effect.map(call("GET", `/wallet/v0/wallets/${walletID}/account`, apiKey), (r) => ({ own: r.json.own.amount, available: r.json.available.amount }))

const funded = (walletID: string, amount: number) =>
  Effect.gen(function*() {
    const d = yield* operator("POST", "/deposits", { wallet: walletID, source: "src-1", body: rub(amount) })
    assert.strictEqual(d.status, 201, d.text)
    return yield* Expect.poll(operator("GET", `/deposits/${d.json.id}`), (r) => r.json.status !== "Pending", `deposit ${d.json.id}`)
  })

const settled = (apiKey: string, id: string) =>
  Effect.map(Expect.poll(call("GET", `/wallet/v0/withdrawals/${id}`, apiKey), (r) => r.json.status !== "Pending", `withdrawal ${id}`), (r) => r.json)

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "120 seconds", excludeTestServices: true })(`Wallet withdrawals [${dialect}]`, (it) => {
    it.effect("destinations: 201 Unauthorized with Location, then Authorized; reads, lists, externalID and grants", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const identity = yield* identityOf(m.apiKey)
        const token = yield* cardToken(m.apiKey, "5555555555554444")
        const body = {
          name: "Card",
          identity: identity.id,
          currency: "RUB",
          resource: { type: "BankCardDestinationResource", token },
          externalID: "dest-1",
          metadata: { note: "x" }
        }
        const d = created(yield* call("POST", "/wallet/v0/destinations", m.apiKey, body), 201, "/wallet/v0/destinations")
        assert.deepInclude(d, { status: "Unauthorized", identity: identity.id, currency: "RUB", isBlocked: false, externalID: "dest-1" })
        assert.deepStrictEqual(d.resource, { type: "BankCardDestinationResource", token, bin: "555555", lastDigits: "4444", paymentSystem: "mastercard" })
        assert.notInclude(JSON.stringify(d), "5555555555554444")
        yield* Expect.poll(call("GET", `/wallet/v0/destinations/${d.id}`, m.apiKey), (r) => r.json.status === "Authorized", "authorization")
        // the same externalID answers the original; another body is 409
        assert.strictEqual((yield* call("POST", "/wallet/v0/destinations", m.apiKey, body)).json.id, d.id)
        const conflict = yield* call("POST", "/wallet/v0/destinations", m.apiKey, { ...body, name: "Other" })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.deepInclude(conflict.json, { externalID: "dest-1", id: d.id })
        assert.strictEqual((yield* call("GET", "/wallet/v0/external-ids/destinations/dest-1", m.apiKey)).json.id, d.id)
        assert.strictEqual((yield* call("GET", "/wallet/v0/external-ids/destinations/dest-1", other.apiKey)).status, 404)
        const missing = yield* call("GET", `/wallet/v0/destinations/${d.id}`, other.apiKey)
        assert.strictEqual(missing.status, 404)
        assert.strictEqual(missing.text, "")
        // lists
        yield* destinationOf(m.apiKey, "4242424242424242", "USD")
        const all = yield* call("GET", "/wallet/v0/destinations?limit=10", m.apiKey)
        assert.strictEqual(all.json.result.length, 2)
        assert.strictEqual((yield* call("GET", "/wallet/v0/destinations?limit=10&currencyID=USD", m.apiKey)).json.result.length, 1)
        assert.strictEqual((yield* call("GET", `/wallet/v0/destinations?limit=10&identityID=${identity.id}`, m.apiKey)).json.result.length, 1)
        const page = yield* call("GET", "/wallet/v0/destinations?limit=1", m.apiKey)
        assert.strictEqual(page.json.result.length, 1)
        const next = yield* call("GET", `/wallet/v0/destinations?limit=1&continuationToken=${page.json.continuationToken}`, m.apiKey)
        assert.notStrictEqual(next.json.result[0].id, page.json.result[0].id)
        assert.strictEqual((yield* call("GET", "/wallet/v0/destinations?limit=10", other.apiKey)).json.result.length, 0)
        // grants
        const validUntil = yield* future(3_600_000)
        const grant = yield* call("POST", `/wallet/v0/destinations/${d.id}/grants`, m.apiKey, { validUntil })
        assert.strictEqual(grant.status, 201, grant.text)
        assert.isString(grant.json.token)
        assert.strictEqual(new Date(grant.json.validUntil).getTime(), new Date(validUntil).getTime())
        refused(yield* call("POST", `/wallet/v0/destinations/${d.id}/grants`, m.apiKey, { validUntil: yield* future(-1000) }), "Invalid expiration: already expired")
        assert.strictEqual((yield* call("POST", `/wallet/v0/destinations/${d.id}/grants`, other.apiKey, { validUntil })).status, 404)
      }))

    it.effect("destinations refused: the 422 messages and 400 InvalidResourceToken; the unauthorized card stays Unauthorized", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const identity = yield* identityOf(m.apiKey)
        const token = yield* cardToken(m.apiKey, "4242424242424242")
        const base = { name: "Card", identity: identity.id, currency: "RUB", resource: { type: "BankCardDestinationResource", token } }
        refused(yield* call("POST", "/wallet/v0/destinations", m.apiKey, { ...base, identity: "nope" }), "No such identity")
        refused(yield* call("POST", "/wallet/v0/destinations", other.apiKey, base), "No such identity")
        refused(yield* call("POST", "/wallet/v0/destinations", m.apiKey, { ...base, currency: "JPY" }), "Currency not supported")
        refused(
          yield* call("POST", "/wallet/v0/destinations", m.apiKey, {
            ...base,
            resource: { type: "DigitalWalletDestinationResource", id: "wallet-1", provider: "paypal" }
          }),
          "Resource type not allowed"
        )
        const bad = yield* call("POST", "/wallet/v0/destinations", m.apiKey, { ...base, resource: { type: "BankCardDestinationResource", token: "forged" } })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepInclude(bad.json, { errorType: "InvalidResourceToken", name: "resource" })
        const stays = yield* destinationOf(m.apiKey, "4000000100000076")
        yield* Effect.sleep("300 millis")
        assert.strictEqual((yield* call("GET", `/wallet/v0/destinations/${stays.id}`, m.apiKey)).json.status, "Unauthorized")
        assert.strictEqual((yield* operator("PUT", `/identities/${identity.id}/block`)).status, 204)
        refused(yield* call("POST", "/wallet/v0/destinations", m.apiKey, base), "Identity inaccessible")
      }))

    it.effect("withdrawals: 202 Pending with Location and fee, then Succeeded; reads, events, lists, externalID", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const wallet = yield* walletOf(m.apiKey)
        yield* funded(wallet.id, 10_000)
        const d = yield* destinationOf(m.apiKey)
        const body = { wallet: wallet.id, destination: d.id, body: rub(1000), externalID: "wd-1", metadata: { order: 7 } }
        const x = created(yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, body), 202, "/wallet/v0/withdrawals")
        assert.deepInclude(x, { wallet: wallet.id, destination: d.id, status: "Pending", externalID: "wd-1" })
        assert.deepStrictEqual(x.fee, rub(20))
        const done = yield* settled(m.apiKey, x.id)
        assert.strictEqual(done.status, "Succeeded")
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 8_980, available: 8_980 })
        // events
        const events = yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=10`, m.apiKey)
        assert.strictEqual(events.status, 200, events.text)
        assert.deepStrictEqual(events.json.map((e: { eventID: number; changes: ReadonlyArray<{ type: string; status: string }> }) => [e.eventID, e.changes[0]!.type, e.changes[0]!.status]), [
          [1, "WithdrawalStatusChanged", "Pending"],
          [2, "WithdrawalStatusChanged", "Succeeded"]
        ])
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=10&eventCursor=1`, m.apiKey)).json.length, 1)
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=1`, m.apiKey)).json.length, 1)
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=0`, m.apiKey)).status, 400)
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=1001`, m.apiKey)).status, 400)
        const second = yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events/2`, m.apiKey)
        assert.strictEqual(second.json.changes[0].status, "Succeeded")
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events/3`, m.apiKey)).status, 404)
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=10`, other.apiKey)).status, 404)
        // reads and externalID
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}`, other.apiKey)).status, 404)
        assert.strictEqual((yield* call("GET", "/wallet/v0/external-ids/withdrawals/wd-1", m.apiKey)).json.id, x.id)
        assert.strictEqual((yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, body)).json.id, x.id)
        const conflict = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { ...body, body: rub(999) })
        assert.strictEqual(conflict.status, 409, conflict.text)
        assert.deepInclude(conflict.json, { externalID: "wd-1", id: x.id })
        // lists with every filter
        yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: wallet.id, destination: d.id, body: rub(2000) })
        const count = (query: string) => Effect.map(call("GET", `/wallet/v0/withdrawals?limit=10${query}`, m.apiKey), (r) => r.json.result.length as number)
        assert.strictEqual(yield* count(""), 2)
        assert.strictEqual(yield* count(`&walletID=${wallet.id}`), 2)
        assert.strictEqual(yield* count(`&identityID=${wallet.identity}`), 2)
        assert.strictEqual(yield* count(`&withdrawalID=${x.id}`), 1)
        assert.strictEqual(yield* count(`&destinationID=${d.id}`), 2)
        assert.strictEqual(yield* count("&status=Succeeded&amountTo=1500"), 1)
        assert.strictEqual(yield* count("&amountFrom=1500&amountTo=2500"), 1)
        assert.strictEqual(yield* count("&currencyID=USD"), 0)
        assert.strictEqual(yield* count(`&createdAtFrom=${encodeURIComponent(yield* future(60_000))}`), 0)
        assert.strictEqual(yield* count(`&createdAtTo=${encodeURIComponent(yield* future(60_000))}`), 2)
        assert.strictEqual((yield* call("GET", "/wallet/v0/withdrawals?limit=10", other.apiKey)).json.result.length, 0)
      }))

    it.effect("the provider's cards: a rejected card and too little money fail with their failures; the once-unavailable card waits Pending, its money held, for the retry", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const wallet = yield* walletOf(m.apiKey)
        yield* funded(wallet.id, 5_000)
        const rejected = yield* destinationOf(m.apiKey, "4000000100000019")
        const x = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: wallet.id, destination: rejected.id, body: rub(1000) })
        assert.strictEqual(x.status, 202, x.text)
        const failed = yield* settled(m.apiKey, x.json.id)
        assert.deepInclude(failed, {
          status: "Failed",
          failure: {
            code: "authorization_failed",
            subError: { code: "destination_rejected", subError: { code: "bank_card_rejected", subError: { code: "card_number_invalid" } } }
          }
        })
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 5_000, available: 5_000 })
        const ok = yield* destinationOf(m.apiKey)
        const tooMuch = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: wallet.id, destination: ok.id, body: rub(5_000) })
        assert.strictEqual(tooMuch.status, 202, tooMuch.text)
        assert.deepInclude(tooMuch.json, { status: "Failed", failure: { code: "account_limit_exceeded", subError: { code: "amount" } } })
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 5_000, available: 5_000 })
        // the first attempt finds the provider unavailable: still Pending, with the hold
        const once = yield* destinationOf(m.apiKey, "4000000100000050")
        const y = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: wallet.id, destination: once.id, body: rub(1000) })
        yield* Effect.sleep("300 millis")
        assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${y.json.id}`, m.apiKey)).json.status, "Pending")
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 5_000, available: 3_980 })
      }))

    it.effect("withdrawals refused, each with the interface's words", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const wallet = yield* walletOf(m.apiKey)
        yield* funded(wallet.id, 5_000)
        const d = yield* destinationOf(m.apiKey)
        const ok = { wallet: wallet.id, destination: d.id, body: rub(1000) }
        const send = (body: unknown, apiKey = m.apiKey) => call("POST", "/wallet/v0/withdrawals", apiKey, body)
        refused(yield* send({ ...ok, wallet: "nope" }), "No such wallet")
        refused(yield* send(ok, other.apiKey), "No such wallet")
        refused(yield* send({ ...ok, destination: "nope" }), "No such destination")
        refused(yield* send({ ...ok, body: rub(0) }), "Invalid cash amount")
        refused(yield* send({ ...ok, body: rub(10_000_001) }), "Invalid cash amount")
        refused(yield* send({ ...ok, body: { amount: 1000, currency: "USD" } }), "Invalid currency")
        const unauthorized = yield* destinationOf(m.apiKey, "4000000100000076")
        refused(yield* send({ ...ok, destination: unauthorized.id }), "Destination unauthorized")
        const live = yield* destinationOf(m.apiKey, "4242424242424242", "RUB", "live")
        refused(yield* send({ ...ok, destination: live.id }), "This wallet and destination cannot be used together")
        // the card token was stored (its payment system is known), but the payout provider knows no issuer of its BIN
        const unknownIssuer = yield* destinationOf(m.apiKey, "4000020000000000")
        refused(yield* send({ ...ok, destination: unknownIssuer.id }), "Unknown card issuer")
        const eur = yield* walletOf(m.apiKey, "EUR")
        const eurCard = yield* destinationOf(m.apiKey, "4242424242424242", "EUR")
        refused(yield* send({ wallet: eur.id, destination: eurCard.id, body: { amount: 1000, currency: "EUR" } }), "Forbidden currency")
        // another party withdraws with grants: up to the wallet grant's asset
        const validUntil = yield* future(3_600_000)
        const walletGrant = (yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, m.apiKey, { asset: rub(1_020), validUntil })).json.token
        const destinationGrant = (yield* call("POST", `/wallet/v0/destinations/${d.id}/grants`, m.apiKey, { validUntil })).json.token
        refused(yield* send({ ...ok, walletGrant, destinationGrant: "forged" }, other.apiKey), "Destination unauthorized")
        const byGrant = yield* send({ ...ok, walletGrant, destinationGrant }, other.apiKey)
        assert.strictEqual(byGrant.status, 202, byGrant.text)
        assert.strictEqual((yield* settled(other.apiKey, byGrant.json.id)).status, "Succeeded")
        refused(yield* send({ ...ok, body: rub(100), walletGrant, destinationGrant }, other.apiKey), "Wallet unauthorized")
        assert.strictEqual((yield* operator("PUT", `/wallets/${wallet.id}/block`)).status, 204)
        refused(yield* send(ok), "Wallet inaccessible")
        // bad bodies are 400 naming the body
        const bad = yield* send({ wallet: wallet.id, destination: d.id, body: { amount: "ten", currency: "RUB" } })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepInclude(bad.json, { errorType: "SchemaViolated", name: "withdrawal" })
      }))

    it.effect("a withdrawal made with the owner's grants: its maker and the wallet's owner read it, its events and lists; nobody else", () =>
      Effect.gen(function*() {
        const owner = yield* Fixtures.merchant()
        const maker = yield* Fixtures.merchant()
        const stranger = yield* Fixtures.merchant()
        const wallet = yield* walletOf(owner.apiKey)
        yield* funded(wallet.id, 5_000)
        const d = yield* destinationOf(owner.apiKey)
        const validUntil = yield* future(3_600_000)
        const walletGrant = (yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, owner.apiKey, { asset: rub(1_020), validUntil })).json.token
        const destinationGrant = (yield* call("POST", `/wallet/v0/destinations/${d.id}/grants`, owner.apiKey, { validUntil })).json.token
        const granted = yield* call("POST", "/wallet/v0/withdrawals", maker.apiKey, {
          wallet: wallet.id,
          destination: d.id,
          body: rub(1000),
          externalID: "granted-1",
          walletGrant,
          destinationGrant
        })
        assert.strictEqual(granted.status, 202, granted.text)
        const x = yield* settled(maker.apiKey, granted.json.id)
        const owned = yield* call("POST", "/wallet/v0/withdrawals", owner.apiKey, { wallet: wallet.id, destination: d.id, body: rub(500) })
        assert.strictEqual(owned.status, 202, owned.text)
        // the reads: the maker's and the owner's alike
        for (const apiKey of [maker.apiKey, owner.apiKey]) {
          const read = yield* call("GET", `/wallet/v0/withdrawals/${x.id}`, apiKey)
          assert.deepStrictEqual([read.status, read.json], [200, x])
          const events = yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events?limit=10`, apiKey)
          assert.deepStrictEqual(events.json.map((e: { changes: ReadonlyArray<{ status: string }> }) => e.changes[0]!.status), ["Pending", "Succeeded"])
          assert.strictEqual((yield* call("GET", `/wallet/v0/withdrawals/${x.id}/events/2`, apiKey)).status, 200)
        }
        for (const path of [`/wallet/v0/withdrawals/${x.id}`, `/wallet/v0/withdrawals/${x.id}/events?limit=10`, `/wallet/v0/withdrawals/${x.id}/events/1`]) {
          assert.strictEqual((yield* call("GET", path, stranger.apiKey)).status, 404, path)
        }
        // an externalID is its maker's
        assert.strictEqual((yield* call("GET", "/wallet/v0/external-ids/withdrawals/granted-1", maker.apiKey)).json.id, x.id)
        assert.strictEqual((yield* call("GET", "/wallet/v0/external-ids/withdrawals/granted-1", owner.apiKey)).status, 404)
        // the lists: the owner's has everything out of its wallet, the maker's what it made
        const ids = (apiKey: string, query = "") =>
          Effect.map(call("GET", `/wallet/v0/withdrawals?limit=10${query}`, apiKey), (r) => r.json.result.map((w: { id: string }) => w.id))
        assert.deepStrictEqual(yield* ids(owner.apiKey), [x.id, owned.json.id])
        assert.deepStrictEqual(yield* ids(owner.apiKey, `&walletID=${wallet.id}&identityID=${wallet.identity}`), [x.id, owned.json.id])
        assert.deepStrictEqual(yield* ids(owner.apiKey, `&withdrawalID=${x.id}`), [x.id])
        assert.deepStrictEqual(yield* ids(owner.apiKey, "&amountFrom=1000"), [x.id])
        assert.deepStrictEqual(yield* ids(maker.apiKey), [x.id])
        assert.deepStrictEqual(yield* ids(maker.apiKey, `&withdrawalID=${owned.json.id}`), [])
        assert.deepStrictEqual(yield* ids(stranger.apiKey), [])
        assert.deepStrictEqual(yield* ids(stranger.apiKey, `&walletID=${wallet.id}`), [])
      }))

    it.effect("quotes: 202 with both amounts and a token; a withdrawal with it pays out in the destination's currency; its refusals", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const wallet = yield* walletOf(m.apiKey)
        yield* funded(wallet.id, 20_000)
        const usd = yield* destinationOf(m.apiKey, "4242424242424242", "USD")
        const params = { walletID: wallet.id, destinationID: usd.id, currencyFrom: "RUB", currencyTo: "USD", cash: rub(9_050) }
        const quote = yield* call("POST", "/wallet/v0/withdrawal-quotes", m.apiKey, params)
        assert.strictEqual(quote.status, 202, quote.text)
        assert.deepInclude(quote.json, { cashFrom: rub(9_050), cashTo: { amount: 100, currency: "USD" } })
        assert.strictEqual(new Date(quote.json.expiresOn).getTime() - new Date(quote.json.createdAt).getTime(), 15 * 60_000)
        // externalID: the same request answers the first quote, another one is 409
        const keyed = { ...params, externalID: "q-1" }
        const first = (yield* call("POST", "/wallet/v0/withdrawal-quotes", m.apiKey, keyed)).json
        assert.deepStrictEqual((yield* call("POST", "/wallet/v0/withdrawal-quotes", m.apiKey, keyed)).json, first)
        assert.strictEqual((yield* call("POST", "/wallet/v0/withdrawal-quotes", m.apiKey, { ...keyed, cash: rub(9_000) })).status, 409)
        const send = (body: unknown, apiKey = m.apiKey) => call("POST", "/wallet/v0/withdrawals", apiKey, body)
        const ok = { wallet: wallet.id, destination: usd.id, body: rub(9_050), quoteToken: quote.json.quoteToken }
        refused(yield* send({ ...ok, quoteToken: undefined }), "Invalid currency")
        refused(yield* send({ ...ok, body: rub(9_000) }), "Withdrawal body differs from quote`s one")
        const w2 = yield* walletOf(m.apiKey)
        refused(yield* send({ ...ok, wallet: w2.id }), "Withdrawal wallet differs from quote`s one")
        const usd2 = yield* destinationOf(m.apiKey, "4242424242424242", "USD")
        refused(yield* send({ ...ok, destination: usd2.id }), "Withdrawal destination differs from quote`s one")
        refused(yield* send({ ...ok, quoteToken: "forged" }), "Quote token expired")
        const validUntil = yield* future(3_600_000)
        const walletGrant = (yield* call("POST", `/wallet/v0/wallets/${wallet.id}/grants`, m.apiKey, { asset: rub(10_000), validUntil })).json.token
        const destinationGrant = (yield* call("POST", `/wallet/v0/destinations/${usd.id}/grants`, m.apiKey, { validUntil })).json.token
        refused(yield* send({ ...ok, walletGrant, destinationGrant }, other.apiKey), "Withdrawal owner differs from quote`s one")
        const x = yield* send(ok)
        assert.strictEqual(x.status, 202, x.text)
        assert.strictEqual((yield* settled(m.apiKey, x.json.id)).status, "Succeeded")
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 20_000 - 9_151, available: 20_000 - 9_151 })
        // createQuote's own refusals
        const quoteOf = (body: unknown, apiKey = m.apiKey) => call("POST", "/wallet/v0/withdrawal-quotes", apiKey, body)
        refused(yield* quoteOf({ ...params, cash: rub(0) }), "Invalid cash amount")
        refused(yield* quoteOf({ ...params, cash: { amount: 10, currency: "EUR" } }), "Invalid currency")
        refused(yield* quoteOf({ ...params, destinationID: undefined, currencyTo: "EUR" }), "Forbidden currency")
        refused(yield* quoteOf({ ...params, walletID: "nope" }), "No such wallet")
        refused(yield* quoteOf({ ...params, walletGrant: "forged" }, other.apiKey), "Wallet unauthorized")
        refused(yield* quoteOf({ ...params, destinationID: "nope" }), "No such destination")
        const unauthorized = yield* destinationOf(m.apiKey, "4000000100000076", "USD")
        refused(yield* quoteOf({ ...params, destinationID: unauthorized.id }), "Destination unauthorized")
        const live = yield* destinationOf(m.apiKey, "4242424242424242", "RUB", "live")
        refused(yield* quoteOf({ ...params, currencyTo: "RUB", destinationID: live.id }), "This wallet and destination cannot be used together")
        const unknownIssuer = yield* destinationOf(m.apiKey, "4000020000000000", "USD")
        refused(yield* quoteOf({ ...params, destinationID: unknownIssuer.id }), "Unknown card issuer")
        const bad = yield* quoteOf({ ...params, currencyTo: "usd" })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.strictEqual(bad.json.errorType, "SchemaViolated")
      }))

    it.effect("the operator forbids a provider's payment system: withdrawal methods drop it, new destinations are refused, existing ones no longer withdraw; allowed again, they do", () => {
      const terms = (command: string, provider = "live", system = "nspkmir") =>
        operator("PUT", `/providers/${provider}/payment-systems/${system}/${command}`)
      return Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const identity = yield* identityOf(m.apiKey, "live")
        const wallet = (yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "Main", identity: identity.id, currency: "RUB" })).json
        yield* funded(wallet.id, 5_000)
        const mir = yield* destinationOf(m.apiKey, "2200000000000004", "RUB", "live")
        const forbidden = yield* terms("forbid")
        assert.strictEqual(forbidden.status, 204, forbidden.text)
        assert.deepStrictEqual((yield* call("GET", `/wallet/v0/identities/${identity.id}/withdrawal-methods`, m.apiKey)).json, {
          methods: [{ method: "WithdrawalMethodBankCard", paymentSystems: ["visa", "mastercard"] }]
        })
        const resource = { type: "BankCardDestinationResource", token: yield* cardToken(m.apiKey, "2200000000000004") }
        refused(
          yield* call("POST", "/wallet/v0/destinations", m.apiKey, { name: "Card", identity: identity.id, currency: "RUB", resource }),
          "Resource type not allowed"
        )
        const quote = { walletID: wallet.id, destinationID: mir.id, currencyFrom: "RUB", currencyTo: "RUB", cash: rub(1000) }
        refused(yield* call("POST", "/wallet/v0/withdrawal-quotes", m.apiKey, quote), "Destination uses resource no longer allowed")
        const withdrawal = { wallet: wallet.id, destination: mir.id, body: rub(1000) }
        refused(yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, withdrawal), "Destination uses resource no longer allowed")
        assert.deepStrictEqual((yield* call("GET", "/wallet/v0/withdrawals?limit=10", m.apiKey)).json.result, [])
        // the other provider's terms are its own
        assert.include(
          (yield* call("GET", `/wallet/v0/identities/${(yield* identityOf(m.apiKey)).id}/withdrawal-methods`, m.apiKey)).json.methods[0].paymentSystems,
          "nspkmir"
        )
        assert.strictEqual((yield* terms("forbid")).status, 204)
        assert.strictEqual((yield* terms("allow")).status, 204)
        const x = yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, withdrawal)
        assert.strictEqual(x.status, 202, x.text)
        assert.strictEqual((yield* settled(m.apiKey, x.json.id)).status, "Succeeded")
        // only the provider's own payment systems, of a known provider
        assert.strictEqual((yield* terms("forbid", "nope")).status, 404)
        assert.strictEqual((yield* terms("forbid", "live", "amex")).status, 404)
        assert.strictEqual((yield* terms("remove")).status, 400)
      }).pipe(Effect.ensuring(Effect.orDie(terms("allow"))))
    })

    it.effect("50 concurrent withdrawals from one wallet never overdraw it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const wallet = yield* walletOf(m.apiKey)
        yield* funded(wallet.id, 10 * 1_020)
        const d = yield* destinationOf(m.apiKey)
        const answers = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          () => call("POST", "/wallet/v0/withdrawals", m.apiKey, { wallet: wallet.id, destination: d.id, body: rub(1000) }),
          { concurrency: 50 }
        )
        assert.isTrue(answers.every((r) => r.status === 202), answers.map((r) => r.status).join(","))
        assert.strictEqual(answers.filter((r) => r.json.status !== "Failed").length, 10)
        assert.isAtLeast((yield* account(m.apiKey, wallet.id)).available, 0)
        yield* Expect.poll(account(m.apiKey, wallet.id), (a) => a.own === 0, "the payouts")
        assert.deepStrictEqual(yield* account(m.apiKey, wallet.id), { own: 0, available: 0 })
      }))
  })
}
