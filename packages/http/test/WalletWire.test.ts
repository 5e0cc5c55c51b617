import { assert, layer } from "@effect/vitest"
import { Dialects, Fixtures, TestServer } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

type Method = "GET" | "POST" | "DELETE"

const call = (
  method: Method,
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {}
) =>
  TestServer.raw(method, path, {
    headers: {
      "x-request-id": TestServer.requestId(),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })

const badRequest = (
  response: TestServer.RawResponse,
  errorType: string,
  name: string,
  what = ""
) => {
  assert.strictEqual(response.status, 400, `${what} ${response.text}`)
  assert.strictEqual(response.json.errorType, errorType, `${what} ${response.text}`)
  assert.strictEqual(response.json.name, name, `${what} ${response.text}`)
  assert.isString(response.json.description)
  assert.deepStrictEqual(Object.keys(response.json).sort(), ["description", "errorType", "name"])
  assert.strictEqual(response.headers["content-type"], "application/json; charset=utf-8")
}

const future = (days: number) => Effect.map(Clock.currentTimeMillis, (now) => new Date(now + days * 86_400_000).toISOString())

/** One well-formed request per operation of the wallet and card-token interfaces. */
const operations = (validUntil: string): ReadonlyArray<readonly [string, Method, string, unknown?]> => [
  ["listIdentities", "GET", "/wallet/v0/identities"],
  ["createIdentity", "POST", "/wallet/v0/identities", { name: "Ivan", provider: "test", class: "person" }],
  ["getIdentity", "GET", "/wallet/v0/identities/id-1"],
  ["getWithdrawalMethods", "GET", "/wallet/v0/identities/id-1/withdrawal-methods"],
  ["listIdentityChallenges", "GET", "/wallet/v0/identities/id-1/challenges"],
  ["startIdentityChallenge", "POST", "/wallet/v0/identities/id-1/challenges", { type: "esia", proofs: [{ token: "t" }] }],
  ["getIdentityChallenge", "GET", "/wallet/v0/identities/id-1/challenges/c-1"],
  ["pollIdentityChallengeEvents", "GET", "/wallet/v0/identities/id-1/challenges/c-1/events?limit=10"],
  ["getIdentityChallengeEvent", "GET", "/wallet/v0/identities/id-1/challenges/c-1/events/1"],
  ["listProviders", "GET", "/wallet/v0/providers?residence=RUS"],
  ["getProvider", "GET", "/wallet/v0/providers/test"],
  ["listProviderIdentityClasses", "GET", "/wallet/v0/providers/test/identity-classes"],
  ["getProviderIdentityClass", "GET", "/wallet/v0/providers/test/identity-classes/person"],
  ["listProviderIdentityLevels", "GET", "/wallet/v0/providers/test/identity-classes/person/levels"],
  ["getProviderIdentityLevel", "GET", "/wallet/v0/providers/test/identity-classes/person/levels/partial"],
  ["listWallets", "GET", "/wallet/v0/wallets?limit=10"],
  ["createWallet", "POST", "/wallet/v0/wallets", { name: "Main", identity: "id-1", currency: "RUB" }],
  ["getWallet", "GET", "/wallet/v0/wallets/w-1"],
  ["getWalletByExternalID", "GET", "/wallet/v0/external/wallets?externalID=x-1"],
  ["getWalletAccount", "GET", "/wallet/v0/wallets/w-1/account"],
  ["issueWalletGrant", "POST", "/wallet/v0/wallets/w-1/grants", { asset: { amount: 100, currency: "RUB" }, validUntil }],
  ["listDestinations", "GET", "/wallet/v0/destinations?limit=10"],
  ["createDestination", "POST", "/wallet/v0/destinations", {
    name: "Card",
    identity: "id-1",
    currency: "RUB",
    resource: { type: "BankCardDestinationResource", token: "tok" }
  }],
  ["getDestination", "GET", "/wallet/v0/destinations/d-1"],
  ["getDestinationByExternalID", "GET", "/wallet/v0/external-ids/destinations/x-1"],
  ["issueDestinationGrant", "POST", "/wallet/v0/destinations/d-1/grants", { validUntil }],
  ["createQuote", "POST", "/wallet/v0/withdrawal-quotes", {
    walletID: "w-1",
    destinationID: "d-1",
    currencyFrom: "RUB",
    currencyTo: "RUB",
    cash: { amount: 100, currency: "RUB" }
  }],
  ["listWithdrawals", "GET", "/wallet/v0/withdrawals?limit=10&status=Pending"],
  ["createWithdrawal", "POST", "/wallet/v0/withdrawals", { wallet: "w-1", destination: "d-1", body: { amount: 100, currency: "RUB" } }],
  ["getWithdrawal", "GET", "/wallet/v0/withdrawals/wd-1"],
  ["getWithdrawalByExternalID", "GET", "/wallet/v0/external-ids/withdrawals/x-1"],
  ["pollWithdrawalEvents", "GET", "/wallet/v0/withdrawals/wd-1/events?limit=10&eventCursor=2"],
  ["getWithdrawalEvents", "GET", "/wallet/v0/withdrawals/wd-1/events/1"],
  ["listDeposits", "GET", "/wallet/v0/deposits?limit=10&revertStatus=None"],
  ["listDepositReverts", "GET", "/wallet/v0/deposit-reverts?limit=10"],
  ["listDepositAdjustments", "GET", "/wallet/v0/deposit-adjustments?limit=10"],
  ["createW2WTransfer", "POST", "/wallet/v0/w2w/transfers", { sender: "w-1", receiver: "w-2", body: { amount: 1, currency: "RUB" } }],
  ["getW2WTransfer", "GET", "/wallet/v0/w2w/transfers/t-1"],
  ["createReport", "POST", "/wallet/v0/identities/id-1/reports", {
    reportType: "withdrawalRegistry",
    fromTime: "2026-01-01T00:00:00Z",
    toTime: "2026-02-01T00:00:00Z"
  }],
  ["getReports", "GET", "/wallet/v0/identities/id-1/reports?fromTime=2026-01-01T00:00:00Z&toTime=2026-02-01T00:00:00Z"],
  ["getReport", "GET", "/wallet/v0/identities/id-1/reports/1"],
  ["downloadFile", "POST", "/wallet/v0/files/f-1/download"],
  ["createWebhook", "POST", "/wallet/v0/webhooks", {
    identityID: "id-1",
    url: "https://hooks.kassa.test/w",
    scope: { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted"] }
  }],
  ["getWebhooks", "GET", "/wallet/v0/webhooks?identityID=id-1"],
  ["getWebhookByID", "GET", "/wallet/v0/webhooks/h-1?identityID=id-1"],
  ["deleteWebhookByID", "DELETE", "/wallet/v0/webhooks/h-1?identityID=id-1"],
  ["getCurrency", "GET", "/wallet/v0/currencies/RUB"],
  ["getResidence", "GET", "/wallet/v0/residences/RUS"],
  ["storeBankCard", "POST", "/payres/v0/bank-cards", { type: "BankCard", cardNumber: "4242424242424242", expDate: "12/40" }],
  ["getBankCard", "GET", "/payres/v0/bank-cards/tok"]
]

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect), { timeout: "60 seconds" })(`Wallet wire [${dialect}]`, (it) => {
    it.effect("every wallet and card-token operation needs the party's API key: 401 without a body", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const operator = yield* Fixtures.operatorToken
        const invoice = yield* call("POST", "/v2/processing/invoices", m.apiKey, {
          shopID: m.shopID,
          dueDate: yield* future(1),
          amount: 1000,
          currency: "RUB",
          product: "Tea",
          metadata: {}
        })
        assert.strictEqual(invoice.status, 201, invoice.text)
        const accessToken = invoice.json.invoiceAccessToken.payload as string
        for (const [name, method, path, body] of operations(yield* future(1))) {
          for (const token of [undefined, "nope", operator, accessToken]) {
            const answer = yield* call(method, path, token, body)
            assert.strictEqual(answer.status, 401, `${name} ${token === undefined ? "none" : token.slice(0, 6)} ${answer.text}`)
            assert.strictEqual(answer.text, "", name)
          }
        }
        // the scheme word is checked
        const basic = yield* call("GET", "/wallet/v0/identities", undefined, undefined, { authorization: `Basic ${m.apiKey}` })
        assert.strictEqual(basic.status, 401)
        // no credentials and no X-Request-ID: 401 first
        const bare = yield* TestServer.raw("GET", "/wallet/v0/identities")
        assert.strictEqual(bare.status, 401)
      }))

    it.effect("every operation is served: none answers 501 or 500, each answers JSON or no body", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const all = operations(yield* future(1))
        assert.strictEqual(all.length, 50)
        assert.strictEqual(new Set(all.map(([name]) => name)).size, 50)
        for (const [name, method, path, body] of all) {
          const answer = yield* call(method, path, m.apiKey, body)
          assert.isBelow(answer.status, 500, `${name} ${answer.text}`)
          if (answer.text !== "") assert.strictEqual(answer.headers["content-type"], "application/json; charset=utf-8", name)
        }
      }))

    it.effect("X-Request-ID, X-Request-Deadline and Content-Type: 400 BadRequest naming the header", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const auth = { authorization: `Bearer ${m.apiKey}` }
        for (const path of ["/wallet/v0/identities", "/payres/v0/bank-cards/tok"]) {
          badRequest(yield* TestServer.raw("GET", path, { headers: auth }), "NotFound", "X-Request-ID", path)
          badRequest(
            yield* TestServer.raw("GET", path, { headers: { ...auth, "x-request-id": "x".repeat(33) } }),
            "WrongLength",
            "X-Request-ID",
            path
          )
        }
        badRequest(
          yield* call("GET", "/wallet/v0/identities", m.apiKey, undefined, { "x-request-deadline": "tomorrow" }),
          "SchemaViolated",
          "X-Request-Deadline"
        )
        badRequest(
          yield* call("GET", "/wallet/v0/identities", m.apiKey, undefined, { "x-request-deadline": "1".repeat(41) }),
          "WrongLength",
          "X-Request-Deadline"
        )
        const ok = yield* call("GET", "/wallet/v0/identities", m.apiKey, undefined, { "x-request-deadline": "30s" })
        assert.strictEqual(ok.status, 200, ok.text)
        badRequest(
          yield* call("POST", "/wallet/v0/identities", m.apiKey, "name=Ivan", { "content-type": "text/plain" }),
          "WrongType",
          "Content-Type"
        )
      }))

    it.effect("bad bodies and parameters: 400 BadRequest, the body's name or the parameter's, never the value sent", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        badRequest(yield* call("POST", "/wallet/v0/identities", m.apiKey, {}), "SchemaViolated", "identity")
        const missing = yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan" })
        badRequest(missing, "SchemaViolated", "identity")
        assert.include(missing.json.description, "provider")
        badRequest(yield* call("POST", "/wallet/v0/identities", m.apiKey, "{\"name\":"), "SchemaViolated", "body")
        badRequest(
          yield* call("POST", "/wallet/v0/wallets", m.apiKey, { name: "W", identity: "i", currency: "rub" }),
          "SchemaViolated",
          "wallet"
        )
        badRequest(
          yield* call("POST", "/wallet/v0/withdrawals", m.apiKey, {
            wallet: "w",
            destination: "d",
            body: { amount: 2 ** 60, currency: "RUB" }
          }),
          "SchemaViolated",
          "withdrawal"
        )
        badRequest(
          yield* call("POST", "/wallet/v0/destinations", m.apiKey, {
            name: "Card",
            identity: "i",
            currency: "RUB",
            resource: { type: "PaperCheque" }
          }),
          "SchemaViolated",
          "destination"
        )
        // query and path parameters name themselves and what is wrong
        badRequest(yield* call("GET", "/wallet/v0/wallets", m.apiKey), "NotFound", "limit")
        badRequest(yield* call("GET", "/wallet/v0/wallets?limit=0", m.apiKey), "NotInRange", "limit")
        badRequest(yield* call("GET", "/wallet/v0/wallets?limit=1001", m.apiKey), "NotInRange", "limit")
        badRequest(yield* call("GET", "/wallet/v0/wallets?limit=ten", m.apiKey), "WrongType", "limit")
        badRequest(yield* call("GET", "/wallet/v0/wallets?limit=5&currencyID=rub", m.apiKey), "NoMatch", "currencyID")
        badRequest(yield* call("GET", `/wallet/v0/wallets/${"w".repeat(41)}`, m.apiKey), "WrongLength", "walletID")
        badRequest(yield* call("GET", "/wallet/v0/withdrawals?limit=5&status=Done", m.apiKey), "NoMatch", "status")
        badRequest(yield* call("GET", "/wallet/v0/currencies/RU", m.apiKey), "NoMatch", "currencyID")
        badRequest(yield* call("GET", "/wallet/v0/webhooks", m.apiKey), "NotFound", "identityID")
        // card data is never repeated
        for (const card of [{ cardNumber: "42424242424242421" + "x" }, { cardNumber: "4242424242424242", cvv: "12345" }]) {
          const refused = yield* call("POST", "/payres/v0/bank-cards", m.apiKey, card)
          badRequest(refused, "SchemaViolated", "bankCard")
          assert.notInclude(refused.text, "424242424242")
          assert.notInclude(refused.text, "12345")
        }
      }))

    it.effect("both revisions' requests are accepted: charset variant, unknown fields, no class, no limit, GET with {}", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        // the domain answered (an unknown sender is its 422), not the wire's 400
        const reached = (response: TestServer.RawResponse, what: string) =>
          assert.include([200, 201, 202, 422], response.status, `${what} ${response.text}`)
        reached(
          yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test" }, {
            "content-type": "application/json;charset=utf-8"
          }),
          "charset"
        )
        reached(
          yield* call("POST", "/wallet/v0/identities", m.apiKey, { name: "Ivan", provider: "test" }, {
            "content-type": "Application/JSON; Charset=UTF-8"
          }),
          "case"
        )
        reached(
          yield* call("POST", "/wallet/v0/identities", m.apiKey, {
            name: "Ivan",
            provider: "test",
            class: "person",
            partyID: m.partyID,
            somethingNew: { nested: true }
          }),
          "unknown fields"
        )
        reached(yield* call("GET", "/wallet/v0/identities", m.apiKey), "listIdentities without limit")
        reached(yield* call("GET", "/wallet/v0/identities?limit=5&class=person", m.apiKey), "listIdentities with limit")
        reached(yield* call("GET", "/wallet/v0/identities", m.apiKey, {}), "GET with {}")
        reached(yield* call("GET", "/wallet/v0/wallets?limit=3", m.apiKey, "{}"), "GET with {}")
        reached(
          yield* call("POST", "/wallet/v0/w2w/transfers", m.apiKey, {
            sender: "a",
            receiver: "b",
            body: { amount: 5, currency: "RUB" },
            note: "unknown"
          }),
          "unknown W2W field"
        )
      }))

    it.effect("the document serves every wallet and card-token operation under its specification's operationId", () =>
      Effect.gen(function*() {
        const doc = yield* TestServer.raw("GET", "/openapi.json")
        assert.strictEqual(doc.status, 200)
        const file = join(mkdtempSync(join(tmpdir(), "kassa-wallet-")), "openapi.json")
        writeFileSync(file, doc.text)
        const report = execFileSync(process.execPath, [
          join(__dirname, "../../../tools/spec-coverage.mjs"),
          file,
          "--verbose"
        ], { encoding: "utf8" })
        assert.include(report, "wallet: 48/48 operations served")
        assert.include(report, "payres: 2/2 operations served")
        assert.notMatch(report, /operationId \S+ \/(wallet|payres)\//)
        const identities = doc.json.paths["/wallet/v0/identities"]
        assert.strictEqual(identities.post.operationId, "createIdentity")
        assert.deepStrictEqual(identities.post.tags, ["Identities"])
        assert.include(identities.get.parameters.map((p: any) => p.name), "X-Request-ID")
        assert.include(Object.keys(identities.post.responses), "422")
        // the payments interface's 400 and 404 bodies are not the wallet's
        assert.deepStrictEqual(identities.post.responses["400"].content["application/json"].schema, {
          $ref: "#/components/schemas/BadRequest"
        })
        assert.deepStrictEqual(doc.json.paths["/wallet/v0/identities/{identityID}"].get.responses["404"], {
          description: "Not found"
        })
        assert.deepStrictEqual(
          doc.json.paths["/payres/v0/bank-cards"].post.parameters.map((p: any) => p.name),
          ["X-Request-ID"]
        )
      }))
  })
}
