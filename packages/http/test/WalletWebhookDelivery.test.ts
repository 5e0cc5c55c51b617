/**
 * Wallet webhook notifications end to end through the server, on SQLite and PostgreSQL: a
 * destination's and a withdrawal's notifications reach a local receiver, and their
 * `Content-Signature` verifies against the webhook's `publicKey` as `getWebhookByID` answers it,
 * checked with the `openssl` command line. Deliveries run in the background on the real clock.
 */
import { assert, layer } from "@effect/vitest"
import { Dialects, Expect, Fixtures, TestServer, WebhookReceiver } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { operator } from "./support/WalletCalls.js"

const call = TestServer.call
const CARD = "4242424242424242"

/** Whether `openssl dgst -sha256 -verify` accepts the request's signature of its exact body under `publicKey`. */
const opensslVerifies = (r: WebhookReceiver.ReceivedRequest, publicKey: string) => {
  const match = /^alg=RS256; digest=([A-Za-z0-9_-]+={0,2})$/.exec(r.headers["content-signature"] ?? "")
  assert.isNotNull(match, r.headers["content-signature"])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-wallet-sig-"))
  try {
    fs.writeFileSync(path.join(dir, "pub.pem"), publicKey + "\n")
    fs.writeFileSync(path.join(dir, "sig.bin"), Buffer.from(match![1]!, "base64url"))
    fs.writeFileSync(path.join(dir, "body"), r.body)
    const out = execFileSync("openssl", ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.bin", "body"], { cwd: dir, stdio: "pipe" })
    return /Verified OK/.test(out.toString())
  } catch {
    return false
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

for (const dialect of Dialects.dialects()) {
  layer(
    TestServer.layer(dialect, { webhooks: { allowPrivateNetworks: true, pollInterval: "50 millis", timeout: "2 seconds" } }),
    { timeout: "120 seconds", excludeTestServices: true }
  )(`Wallet webhook delivery [${dialect}]`, (it) => {
    it.scoped("a destination's and a withdrawal's notifications reach the receiver, signed: openssl verifies them with the webhook's publicKey", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* Fixtures.merchant()
        const receiver = yield* WebhookReceiver.make
        const identity = (yield* call("POST", "/wallet/v0/identities", apiKey, { name: "Ivan", provider: "test" })).json
        const wallet = (yield* call("POST", "/wallet/v0/wallets", apiKey, { name: "Main", identity: identity.id, currency: "RUB" })).json
        const deposit = yield* operator("POST", "/deposits", { wallet: wallet.id, source: "src-1", body: { amount: 10_000, currency: "RUB" } })
        yield* Expect.poll(operator("GET", `/deposits/${deposit.json.id}`), (r) => r.json.status !== "Pending", "the deposit")
        const hook = yield* call("POST", "/wallet/v0/webhooks", apiKey, {
          identityID: identity.id,
          scope: { topic: "DestinationsTopic", eventTypes: ["DestinationCreated", "DestinationAuthorized"] },
          url: receiver.urlFor("/destinations")
        })
        assert.strictEqual(hook.status, 201, hook.text)
        const withdrawals = yield* call("POST", "/wallet/v0/webhooks", apiKey, {
          identityID: identity.id,
          scope: { topic: "WithdrawalsTopic", walletID: wallet.id, eventTypes: ["WithdrawalSucceeded"] },
          url: receiver.urlFor("/withdrawals")
        })
        assert.strictEqual(withdrawals.status, 201, withdrawals.text)

        const token = (yield* call("POST", "/payres/v0/bank-cards", apiKey, { type: "BankCard", cardNumber: CARD, expDate: "12/40" })).json.token
        const destination = yield* call("POST", "/wallet/v0/destinations", apiKey, {
          name: "Card",
          identity: identity.id,
          currency: "RUB",
          resource: { type: "BankCardDestinationResource", token }
        })
        assert.strictEqual(destination.status, 201, destination.text)
        const authorized = yield* receiver.waitFor(2, { match: (r) => r.path === "/destinations" })
        assert.deepStrictEqual(authorized.map((r) => [r.json.eventType, r.json.eventID]), [["DestinationCreated", "1"], ["DestinationAuthorized", "2"]])
        const x = yield* call("POST", "/wallet/v0/withdrawals", apiKey, {
          wallet: wallet.id,
          destination: destination.json.id,
          body: { amount: 1_000, currency: "RUB" }
        })
        assert.strictEqual(x.status, 202, x.text)
        const [succeeded] = yield* receiver.waitFor(1, { match: (r) => r.path === "/withdrawals" })
        assert.deepInclude(succeeded!.json, { topic: "WithdrawalTopic", eventType: "WithdrawalSucceeded", withdrawalID: x.json.id, eventID: "2" })

        const read = yield* call("GET", `/wallet/v0/webhooks/${hook.json.id}?identityID=${identity.id}`, apiKey)
        assert.strictEqual(read.status, 200, read.text)
        const got = yield* receiver.requests
        assert.strictEqual(got.length, 3)
        for (const r of got) {
          assert.strictEqual(r.method, "POST")
          assert.strictEqual(r.headers["content-type"], "application/json; charset=utf-8")
          assert.isTrue(opensslVerifies(r, read.json.publicKey), `${r.json.eventType}: openssl verifies`)
          assert.notInclude(r.text, CARD)
        }
        // the signature covers the exact bytes: one more byte does not verify
        assert.isFalse(opensslVerifies({ ...got[0]!, body: Buffer.concat([got[0]!.body, Buffer.from(" ")]) }, read.json.publicKey))
        // another party's key does not verify it
        const stranger = yield* Fixtures.merchant()
        const theirIdentity = (yield* call("POST", "/wallet/v0/identities", stranger.apiKey, { name: "Petr", provider: "test" })).json
        const theirs = yield* call("POST", "/wallet/v0/webhooks", stranger.apiKey, {
          identityID: theirIdentity.id,
          scope: { topic: "DestinationsTopic", eventTypes: ["DestinationCreated"] },
          url: receiver.urlFor("/theirs")
        })
        assert.strictEqual(theirs.status, 201, theirs.text)
        assert.notStrictEqual(theirs.json.publicKey, read.json.publicKey)
        assert.isFalse(opensslVerifies(got[0]!, theirs.json.publicKey))
      }))
  })
}
