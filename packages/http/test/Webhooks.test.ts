import { assert, layer } from "@effect/vitest"
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import type * as Webhook from "@kassa/core/webhook/Webhook"
import { Dialects, Expect, Fixtures, TestServer, WebhookReceiver } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { createPublicKey } from "node:crypto"

// The management API of webhooks (group "Webhooks") and the operator's view of their queues
// (group "AdminWebhooks"), end to end through the server. Deliveries run in the background on
// the real clock: the suites exclude the test services.

const JSON_TYPE = "application/json; charset=utf-8"
const PEM = /^-----BEGIN PUBLIC KEY-----\n(?:[A-Za-z0-9+/]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END PUBLIC KEY-----$/

const call = TestServer.call

const invoiceScope = (shopID: string, eventTypes: ReadonlyArray<string> = ["InvoiceCreated", "InvoicePaid"]) => ({
  topic: "InvoicesTopic",
  shopID,
  eventTypes
})

const assertInvalid = (r: TestServer.RawResponse, code = "invalidRequest") => {
  assert.strictEqual(r.status, 400, r.text)
  assert.strictEqual(r.json.code, code, r.text)
  assert.isString(r.json.message)
}

/** A new merchant, its client, and its shop's invoices webhook of `eventTypes` to a receiver of the test's own (at `path`). */
const hookedMerchant = (eventTypes: ReadonlyArray<Webhook.InvoicesEventType>, path?: string) =>
  Effect.gen(function*() {
    const m = yield* Fixtures.merchant()
    const receiver = yield* WebhookReceiver.make
    const api = yield* TestServer.client(m.apiKey)
    const hook = yield* api.Webhooks.createWebhook({
      payload: { scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes }, url: path === undefined ? receiver.url : receiver.urlFor(path) }
    })
    return { m, receiver, api, hook }
  })

/** An invoice of 1,000 RUB due in a day on the merchant's shop, through its client. */
const teaInvoice = (api: Effect.Effect.Success<ReturnType<typeof TestServer.client>>, m: Fixtures.Merchant, externalID?: string) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    api.Invoices.createInvoice({
      payload: {
        shopID: m.shopID,
        dueDate: new Date(now + 86_400_000),
        amount: 1000,
        currency: "RUB",
        product: "Tea",
        metadata: {},
        ...(externalID === undefined ? {} : { externalID })
      }
    }))

for (const dialect of Dialects.dialects()) {
  layer(
    TestServer.layer(dialect, { webhooks: { allowPrivateNetworks: true, pollInterval: "50 millis", timeout: "2 seconds" } }),
    { timeout: "120 seconds", excludeTestServices: true }
  )(`Webhooks [${dialect}]`, (it) => {
    it.effect("createWebhook answers 201 with the webhook and its PEM public key; the reads find it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const body = { scope: invoiceScope(m.shopID), url: "https://merchant.kassa.test/hooks?x=1" }
        const created = yield* call("POST", "/v2/processing/webhooks", m.apiKey, body)
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual(created.headers["content-type"], JSON_TYPE)
        const hook = created.json
        assert.deepStrictEqual(Object.keys(hook).sort(), ["active", "id", "partyID", "publicKey", "scope", "url"])
        assert.deepStrictEqual({ ...hook, id: "", publicKey: "" }, {
          id: "",
          active: true,
          scope: body.scope,
          partyID: m.partyID,
          url: body.url,
          publicKey: ""
        })
        assert.isAtMost(hook.id.length, 40)
        assert.match(hook.publicKey, PEM)
        assert.strictEqual(createPublicKey(hook.publicKey).asymmetricKeyDetails?.modulusLength, 2048)
        assert.notInclude(created.text, "PRIVATE")

        const api = yield* TestServer.client(m.apiKey)
        assert.deepStrictEqual(yield* api.Webhooks.getWebhookByID({ path: { webhookID: hook.id } }), hook)
        assert.deepStrictEqual(yield* api.Webhooks.getWebhooks(), [hook])
        assert.deepStrictEqual(yield* api.Webhooks.getWebhooksForParty({ path: { partyID: m.partyID } }), [hook])
        // the older revision's prefix serves the same routes
        const v1 = yield* call("GET", `/v1/processing/webhooks/${hook.id}`, m.apiKey)
        assert.deepStrictEqual(v1.json, hook)
        // partyID in the body, when it is the caller's own
        const own = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "CustomersTopic", shopID: m.shopID, eventTypes: ["CustomerCreated"] }, partyID: m.partyID, url: "http://merchant.kassa.test/c" }
        })
        assert.strictEqual(own.scope.topic, "CustomersTopic")
        assert.strictEqual(own.publicKey, hook.publicKey)
        assert.deepStrictEqual((yield* api.Webhooks.getWebhooks()).map((w) => w.id), [hook.id, own.id])
      }))

    it.effect("another party: invalidPartyID in the body, 404 on its webhooks and its path", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        const theirs = yield* call("POST", "/v2/processing/webhooks", b.apiKey, { scope: invoiceScope(b.shopID), url: "https://b.kassa.test/" })
        assert.strictEqual(theirs.status, 201)
        assertInvalid(
          yield* call("POST", "/v2/processing/webhooks", a.apiKey, { scope: invoiceScope(a.shopID), partyID: b.partyID, url: "https://a.kassa.test/" }),
          "invalidPartyID"
        )
        for (const [method, path] of [["GET", `/v2/processing/webhooks/${theirs.json.id}`], ["DELETE", `/v2/processing/webhooks/${theirs.json.id}`], ["GET", `/v2/processing/parties/${b.partyID}/webhooks`]] as const) {
          const r = yield* call(method, path, a.apiKey)
          assert.strictEqual(r.status, 404, `${method} ${path}`)
          assert.deepStrictEqual(Object.keys(r.json), ["message"])
        }
        assert.deepStrictEqual((yield* call("GET", "/v2/processing/webhooks", a.apiKey)).json, [])
        assert.strictEqual((yield* call("GET", `/v2/processing/webhooks/${theirs.json.id}`, b.apiKey)).status, 200)
      }))

    it.effect("invalidShopID for an unknown shop and for another party's shop", () =>
      Effect.gen(function*() {
        const a = yield* Fixtures.merchant()
        const b = yield* Fixtures.merchant()
        for (const shopID of ["no-such-shop", b.shopID]) {
          assertInvalid(yield* call("POST", "/v2/processing/webhooks", a.apiKey, { scope: invoiceScope(shopID), url: "https://a.kassa.test/" }), "invalidShopID")
          assertInvalid(
            yield* call("POST", "/v2/processing/webhooks", a.apiKey, {
              scope: { topic: "CustomersTopic", shopID, eventTypes: ["CustomerReady"] },
              url: "https://a.kassa.test/"
            }),
            "invalidShopID"
          )
        }
      }))

    it.effect("malformed bodies are invalidRequest: url, scope, topic, event types", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const scope = invoiceScope(m.shopID)
        for (
          const body of [
            { scope },
            { scope, url: "ftp://merchant.kassa.test/" },
            { scope, url: "merchant.kassa.test/hook" },
            { scope, url: `https://merchant.kassa.test/${"x".repeat(1000)}` },
            { url: "https://merchant.kassa.test/" },
            { scope: { topic: "InvoicesTopic", shopID: m.shopID }, url: "https://merchant.kassa.test/" },
            { scope: { ...scope, topic: "WithdrawalsTopic" }, url: "https://merchant.kassa.test/" },
            { scope: { ...scope, eventTypes: ["RefundCreated"] }, url: "https://merchant.kassa.test/" },
            { scope: { topic: "CustomersTopic", shopID: m.shopID, eventTypes: ["InvoiceCreated"] }, url: "https://merchant.kassa.test/" },
            { scope: { ...scope, shopID: "x".repeat(41) }, url: "https://merchant.kassa.test/" }
          ]
        ) {
          assertInvalid(yield* call("POST", "/v2/processing/webhooks", m.apiKey, body))
        }
        // exactly 1000 characters is fine
        const url = "https://merchant.kassa.test/" + "x".repeat(1000 - "https://merchant.kassa.test/".length)
        assert.strictEqual((yield* call("POST", "/v2/processing/webhooks", m.apiKey, { scope, url })).status, 201)
        // an id longer than 40 is refused before any lookup
        assertInvalid(yield* call("GET", `/v2/processing/webhooks/${"w".repeat(41)}`, m.apiKey))
      }))

    it.effect("at most 10 invoice webhooks per shop: the 11th is 429 {message}; customers' are not counted", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const create = (shopID: string, topic = "InvoicesTopic") =>
          call("POST", "/v2/processing/webhooks", m.apiKey, {
            scope: topic === "InvoicesTopic" ? invoiceScope(shopID) : { topic, shopID, eventTypes: ["CustomerCreated"] },
            url: "https://merchant.kassa.test/hook"
          })
        const ids: Array<string> = []
        for (let i = 0; i < 10; i++) {
          const r = yield* create(m.shopID)
          assert.strictEqual(r.status, 201, `webhook ${i + 1}`)
          ids.push(r.json.id)
        }
        const over = yield* create(m.shopID)
        assert.strictEqual(over.status, 429)
        assert.strictEqual(over.headers["content-type"], JSON_TYPE)
        assert.deepStrictEqual(over.json, { message: "Webhook limit exceeded" })
        const api = yield* TestServer.client(m.apiKey)
        const error = yield* Effect.flip(api.Webhooks.createWebhook({ payload: { scope: invoiceScope(m.shopID) as any, url: "https://merchant.kassa.test/hook" } }))
        assert.strictEqual(error._tag, "LimitExceeded")
        // customers' webhooks and the other shop are not held by it
        assert.strictEqual((yield* create(m.shopID, "CustomersTopic")).status, 201)
        assert.strictEqual((yield* create(m.shopIDs[1]!)).status, 201)
        // a deleted one frees its place
        assert.strictEqual((yield* call("DELETE", `/v2/processing/webhooks/${ids[0]}`, m.apiKey)).status, 204)
        assert.strictEqual((yield* create(m.shopID)).status, 201)
        assert.strictEqual((yield* create(m.shopID)).status, 429)
        assert.strictEqual((yield* api.Webhooks.getWebhooks()).length, 12)
      }))

    it.effect("concurrent creations keep the limit", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const results = yield* Effect.all(
          Array.from({ length: 14 }, () =>
            call("POST", "/v2/processing/webhooks", m.apiKey, { scope: invoiceScope(m.shopID), url: "https://merchant.kassa.test/hook" })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(results.map((r) => r.status).sort(), [...Array(10).fill(201), ...Array(4).fill(429)])
      }))

    it.effect("deleteWebhookByID answers 204; afterwards the webhook is 404 everywhere", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const created = yield* call("POST", "/v2/processing/webhooks", m.apiKey, { scope: invoiceScope(m.shopID), url: "https://merchant.kassa.test/" })
        const id = created.json.id
        const deleted = yield* call("DELETE", `/v2/processing/webhooks/${id}`, m.apiKey)
        assert.strictEqual(deleted.status, 204)
        assert.strictEqual(deleted.text, "")
        assert.strictEqual((yield* call("GET", `/v2/processing/webhooks/${id}`, m.apiKey)).status, 404)
        assert.strictEqual((yield* call("DELETE", `/v2/processing/webhooks/${id}`, m.apiKey)).status, 404)
        assert.deepStrictEqual((yield* call("GET", "/v2/processing/webhooks", m.apiKey)).json, [])
        assert.strictEqual((yield* call("GET", "/v2/processing/webhooks/never-was", m.apiKey)).status, 404)
      }))

    it.effect("the request envelope and authentication apply", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const noId = yield* TestServer.raw("GET", "/v2/processing/webhooks", { headers: { authorization: `Bearer ${m.apiKey}` } })
        assertInvalid(noId)
        const anonymous = yield* TestServer.raw("GET", "/v2/processing/webhooks", { headers: { "x-request-id": "a" } })
        assert.strictEqual(anonymous.status, 401)
        // the operator API is not the merchant's
        const admin = yield* call("GET", "/admin/v1/webhooks/x/deliveries", m.apiKey)
        assert.strictEqual(admin.status, 401)
      }))

    it.scoped("notifications reach the URL signed with the webhook's key; the operator sees deliveries and attempts and can redeliver", () =>
      Effect.gen(function*() {
        const { api, hook, m, receiver } = yield* hookedMerchant(["InvoiceCreated", "InvoiceCancelled"], "/kassa")
        yield* receiver.answer([500])
        const { invoice } = yield* teaInvoice(api, m)
        yield* api.Invoices.rescindInvoice({ path: { invoiceID: invoice.id }, payload: { reason: "no longer needed" } })
        // the first attempt fails: the cancellation waits behind the creation
        const [first] = yield* receiver.waitFor(1)
        assert.strictEqual(first!.json.eventType, "InvoiceCreated")
        assert.strictEqual(first!.answeredStatus, 500)
        assert.isTrue(verifyNotification(first!.body, first!.headers["content-signature"], hook.publicKey))
        assert.strictEqual(first!.headers["content-type"], JSON_TYPE)
        assert.deepStrictEqual(first!.json.invoice.id, invoice.id)
        assert.strictEqual(first!.json.topic, "InvoicesTopic")

        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        // the receiver answers before the dispatcher records the attempt, and the fan-out may
        // queue the cancellation a pass later: wait for both
        const waiting = yield* Expect.poll(
          operator.AdminWebhooks.listWebhookDeliveries({ path: { webhookID: hook.id }, urlParams: {} }),
          (ds) => ds.length === 2 && ds.some((d) => d.attempts > 0),
          "the first attempt's record and the queued cancellation"
        )
        assert.deepStrictEqual(waiting.map((d) => [d.eventType, d.status]), [["InvoiceCancelled", "pending"], ["InvoiceCreated", "pending"]])
        const head = waiting[1]!
        assert.strictEqual(head.attempts, 1)
        assert.isDefined(head.nextAttemptAt)
        assert.strictEqual(head.nextAttemptAt!.getTime() - head.lastAttemptAt!.getTime(), 30_000)
        const attempts = yield* operator.AdminWebhooks.listWebhookDeliveryAttempts({ path: { webhookID: hook.id, deliveryID: head.id } })
        assert.deepStrictEqual(attempts.map((a) => [a.number, a.statusCode, a.succeeded]), [[1, 500, false]])
        assert.deepStrictEqual(
          (yield* operator.AdminWebhooks.listWebhookDeliveries({ path: { webhookID: hook.id }, urlParams: { status: "delivered" } })),
          []
        )

        // the operator redelivers the cancellation at once: it queues behind the creation, so
        // the subject still waits for its retry; the webhook's queue keeps its order
        const copy = yield* operator.AdminWebhooks.redeliverWebhookDelivery({ path: { webhookID: hook.id, deliveryID: waiting[0]!.id } })
        assert.strictEqual(copy.redeliveryOf, waiting[0]!.id)
        assert.strictEqual(copy.status, "pending")
        const raw = yield* TestServer.raw("POST", `/admin/v1/webhooks/${hook.id}/deliveries/${waiting[0]!.id}/redeliver`, {
          headers: { authorization: `Bearer ${yield* Fixtures.operatorToken}` }
        })
        assert.strictEqual(raw.status, 202)
        const missing = yield* TestServer.raw("GET", `/admin/v1/webhooks/no-such-hook/deliveries`, {
          headers: { authorization: `Bearer ${yield* Fixtures.operatorToken}` }
        })
        assert.strictEqual(missing.status, 404)
        const noDelivery = yield* TestServer.raw("GET", `/admin/v1/webhooks/${hook.id}/deliveries/424242/attempts`, {
          headers: { authorization: `Bearer ${yield* Fixtures.operatorToken}` }
        })
        assert.strictEqual(noDelivery.status, 404)
        assert.strictEqual((yield* receiver.requests).length, 1)
      }))

    it.scoped("one key pair per party: its invoice and customer webhooks show one publicKey, and both topics' deliveries verify with it", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const receiver = yield* WebhookReceiver.make
        const api = yield* TestServer.client(m.apiKey)
        const invoices = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: ["InvoiceCreated"] }, url: receiver.urlFor("/invoices") }
        })
        const customers = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "CustomersTopic", shopID: m.shopID, eventTypes: ["CustomerCreated"] }, url: receiver.urlFor("/customers") }
        })
        assert.strictEqual(customers.publicKey, invoices.publicKey)
        assert.deepStrictEqual((yield* api.Webhooks.getWebhooks()).map((w) => w.publicKey), [invoices.publicKey, invoices.publicKey])
        // another party has a key of its own
        const theirs = yield* (yield* TestServer.client(other.apiKey)).Webhooks.createWebhook({
          payload: { scope: { topic: "InvoicesTopic", shopID: other.shopID, eventTypes: ["InvoiceCreated"] }, url: "https://other.kassa.test/" }
        })
        assert.notStrictEqual(theirs.publicKey, invoices.publicKey)

        yield* teaInvoice(api, m)
        yield* api.Customers.createCustomer({ payload: { shopID: m.shopID, contactInfo: { email: "payer@kassa.test" }, metadata: {} } })
        const got = yield* receiver.waitFor(2, { timeoutMs: 20_000 })
        assert.deepStrictEqual(got.map((r) => r.json.topic).sort(), ["CustomersTopic", "InvoicesTopic"])
        for (const r of got) {
          assert.isTrue(verifyNotification(r.body, r.headers["content-signature"], invoices.publicKey), r.json.topic)
          assert.isTrue(verifyNotification(r.body, r.headers["content-signature"], customers.publicKey), r.json.topic)
        }
      }))

    it.scoped("the operator rotates a party's key: every webhook shows the new publicKey, and it signs from then on", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const receiver = yield* WebhookReceiver.make
        const api = yield* TestServer.client(m.apiKey)
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const hook = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "InvoicesTopic", shopID: m.shopID, eventTypes: ["InvoiceCreated"] }, url: receiver.url }
        })
        const rotated = yield* operator.AdminWebhooks.rotateWebhookKey({ path: { partyID: m.partyID } })
        assert.match(rotated.publicKey, PEM)
        assert.notStrictEqual(rotated.publicKey, hook.publicKey)
        assert.strictEqual(rotated.partyID, m.partyID)
        assert.strictEqual(rotated.previous?.publicKey, hook.publicKey)
        assert.strictEqual(rotated.previous!.signsQueuedUntil.getTime() - rotated.previous!.retiredAt.getTime(), 24 * 3_600_000)
        assert.strictEqual((yield* api.Webhooks.getWebhookByID({ path: { webhookID: hook.id } })).publicKey, rotated.publicKey)
        const later = yield* api.Webhooks.createWebhook({
          payload: { scope: { topic: "CustomersTopic", shopID: m.shopID, eventTypes: ["CustomerCreated"] }, url: "https://merchant.kassa.test/c" }
        })
        assert.strictEqual(later.publicKey, rotated.publicKey)

        yield* teaInvoice(api, m)
        const [got] = yield* receiver.waitFor(1, { timeoutMs: 20_000 })
        assert.isTrue(verifyNotification(got!.body, got!.headers["content-signature"], rotated.publicKey))
        assert.isFalse(verifyNotification(got!.body, got!.headers["content-signature"], hook.publicKey))

        // an unknown party is 404 {message}; a merchant may not rotate
        const missing = yield* TestServer.raw("POST", "/admin/v1/parties/no-such-party/webhook-key/rotate", {
          headers: { authorization: `Bearer ${yield* Fixtures.operatorToken}` }
        })
        assert.strictEqual(missing.status, 404, missing.text)
        assert.deepStrictEqual(Object.keys(missing.json), ["message"])
        const merchant = yield* call("POST", `/admin/v1/parties/${m.partyID}/webhook-key/rotate`, m.apiKey)
        assert.strictEqual(merchant.status, 401)
      }))

    it.scoped("an instant payment's notifications, in order, with the card shown by bin and last digits only", () =>
      Effect.gen(function*() {
        const { api, hook, m, receiver } = yield* hookedMerchant(["InvoiceCreated", "InvoicePaid", "PaymentStarted", "PaymentProcessed", "PaymentCaptured"])
        const now = yield* Clock.currentTimeMillis
        const { invoice } = yield* teaInvoice(api, m, `ext-${now}`)
        const resource = yield* api.Tokens.createPaymentResource({
          payload: {
            paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/40", cvv: "123" },
            clientInfo: { fingerprint: "webhook-http-test" }
          }
        })
        yield* api.Payments.createPayment({
          path: { invoiceID: invoice.id },
          payload: {
            flow: { type: "PaymentFlowInstant" },
            payer: Fixtures.resourcePayer(resource),
            makeRecurrent: false
          }
        })
        const got = yield* receiver.waitFor(5, { timeoutMs: 20_000 })
        assert.deepStrictEqual(got.map((r) => r.json.eventType), ["InvoiceCreated", "PaymentStarted", "PaymentProcessed", "PaymentCaptured", "InvoicePaid"])
        for (const r of got) {
          assert.isTrue(verifyNotification(r.body, r.headers["content-signature"], hook.publicKey))
          assert.notInclude(r.text, "4242424242424242")
          assert.strictEqual(r.json.invoice.externalId, `ext-${now}`)
          assert.notProperty(r.json.invoice, "externalID")
        }
        assert.deepStrictEqual(got[3]!.json.payment.payer.paymentToolDetails, {
          detailsType: "PaymentToolDetailsBankCard",
          bin: "424242",
          lastDigits: "4242",
          cardNumberMask: "424242******4242",
          paymentSystem: "visa"
        })
      }))
  })

  // The safety sweep an hour away: what goes out, goes out because something told the dispatcher.
  layer(
    TestServer.layer(dialect, { webhooks: { allowPrivateNetworks: true, pollInterval: "1 hour", timeout: "2 seconds" } }),
    { timeout: "60 seconds", excludeTestServices: true }
  )(`Webhooks, no sweep [${dialect}]`, (it) => {
    it.scoped("the operator's redelivery goes out at once to an idle dispatcher", () =>
      Effect.gen(function*() {
        const { api, hook, m, receiver } = yield* hookedMerchant(["InvoiceCreated"], "/again")
        yield* teaInvoice(api, m)
        const operator = yield* TestServer.client(yield* Fixtures.operatorToken)
        const deliveries = operator.AdminWebhooks.listWebhookDeliveries({ path: { webhookID: hook.id }, urlParams: {} })
        const [delivered] = yield* Expect.poll(deliveries, (ds) => ds.length === 1 && ds[0]!.status === "delivered", "the first delivery")
        const copy = yield* operator.AdminWebhooks.redeliverWebhookDelivery({ path: { webhookID: hook.id, deliveryID: delivered!.id } })
        // well within the sweep's hour (and the 30 s of a server's default)
        const got = yield* receiver.waitFor(2, { timeoutMs: 10_000 })
        assert.deepStrictEqual(got.map((r) => [r.json.eventType, r.answeredStatus]), [["InvoiceCreated", 200], ["InvoiceCreated", 200]])
        assert.strictEqual(got[1]!.text, got[0]!.text)
        const after = yield* Expect.poll(deliveries, (ds) => ds.every((d) => d.status === "delivered"), "the redelivery's record")
        assert.deepStrictEqual(after.map((d) => [d.id, d.redeliveryOf]), [[copy.id, delivered!.id], [delivered!.id, undefined]])
      }))
  })

  // The SSRF guard as deployed: private networks refused.
  layer(TestServer.layer(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Webhooks, SSRF guard [${dialect}]`, (it) => {
    it.effect("URLs into loopback, private, link-local, CGNAT or unique-local networks are refused at creation", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        for (
          const url of [
            "http://127.0.0.1:8080/hook",
            "http://localhost/hook",
            "http://[::1]/hook",
            "http://10.0.0.1/",
            "http://172.16.5.4/",
            "http://192.168.0.10/",
            "http://169.254.169.254/latest/meta-data/",
            "http://100.64.1.1/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://2130706433/",
            "http://0.0.0.0/"
          ]
        ) {
          const r = yield* call("POST", "/v2/processing/webhooks", m.apiKey, { scope: invoiceScope(m.shopID), url })
          assertInvalid(r)
          assert.match(r.json.message, /^url: /, url)
        }
        const ok = yield* call("POST", "/v2/processing/webhooks", m.apiKey, { scope: invoiceScope(m.shopID), url: "https://93.184.216.34/hook" })
        assert.strictEqual(ok.status, 201, ok.text)
        assert.deepStrictEqual((yield* call("GET", "/v2/processing/webhooks", m.apiKey)).json.map((w: any) => w.url), ["https://93.184.216.34/hook"])
      }))
  })
}
