import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { assert, layer } from "@effect/vitest"
import { Counters, Database, Kassa, TokenKeys } from "@kassa/adapters"
import * as SqlWebhooks from "@kassa/adapters/SqlWebhooks"
import * as WebhookDispatcher from "@kassa/adapters/WebhookDispatcher"
import { CustomerService, Ids, InvoiceService, PaymentResources, PaymentService } from "@kassa/core"
import { type Claimed, DeliveryQueue } from "@kassa/core/ports/DeliveryQueue"
import { EventLog } from "@kassa/core/ports/EventLog"
import { WebhookKeyRepository } from "@kassa/core/ports/WebhookKeyRepository"
import { WebhookUrlGuard } from "@kassa/core/ports/WebhookUrlGuard"
import * as Notification from "@kassa/core/webhook/Notification"
import * as RetrySchedule from "@kassa/core/webhook/RetrySchedule"
import * as Webhook from "@kassa/core/webhook/Webhook"
import * as WebhookKey from "@kassa/core/webhook/WebhookKey"
import { WebhookService } from "@kassa/core/webhook/WebhookService"
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import { Dialects, Fixtures, TestDatabase } from "@kassa/testing"
import * as Receiver from "@kassa/testing/WebhookReceiver"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Deferred from "effect/Deferred"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import { execFileSync } from "node:child_process"
import { createPublicKey, randomBytes, verify } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import webhooksMigration from "../src/internal/migrations/0008_webhooks.js"
import * as SqlDeliveryQueue from "../src/webhooks/SqlDeliveryQueue.js"

// ---------------------------------------------------------------------------------------------
// The stack: the whole domain on a throw-away database, plus this feature's layers (built here
// so the suite runs whether or not they are registered in Kassa's own layers).
// ---------------------------------------------------------------------------------------------

const CARD = "4242424242424242"
const YEAR = 365 * 24 * 3_600_000
const masterKey = randomBytes(32)

/** The webhook tables, after the kernel's (the outbox) exist. Harmless when already run. */
const migrateWebhooks = Layer.effectDiscard(Effect.zipRight(EventLog, webhooksMigration).pipe(Effect.orDie))

const stack = (dialect: Dialects.Dialect, options: WebhookDispatcher.WebhookOptions) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), ({ database, dataDir }) => {
      const config = {
        dataDir,
        scheduler: { pollInterval: "50 millis", lease: "10 seconds" } as const,
        settings: { recoveryDelayMs: 2_000 },
        webhooks: { allowPrivateNetworks: true }
      }
      const webhookPorts = Layer.mergeAll(
        SqlWebhooks.layer,
        WebhookDispatcher.keysLayerWithKey(masterKey),
        WebhookDispatcher.urlGuardLayer({ allowPrivateNetworks: true }),
        migrateWebhooks
      )
      return Layer.mergeAll(Kassa.services, WebhookService.Default).pipe(
        Layer.provideMerge(WebhookDispatcher.dispatcherLayer(options)),
        Layer.provideMerge(webhookPorts),
        Layer.provideMerge(Kassa.ports(config)),
        Layer.provideMerge(TokenKeys.layer({ dataDir, pem: TokenKeys.generatePem() })),
        Layer.provideMerge(Database.layer(database))
      )
    })
  )

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const ALL_INVOICE_TYPES: ReadonlyArray<Webhook.InvoicesEventType> = Webhook.InvoicesEventType.literals

/** A webhook of the merchant's shop, deleted (its queue discarded) when the test ends. */
const hookFor = (
  m: Fixtures.Merchant,
  url: string,
  options: { readonly eventTypes?: ReadonlyArray<Webhook.InvoicesEventType>; readonly shopID?: string } = {}
) =>
  Effect.gen(function*() {
    const service = yield* WebhookService
    const party = Ids.PartyID.make(m.partyID)
    const hook = yield* service.create(party, {
      scope: { topic: "InvoicesTopic", shopID: options.shopID ?? m.shopID, eventTypes: options.eventTypes ?? ALL_INVOICE_TYPES },
      url
    })
    yield* Effect.addFinalizer(() => service.delete(party, hook.id).pipe(Effect.ignore))
    return hook
  })

const newInvoice = (m: Fixtures.Merchant, shopID = m.shopID) =>
  Effect.gen(function*() {
    const invoices = yield* InvoiceService.InvoiceService
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* invoices.create(m.partyID, {
      shopID,
      dueDate: new Date(now + YEAR),
      amount: 1000,
      currency: "RUB",
      product: "Tea",
      metadata: { test: true }
    })
    return invoice
  }).pipe(Effect.orDie)

const rescind = (m: Fixtures.Merchant, invoiceID: string) =>
  Effect.flatMap(InvoiceService.InvoiceService, (s) => s.rescind(m.partyID, invoiceID, "changed my mind")).pipe(Effect.orDie)

const payByCard = (m: Fixtures.Merchant, invoiceID: string, card = CARD) =>
  Effect.gen(function*() {
    const resources = yield* PaymentResources.PaymentResources
    const payments = yield* PaymentService.PaymentService
    const resource = yield* resources.create(m.partyID, {
      paymentTool: { paymentToolType: "CardData", cardNumber: card, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "webhook-tests" }
    })
    return yield* payments.create(m.partyID, invoiceID, {
      flow: { type: "PaymentFlowInstant" },
      payer: Fixtures.resourcePayer(resource),
      makeRecurrent: false
    })
  }).pipe(Effect.orDie)

const dispatcher = WebhookDispatcher.WebhookDispatcher

/** A new merchant's webhook to a receiver of the test's own, once nothing is left to send of earlier tests'. */
const drainedHook = (path: string, eventTypes: ReadonlyArray<Webhook.InvoicesEventType>) =>
  Effect.gen(function*() {
    const d = yield* dispatcher
    while ((yield* d.fanOut) > 0 || (yield* d.deliverDue) > 0) {
      // what earlier tests left
    }
    const m = yield* Fixtures.merchant()
    const r = yield* Receiver.make
    const hook = yield* hookFor(m, r.urlFor(path), { eventTypes })
    return { d, m, r, hook }
  })

/** Waits on the real clock (the loops' pauses run on it), whatever clock the test has. */
const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** A dispatcher of its own (another process, in effect) for the scope's lifetime. */
const anotherDispatcher = (options: WebhookDispatcher.WebhookOptions) =>
  Effect.map(Layer.build(WebhookDispatcher.dispatcherLayer(options)), (ctx) => Context.get(ctx, dispatcher))

const forInvoice = (id: string) => (r: Receiver.ReceivedRequest) => r.json?.invoice?.id === id || r.json?.invoiceId === id
const typesOf = (rs: ReadonlyArray<Receiver.ReceivedRequest>) => rs.map((r) => `${r.json?.eventType}:${r.answeredStatus}`)

const deliveriesOf = (webhookID: string) =>
  Effect.flatMap(WebhookService, (s) => s.deliveries(webhookID, { limit: 1000 })).pipe(
    Effect.orDie,
    Effect.map((ds) => [...ds].reverse())
  )

const decodeNotification = Schema.decodeUnknownEither(Notification.Notification, { onExcessProperty: "error" })

const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "pipe" })
    return true
  } catch {
    return false
  }
})()

/** Verifies a received notification with independent code: node:crypto and the openssl CLI. */
const assertSigned = (r: Receiver.ReceivedRequest, publicKey: string) => {
  assert.strictEqual(r.method, "POST")
  assert.strictEqual(r.headers["content-type"], "application/json; charset=utf-8")
  const header = r.headers["content-signature"]!
  const match = /^alg=RS256; digest=([A-Za-z0-9_-]+={0,2})$/.exec(header)
  assert.isNotNull(match, header)
  const digest = match![1]!
  // 2048-bit RSA: 256 bytes, 344 characters of base64 with its "==" padding kept
  assert.strictEqual(digest.length, 344)
  assert.isTrue(digest.endsWith("=="))
  const signature = Buffer.from(digest, "base64url")
  assert.isTrue(verify("sha256", r.body, publicKey, signature), "crypto.verify")
  assert.isTrue(verifyNotification(r.body, header, publicKey), "verifyNotification")
  assert.isFalse(verifyNotification(Buffer.concat([r.body, Buffer.from(" ")]), header, publicKey))
  assert.isFalse(verifyNotification(r.body, header.replace("RS256", "RS512"), publicKey))
  if (hasOpenssl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-sig-"))
    try {
      fs.writeFileSync(path.join(dir, "pub.pem"), publicKey + "\n")
      fs.writeFileSync(path.join(dir, "sig.bin"), signature)
      fs.writeFileSync(path.join(dir, "body.bin"), r.body)
      const out = execFileSync("openssl", ["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.bin", "body.bin"], {
        cwd: dir,
        stdio: "pipe"
      }).toString()
      assert.match(out, /Verified OK/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  const decoded = decodeNotification(r.json)
  assert.isTrue(Either.isRight(decoded), `${r.text} does not fit the specification's schema`)
  assert.notInclude(r.text, CARD)
  assert.notInclude(r.text, "cardNumber\"")
}

// =============================================================================================

for (const dialect of Dialects.dialects()) {
  // -------------------------------------------------------------------------------------------
  // On the real clock, with the dispatcher's loops running: payments flow on their own.
  // -------------------------------------------------------------------------------------------
  layer(stack(dialect, { allowPrivateNetworks: true, pollInterval: "50 millis", timeout: "2 seconds" }), {
    timeout: "120 seconds",
    excludeTestServices: true
  })(`Webhooks, live [${dialect}]`, (it) => {
    it.scoped("a paid invoice's notifications reach the receiver in order, signed, in the specification's shape", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const hook = yield* hookFor(m, r.urlFor("/hook"))
        assert.match(hook.publicKey, /^-----BEGIN PUBLIC KEY-----\n(?:[A-Za-z0-9+/]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END PUBLIC KEY-----$/)
        assert.strictEqual(createPublicKey(hook.publicKey).asymmetricKeyDetails?.modulusLength, 2048)
        assert.notProperty(hook, "privateKeyRef")
        const invoice = yield* newInvoice(m)
        yield* payByCard(m, invoice.id)
        const got = yield* r.waitFor(5, { match: forInvoice(invoice.id), timeoutMs: 20_000 })
        assert.deepStrictEqual(got.map((x) => x.json.eventType), [
          "InvoiceCreated",
          "PaymentStarted",
          "PaymentProcessed",
          "PaymentCaptured",
          "InvoicePaid"
        ])
        for (const x of got) assertSigned(x, hook.publicKey)
        const ids = got.map((x) => x.json.eventID as number)
        for (let i = 1; i < ids.length; i++) assert.isAtLeast(ids[i]!, ids[i - 1]!)
        // one event (the acquirer's authorisation and capture commit together), three changes:
        // processed, captured, paid; each payment move with its own status, the invoice as the event left it
        assert.deepStrictEqual([ids[2], ids[3]], [ids[4], ids[4]])
        assert.strictEqual(got[3]!.json.payment.status, "captured")
        assert.strictEqual(got[3]!.json.invoice.status, "paid")
        assert.strictEqual(got[2]!.json.payment.status, "processed")
        assert.strictEqual(got[1]!.json.payment.status, "pending")
        assert.strictEqual(got[0]!.json.invoice.status, "unpaid")
        // the eventIDs are the invoice's event ids
        const events = yield* Effect.flatMap(EventLog, (log) =>
          log.list({ aggregateType: "invoice", aggregateID: invoice.id, after: 0, limit: 100 }))
        assert.deepStrictEqual([...new Set(ids)], events.map((e) => e.id).filter((id) => ids.includes(id)))
        for (const x of got) assert.strictEqual(x.json.occuredAt, events.find((e) => e.id === x.json.eventID)!.createdAt.toISOString())
        assert.strictEqual(got[3]!.json.payment.payer.paymentToolDetails.bin, "424242")
        assert.strictEqual(got[3]!.json.payment.payer.paymentToolDetails.lastDigits, "4242")
        // the operator's view: five deliveries, each delivered at its first attempt with 200
        yield* Effect.sleep("200 millis")
        const deliveries = (yield* deliveriesOf(hook.id)).filter((d) => d.subjectID === invoice.id)
        assert.deepStrictEqual(deliveries.map((d) => [d.eventType, d.status, d.attempts]), got.map((x) => [x.json.eventType, "delivered", 1]))
        const attempts = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, deliveries[0]!.id)).pipe(Effect.orDie)
        assert.deepStrictEqual(attempts.map((a) => [a.number, a.statusCode, a.succeeded]), [[1, 200, true]])
        // nothing of the private key or the card anywhere in the queue
        const sql = yield* SqlClient.SqlClient
        const bodies = yield* sql<{ body: string }>`SELECT body FROM webhook_deliveries WHERE webhook_id = ${hook.id}`.pipe(Effect.orDie)
        for (const b of bodies) assert.notInclude(b.body, CARD)
        const stored = yield* sql<{ privateKey: string }>`SELECT private_key FROM webhook_keys WHERE party_id = ${m.partyID}`.pipe(Effect.orDie)
        assert.notInclude(stored[0]!.privateKey, "PRIVATE KEY")
        assert.isFalse(/^MII/.test(stored[0]!.privateKey), "the private key is sealed, not plain DER")
      }))

    it.scoped("a party's webhooks share its key; another party's key does not verify", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const other = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const a = yield* hookFor(m, r.urlFor("/a"), { eventTypes: ["InvoiceCreated"] })
        const b = yield* hookFor(m, r.urlFor("/b"), { eventTypes: ["InvoiceCreated"] })
        const theirs = yield* hookFor(other, r.urlFor("/theirs"), { eventTypes: ["InvoiceCreated"] })
        assert.strictEqual(a.publicKey, b.publicKey)
        assert.notStrictEqual(theirs.publicKey, a.publicKey)
        const invoice = yield* newInvoice(m)
        const got = yield* r.waitFor(2, { match: forInvoice(invoice.id) })
        const atA = got.find((x) => x.path === "/a")!
        const atB = got.find((x) => x.path === "/b")!
        assertSigned(atA, a.publicKey)
        assertSigned(atB, a.publicKey)
        assert.isFalse(verifyNotification(atA.body, atA.headers["content-signature"], theirs.publicKey))
      }))

    it.scoped("customers' notifications: created, binding started and succeeded, ready, deleted", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const service = yield* WebhookService
        const party = Ids.PartyID.make(m.partyID)
        const hook = yield* service.create(party, {
          scope: {
            topic: "CustomersTopic",
            shopID: m.shopID,
            eventTypes: ["CustomerCreated", "CustomerDeleted", "CustomerReady", "CustomerBindingStarted", "CustomerBindingSucceeded", "CustomerBindingFailed"]
          },
          url: r.urlFor("/customers")
        })
        yield* Effect.addFinalizer(() => service.delete(party, hook.id).pipe(Effect.ignore))
        // an invoice webhook of the same shop hears nothing of customers, and the reverse
        yield* hookFor(m, r.urlFor("/invoices"), { eventTypes: ["InvoiceCreated"] })
        const customers = yield* CustomerService.CustomerService
        const resources = yield* PaymentResources.PaymentResources
        const { customer } = yield* customers.create(m.partyID, {
          shopID: m.shopID,
          contactInfo: { email: "customer@kassa.test" },
          metadata: { n: 1 }
        }).pipe(Effect.orDie)
        const resource = yield* resources.create(m.partyID, {
          paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "123" },
          clientInfo: { fingerprint: "webhook-tests" }
        }).pipe(Effect.orDie)
        yield* customers.createBinding(m.partyID, customer.id, {
          paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
        }).pipe(Effect.orDie)
        yield* r.waitFor(4, { timeoutMs: 20_000 })
        yield* customers.delete(m.partyID, customer.id).pipe(Effect.orDie)
        const got = yield* r.waitFor(5, { timeoutMs: 20_000 })
        assert.deepStrictEqual(got.map((x) => `${x.path} ${x.json.eventType}`), [
          "/customers CustomerCreated",
          "/customers CustomerBindingStarted",
          "/customers CustomerBindingSucceeded",
          "/customers CustomerReady",
          "/customers CustomerDeleted"
        ])
        for (const x of got) {
          assertSigned(x, hook.publicKey)
          assert.strictEqual(x.json.topic, "CustomersTopic")
          assert.strictEqual(x.json.customer.id, customer.id)
        }
        assert.strictEqual(got[0]!.json.customer.status, "unready")
        assert.strictEqual(got[3]!.json.customer.status, "ready")
        assert.strictEqual(got[2]!.json.binding.status, "succeeded")
        assert.strictEqual(got[2]!.json.binding.paymentResource.paymentToolDetails.lastDigits, "4242")
        const deliveries = yield* deliveriesOf(hook.id)
        assert.isTrue(deliveries.every((d) => d.subjectType === "customer" && d.subjectID === customer.id))
      }))

    it.scoped("after delete nothing more is sent", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const hook = yield* hookFor(m, r.urlFor("/gone"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
        const first = yield* newInvoice(m)
        yield* r.waitFor(1, { match: forInvoice(first.id) })
        yield* Effect.flatMap(WebhookService, (s) => s.delete(Ids.PartyID.make(m.partyID), hook.id)).pipe(Effect.orDie)
        const second = yield* newInvoice(m)
        yield* rescind(m, first.id)
        yield* Effect.sleep("600 millis")
        const all = yield* r.requests
        assert.deepStrictEqual(typesOf(all), ["InvoiceCreated:200"])
        assert.isFalse(all.some(forInvoice(second.id)))
      }))
  })

  // -------------------------------------------------------------------------------------------
  // Deterministic: no loops, passes run by hand, time moved by TestClock.
  // -------------------------------------------------------------------------------------------
  layer(stack(dialect, { allowPrivateNetworks: true, run: false, timeout: "2 seconds" }), { timeout: "180 seconds" })(
    `Webhooks, queue [${dialect}]`,
    (it) => {
      it.scoped("a rotated key signs what was queued before the rotation for the window, then the party's current key signs it", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const service = yield* WebhookService
          const m = yield* Fixtures.merchant()
          const party = Ids.PartyID.make(m.partyID)
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/rotation"), { eventTypes: ["InvoiceCreated"] })
          const signedWith = (invoiceID: string, publicKey: string) =>
            Effect.map(r.requests, (rs) => rs.filter(forInvoice(invoiceID)).map((q) => verifyNotification(q.body, q.headers["content-signature"], publicKey)))

          const before = yield* newInvoice(m)
          yield* d.fanOut
          const first = yield* service.rotateKey(party)
          assert.strictEqual(first.previous?.publicKey, hook.publicKey)
          assert.strictEqual(first.previous!.signsQueuedUntil.getTime(), first.createdAt.getTime() + WebhookKey.ROTATION_WINDOW_MS)
          const after = yield* newInvoice(m)
          yield* d.fanOut
          yield* d.deliverDue
          assert.deepStrictEqual(yield* signedWith(before.id, hook.publicKey), [true])
          assert.deepStrictEqual(yield* signedWith(after.id, first.publicKey), [true])
          assert.deepStrictEqual(yield* signedWith(after.id, hook.publicKey), [false])

          // queued under the first key, failing: within the window its retries keep that key,
          // after the window the party's current key signs it
          const late = yield* newInvoice(m)
          yield* r.answer([500, 500], forInvoice(late.id))
          yield* d.fanOut
          yield* d.deliverDue
          const second = yield* service.rotateKey(party)
          assert.strictEqual(second.previous?.publicKey, first.publicKey)
          assert.strictEqual((yield* service.get(party, hook.id)).publicKey, second.publicKey)
          yield* TestClock.adjust("30 seconds")
          yield* d.deliverDue
          yield* TestClock.adjust(WebhookKey.ROTATION_WINDOW_MS)
          yield* d.deliverDue
          assert.deepStrictEqual(typesOf((yield* r.requests).filter(forInvoice(late.id))), ["InvoiceCreated:500", "InvoiceCreated:500", "InvoiceCreated:200"])
          assert.deepStrictEqual(yield* signedWith(late.id, first.publicKey), [true, true, false])
          assert.deepStrictEqual(yield* signedWith(late.id, second.publicKey), [false, false, true])
        }))

      it.scoped("concurrent rotations of one party's key leave it one current key, the others retired", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const keys = yield* WebhookKeyRepository
          const m = yield* Fixtures.merchant()
          const key = (n: number) => ({ id: `${m.partyID}-k${n}`, partyID: m.partyID, publicKey: `pub${n}`, privateKeyRef: `ref${n}`, createdAt: new Date(n) })
          yield* keys.insertIfAbsent(key(0))
          const retired = yield* Effect.all([1, 2, 3, 4].map((n) => sql.withTransaction(keys.rotate(key(n)))), { concurrency: "unbounded" })
          assert.deepStrictEqual(retired.map(Option.isSome), [true, true, true, true])
          const rows = yield* sql<{ id: string; retiredAt: unknown }>`SELECT id, retired_at FROM webhook_keys WHERE party_id = ${m.partyID}`.pipe(Effect.orDie)
          assert.strictEqual(rows.length, 5)
          assert.strictEqual(rows.filter((r) => r.retiredAt === null).length, 1)
        }))

      it.scoped("order is kept per subject while a failing subject does not hold up another", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          yield* hookFor(m, r.urlFor("/order"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          const x = yield* newInvoice(m)
          const y = yield* newInvoice(m)
          yield* rescind(m, x.id)
          yield* rescind(m, y.id)
          yield* r.answer([500, 500], forInvoice(x.id))
          assert.isAtLeast(yield* d.fanOut, 4)
          yield* d.deliverDue
          assert.deepStrictEqual(typesOf((yield* r.requests).filter(forInvoice(x.id))), ["InvoiceCreated:500"])
          assert.deepStrictEqual(typesOf((yield* r.requests).filter(forInvoice(y.id))), ["InvoiceCreated:200", "InvoiceCancelled:200"])
          // not due yet: nothing
          yield* TestClock.adjust("29 seconds")
          yield* d.deliverDue
          assert.strictEqual((yield* r.requests).filter(forInvoice(x.id)).length, 1)
          yield* TestClock.adjust("1 second")
          yield* d.deliverDue
          yield* TestClock.adjust("5 minutes")
          yield* d.deliverDue
          assert.deepStrictEqual(typesOf((yield* r.requests).filter(forInvoice(x.id))), [
            "InvoiceCreated:500",
            "InvoiceCreated:500",
            "InvoiceCreated:200",
            "InvoiceCancelled:200"
          ])
          assert.strictEqual((yield* r.requests).length, 6)
        }))

      it.scoped("the retry schedule, exactly; after the last attempt the subject's queue is discarded; a later event starts afresh", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/retry"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          const counters = Effect.all([
            Metric.value(Metric.tagged(Counters.webhookAttempts, "outcome", "failed")),
            Metric.value(Metric.tagged(Counters.webhookAttempts, "outcome", "delivered")),
            Metric.value(Counters.webhookDiscarded)
          ]).pipe(Effect.map((states) => states.map((state) => state.count)))
          const countedBefore = yield* counters
          const invoice = yield* newInvoice(m)
          yield* r.setDefault(503)
          yield* d.fanOut
          const t0 = yield* Clock.currentTimeMillis
          yield* d.deliverDue
          const count = Effect.map(r.requests, (rs) => rs.length)
          assert.strictEqual(yield* count, 1)
          for (let n = 1; n < RetrySchedule.MAX_ATTEMPTS; n++) {
            const due = Option.getOrThrow(RetrySchedule.nextAttemptAt(new Date(t0), n)).getTime()
            yield* TestClock.setTime(due - 1)
            yield* d.deliverDue
            assert.strictEqual(yield* count, n, `attempt ${n + 1} is not due before ${new Date(due).toISOString()}`)
            yield* TestClock.setTime(due)
            yield* d.deliverDue
            assert.strictEqual(yield* count, n + 1, `attempt ${n + 1} at ${new Date(due).toISOString()}`)
          }
          const [delivery] = yield* deliveriesOf(hook.id)
          assert.strictEqual(delivery!.status, "discarded")
          assert.strictEqual(delivery!.attempts, 27)
          const attempts = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, delivery!.id)).pipe(Effect.orDie)
          const S = 1000, M = 60 * S, H = 60 * M
          assert.deepStrictEqual(
            attempts.map((a) => a.at.getTime() - t0),
            [0, 30 * S, 5 * M + 30 * S, 20 * M + 30 * S, ...Array.from({ length: 23 }, (_, i) => (i + 1) * H + 20 * M + 30 * S)]
          )
          assert.isTrue(attempts.every((a) => a.statusCode === 503 && !a.succeeded))
          // nothing more, ever, for what was discarded
          yield* TestClock.adjust("2 days")
          yield* d.deliverDue
          assert.strictEqual(yield* count, 27)
          // a later event of the subject is queued afresh and delivered
          yield* r.setDefault(200)
          yield* rescind(m, invoice.id)
          yield* d.fanOut
          yield* d.deliverDue
          assert.deepStrictEqual(typesOf((yield* r.requests).slice(27)), ["InvoiceCancelled:200"])
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((x) => x.status), ["discarded", "delivered"])
          // counted for /metrics: 27 failed attempts, one discarded queue, one delivered
          const countedAfter = yield* counters
          assert.deepStrictEqual(countedAfter.map((n, i) => n - countedBefore[i]!), [27, 1, 1])
        }))

      it.scoped("the whole accumulated queue is discarded with its head; the operator can redeliver", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/discard"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          const invoice = yield* newInvoice(m)
          yield* r.setDefault(500)
          yield* d.fanOut
          const t0 = yield* Clock.currentTimeMillis
          yield* d.deliverDue
          yield* rescind(m, invoice.id)
          yield* d.fanOut
          for (let n = 1; n < RetrySchedule.MAX_ATTEMPTS; n++) {
            yield* TestClock.setTime(Option.getOrThrow(RetrySchedule.nextAttemptAt(new Date(t0), n)))
            yield* d.deliverDue
          }
          const requests = yield* r.requests
          assert.strictEqual(requests.length, 27)
          assert.isTrue(requests.every((x) => x.json.eventType === "InvoiceCreated"), "the cancelled one waited behind")
          const deliveries = yield* deliveriesOf(hook.id)
          assert.deepStrictEqual(deliveries.map((x) => [x.eventType, x.status, x.attempts]), [
            ["InvoiceCreated", "discarded", 27],
            ["InvoiceCancelled", "discarded", 0]
          ])
          // redelivery: a copy at the end of the queue, sent on the next pass
          yield* r.setDefault(200)
          const service = yield* WebhookService
          const copy = yield* service.redeliver(hook.id, deliveries[1]!.id).pipe(Effect.orDie)
          assert.strictEqual(copy.status, "pending")
          assert.strictEqual(copy.redeliveryOf, deliveries[1]!.id)
          yield* d.deliverDue
          const last = (yield* r.requests).slice(27)
          assert.deepStrictEqual(typesOf(last), ["InvoiceCancelled:200"])
          const stored = yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ body: string }>`SELECT body FROM webhook_deliveries WHERE id = ${Number(deliveries[1]!.id)}`).pipe(Effect.orDie)
          assert.strictEqual(last[0]!.text, stored[0]!.body)
          assertSigned(last[0]!, hook.publicKey)
          const unknown = yield* Effect.flip(service.redeliver(hook.id, "999999999"))
          assert.strictEqual(unknown._tag, "NotFound")
        }))

      it.scoped("a webhook gets only its shop's events of the types it asked for", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const other = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          yield* hookFor(m, r.urlFor("/cancelled"), { eventTypes: ["InvoiceCancelled"] })
          yield* hookFor(m, r.urlFor("/shop2"), { shopID: m.shopIDs[1]! })
          yield* hookFor(other, r.urlFor("/other"))
          const customers = yield* WebhookService
          yield* customers.create(Ids.PartyID.make(m.partyID), {
            scope: { topic: "CustomersTopic", shopID: m.shopID, eventTypes: ["CustomerCreated"] },
            url: r.urlFor("/customers")
          })
          const invoice = yield* newInvoice(m)
          yield* rescind(m, invoice.id)
          yield* d.fanOut
          yield* d.deliverDue
          const got = yield* r.requests
          assert.deepStrictEqual(got.map((x) => `${x.path} ${x.json.eventType}`), ["/cancelled InvoiceCancelled"])
          const onShop2 = yield* newInvoice(m, m.shopIDs[1]!)
          yield* d.fanOut
          yield* d.deliverDue
          assert.deepStrictEqual((yield* r.requests).slice(1).map((x) => `${x.path} ${x.json.eventType} ${x.json.invoice.id}`), [
            `/shop2 InvoiceCreated ${onShop2.id}`
          ])
        }))

      it.scoped("a deleted webhook's queue is discarded; its deliveries stay visible to the operator", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const service = yield* WebhookService
          const hook = yield* hookFor(m, r.urlFor("/deleted"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          yield* r.setDefault(500)
          const invoice = yield* newInvoice(m)
          yield* rescind(m, invoice.id)
          yield* d.fanOut
          yield* d.deliverDue
          yield* service.delete(Ids.PartyID.make(m.partyID), hook.id).pipe(Effect.orDie)
          yield* r.setDefault(200)
          yield* TestClock.adjust("1 hour")
          yield* d.deliverDue
          assert.deepStrictEqual(typesOf(yield* r.requests), ["InvoiceCreated:500"])
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((x) => x.status), ["discarded", "discarded"])
          assert.strictEqual((yield* Effect.flip(service.get(Ids.PartyID.make(m.partyID), hook.id)))._tag, "NotFound")
          assert.strictEqual((yield* Effect.flip(service.redeliver(hook.id, "1")))._tag, "BusinessError")
        }))

      it.scoped("queues survive a restart: a new dispatcher on the same database sends what is pending", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/durable"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          yield* r.setDefault(500)
          const invoice = yield* newInvoice(m)
          // the first process: its loops fan out and try once, then it stops
          yield* Effect.scoped(Effect.gen(function*() {
            yield* anotherDispatcher({ allowPrivateNetworks: true, pollInterval: "20 millis" })
            yield* r.waitFor(1)
          }))
          // while no dispatcher runs, the invoice moves on: only the outbox knows
          yield* rescind(m, invoice.id)
          yield* r.setDefault(200)
          yield* TestClock.adjust("30 seconds")
          // the second process takes over both the queue and the outbox
          yield* Effect.scoped(Effect.gen(function*() {
            yield* anotherDispatcher({ allowPrivateNetworks: true, pollInterval: "20 millis" })
            yield* r.waitFor(1, { match: (x) => x.json.eventType === "InvoiceCancelled" })
          }))
          // a shutdown lets the attempt in flight be recorded
          const got = yield* r.requests
          const sent = got.map((x) => x.json.eventType)
          assert.strictEqual(sent[0], "InvoiceCreated")
          assert.strictEqual(sent[sent.length - 1], "InvoiceCancelled")
          assert.strictEqual(got.filter((x) => x.answeredStatus === 200 && x.json.eventType === "InvoiceCreated").length, 1)
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((x) => x.status), ["delivered", "delivered"])
        }))

      it.scoped("two dispatchers on one database: every notification fanned out once and sent once per attempt", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/two"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          const one = yield* anotherDispatcher({ allowPrivateNetworks: true, run: false, concurrency: 4 })
          const two = yield* anotherDispatcher({ allowPrivateNetworks: true, run: false, concurrency: 4 })
          const invoices: Array<string> = []
          for (let i = 0; i < 12; i++) {
            const invoice = yield* newInvoice(m)
            yield* rescind(m, invoice.id)
            invoices.push(invoice.id)
          }
          yield* Effect.all([one.fanOut, two.fanOut, one.fanOut, two.fanOut], { concurrency: "unbounded" })
          const queued = yield* deliveriesOf(hook.id)
          assert.strictEqual(queued.length, 24)
          assert.strictEqual(new Set(queued.map((x) => `${x.subjectID}/${x.eventType}`)).size, 24)
          // first attempt of every head fails, slowly enough for the two to overlap
          yield* r.setDefault({ status: 500, delayMs: 15 })
          yield* Effect.all([one.deliverDue, two.deliverDue], { concurrency: "unbounded" })
          let got = yield* r.requests
          assert.strictEqual(got.length, 12)
          assert.deepStrictEqual(new Set(got.map((x) => x.json.invoice.id)), new Set(invoices))
          assert.isTrue(got.every((x) => x.json.eventType === "InvoiceCreated"))
          yield* r.setDefault({ status: 200, delayMs: 5 })
          yield* TestClock.adjust("30 seconds")
          yield* Effect.all([one.deliverDue, two.deliverDue, one.deliverDue], { concurrency: "unbounded" })
          got = yield* r.requests
          assert.strictEqual(got.length, 36)
          const perNotification = new Map<string, number>()
          for (const x of got) {
            const k = `${x.json.invoice.id}/${x.json.eventType}`
            perNotification.set(k, (perNotification.get(k) ?? 0) + 1)
          }
          for (const id of invoices) {
            assert.strictEqual(perNotification.get(`${id}/InvoiceCreated`), 2)
            assert.strictEqual(perNotification.get(`${id}/InvoiceCancelled`), 1)
            const order = got.filter(forInvoice(id)).map((x) => x.json.eventType)
            assert.deepStrictEqual(order, ["InvoiceCreated", "InvoiceCreated", "InvoiceCancelled"])
          }
          const final = yield* deliveriesOf(hook.id)
          assert.isTrue(final.every((x) => x.status === "delivered"))
          assert.deepStrictEqual(final.map((x) => x.attempts).sort(), [...Array(12).fill(1), ...Array(12).fill(2)].sort())
        }))

      it.scoped("what was dispatched leaves the outbox; the events keep it", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/pruned"), { eventTypes: ["InvoiceCreated", "InvoiceCancelled"] })
          const one = yield* anotherDispatcher({ allowPrivateNetworks: true, run: false })
          const fresh = yield* newInvoice(m)
          yield* rescind(m, fresh.id)
          yield* one.fanOut
          const queued = yield* deliveriesOf(hook.id)
          assert.deepStrictEqual(queued.map((x) => `${x.subjectID}/${x.eventType}`), [
            `${fresh.id}/InvoiceCreated`,
            `${fresh.id}/InvoiceCancelled`
          ])
          const left = yield* sql`SELECT aggregate_id FROM outbox WHERE aggregate_id = ${fresh.id}`
          assert.strictEqual(left.length, 0)
          const events = yield* sql`SELECT id FROM events WHERE aggregate_type = 'invoice' AND aggregate_id = ${fresh.id}`
          assert.strictEqual(events.length, 2)
        }))

      it.scoped("an idle fan-out pass is one statement, outside any transaction; a pass with work still fans out", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          while ((yield* d.fanOut) > 0) {
            // what earlier tests left
          }
          const sent: Array<readonly [text: string, inTransaction: boolean]> = []
          const counting = Statement.withTransformer((statement, _sql, refs) => {
            const context = FiberRefs.getOrDefault(refs, FiberRef.currentContext)
            sent.push([statement.compile()[0], Option.isSome(Context.getOption(context, SqlClient.TransactionConnection))])
            return Effect.succeed(statement)
          })
          assert.strictEqual(yield* counting(d.fanOut), 0)
          assert.deepStrictEqual(sent.map(([text, inTransaction]) => [text.replace(/\s+/g, " "), inTransaction]), [
            ["SELECT 1 FROM outbox LIMIT 1", false]
          ])
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/idle"), { eventTypes: ["InvoiceCreated"] })
          const x = yield* newInvoice(m)
          sent.length = 0
          assert.isAtLeast(yield* counting(d.fanOut), 1)
          assert.isTrue(sent.slice(1).every(([, inTransaction]) => inTransaction))
          // a take that was not full took all there was: no second, empty one
          assert.strictEqual(sent.filter(([text]) => /FROM outbox o/.test(text)).length, 1, sent.map(([t]) => t).join("\n---\n"))
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((q) => `${q.subjectID}/${q.eventType}`), [`${x.id}/InvoiceCreated`])
        }))

      it.scoped("many subjects go out at once, but one receiver's host gets at most MAX_SOCKETS_PER_HOST connections", () =>
        Effect.gen(function*() {
          const d = yield* dispatcher
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          // long enough for every connection to be busy at once even when a loaded machine signs slowly
          yield* r.setDefault({ status: 200, delayMs: 600 })
          const hook = yield* hookFor(m, r.urlFor("/busy"), { eventTypes: ["InvoiceCreated"] })
          const subjects = WebhookDispatcher.MAX_SOCKETS_PER_HOST + 8
          yield* Effect.forEach(Array.from({ length: subjects }), () => newInvoice(m), { discard: true })
          yield* d.fanOut
          assert.strictEqual(yield* d.deliverDue, subjects)
          assert.strictEqual(yield* r.peakInFlight, WebhookDispatcher.MAX_SOCKETS_PER_HOST)
          const delivered = (yield* deliveriesOf(hook.id)).filter((q) => q.status === "delivered")
          assert.strictEqual(delivered.length, subjects)
        }))

      it.scoped("the claimed subjects' queues are read together, not one statement a subject", () =>
        Effect.gen(function*() {
          const { d, m, hook } = yield* drainedHook("/together", ["InvoiceCreated"])
          yield* Effect.forEach(Array.from({ length: 5 }), () => newInvoice(m), { discard: true })
          yield* d.fanOut
          const texts: Array<string> = []
          const delivered = yield* d.deliverDue.pipe(Statement.withTransformer((statement) => {
            texts.push(statement.compile()[0])
            return Effect.succeed(statement)
          }))
          assert.strictEqual(delivered, 5)
          // one claim with its queues, and one that finds nothing left (PostgreSQL's reads them in the same statement)
          assert.isAtMost(texts.filter((text) => /FROM webhook_deliveries d JOIN webhooks w/.test(text)).length, 2)
          assert.strictEqual((yield* deliveriesOf(hook.id)).filter((q) => q.status === "delivered").length, 5)
        }))

      it.scoped("the SSRF guard: refused at creation, and re-checked at every send", () =>
        Effect.gen(function*() {
          const strict = (yield* Layer.build(WebhookDispatcher.urlGuardLayer({
            resolve: async (host: string) =>
              host === "evil.test"
                ? [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }]
                : host === "localhost"
                ? [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }]
                : host === "good.test"
                ? [{ address: "93.184.216.34", family: 4 }]
                : []
          }))).pipe(Context.get(WebhookUrlGuard))
          for (
            const url of [
              "http://127.0.0.1/hook",
              "http://localhost:8080/hook",
              "http://[::1]/hook",
              "http://10.1.2.3/",
              "http://172.16.0.1/",
              "http://192.168.1.1/",
              "http://169.254.169.254/latest/meta-data",
              "http://100.64.0.1/",
              "http://[fd00::1]/",
              "http://[fe80::1]/",
              "http://[::ffff:127.0.0.1]/",
              "http://0.0.0.0/",
              "http://0x7f.1/",
              "https://evil.test/hook"
            ]
          ) {
            const refused = yield* strict.check(url)
            assert.isTrue(Option.isSome(refused), `${url} should be refused`)
          }
          assert.match(Option.getOrThrow(yield* strict.check("https://evil.test/hook")), /10\.0\.0\.7/)
          // the system resolver: localhost is loopback
          const system = (yield* Layer.build(WebhookDispatcher.urlGuardLayer())).pipe(Context.get(WebhookUrlGuard))
          assert.match(Option.getOrThrow(yield* system.check("http://localhost:9/hook")), /localhost resolves to .*loopback/)
          assert.isTrue(Option.isNone(yield* system.check("https://93.184.216.34/hook")))
          for (const url of ["https://good.test/hook", "https://93.184.216.34/hook", "https://[2606:4700::1111]/", "https://unresolvable.test/"]) {
            assert.isTrue(Option.isNone(yield* strict.check(url)), `${url} should be allowed`)
          }
          // at send time: a dispatcher without the development exemption refuses the receiver
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/private"), { eventTypes: ["InvoiceCreated"] })
          const guarded = yield* anotherDispatcher({ run: false })
          yield* newInvoice(m)
          yield* guarded.fanOut
          yield* guarded.deliverDue
          assert.strictEqual((yield* r.requests).length, 0)
          const [delivery] = yield* deliveriesOf(hook.id)
          assert.strictEqual(delivery!.attempts, 1)
          const [attempt] = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, delivery!.id)).pipe(Effect.orDie)
          assert.match(attempt!.error!, /refused.*127\.0\.0\.1.*loopback/)
          assert.isUndefined(attempt!.statusCode)
          // a host name that resolves into a private network is refused on the resolved address
          const named = yield* hookFor(m, `http://evil.test:${new URL(r.url).port}/x`, { eventTypes: ["InvoiceCreated"] })
          const resolving = yield* anotherDispatcher({
            run: false,
            resolve: async () => [{ address: "127.0.0.1", family: 4 }]
          })
          yield* newInvoice(m)
          yield* resolving.fanOut
          yield* TestClock.adjust("1 minute")
          yield* resolving.deliverDue
          assert.strictEqual((yield* r.requests).length, 0)
          const [namedDelivery] = yield* deliveriesOf(named.id)
          const [namedAttempt] = yield* Effect.flatMap(WebhookService, (s) => s.attempts(named.id, namedDelivery!.id)).pipe(Effect.orDie)
          assert.match(namedAttempt!.error!, /evil\.test resolves to 127\.0\.0\.1/)
        }))

      it.scoped("the development allowance lets loopback and private networks through, never link-local or cloud metadata", () =>
        Effect.gen(function*() {
          const dev = (yield* Layer.build(WebhookDispatcher.urlGuardLayer({
            allowPrivateNetworks: true,
            resolve: async (host: string) =>
              host === "metadata.test"
                ? [{ address: "169.254.169.254", family: 4 }]
                : host === "lan.test"
                ? [{ address: "192.168.1.20", family: 4 }]
                : []
          }))).pipe(Context.get(WebhookUrlGuard))
          for (const url of ["http://127.0.0.1:8080/hook", "http://[::1]/", "http://10.1.2.3/", "http://[fd12::1]/", "http://lan.test/"]) {
            assert.isTrue(Option.isNone(yield* dev.check(url)), `${url} should be allowed in development`)
          }
          for (
            const url of [
              "http://169.254.169.254/latest/meta-data",
              "http://0xa9fea9fe/",
              "http://2852039166/",
              "http://[::ffff:169.254.169.254]/",
              "http://[fd00:ec2::254]/",
              "http://169.254.10.10/",
              "http://[fe80::1]/",
              "http://198.18.0.1/",
              "http://metadata.test/"
            ]
          ) {
            assert.isTrue(Option.isSome(yield* dev.check(url)), `${url} should be refused even in development`)
          }
          // at send time: a name that resolves to the metadata endpoint is refused on the resolved address
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, `http://metadata.test:${new URL(r.url).port}/x`, { eventTypes: ["InvoiceCreated"] })
          const resolving = yield* anotherDispatcher({
            allowPrivateNetworks: true,
            run: false,
            resolve: async () => [{ address: "169.254.169.254", family: 4 }]
          })
          yield* newInvoice(m)
          yield* resolving.fanOut
          yield* resolving.deliverDue
          assert.strictEqual((yield* r.requests).length, 0)
          const [delivery] = yield* deliveriesOf(hook.id)
          const [attempt] = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, delivery!.id)).pipe(Effect.orDie)
          assert.match(attempt!.error!, /refused.*metadata\.test resolves to 169\.254\.169\.254 \(cloudMetadata\)/)
        }))

      it.scoped("a notification queued while its subject is being sent goes out when the send ends, without the safety sweep", () =>
        Effect.gen(function*() {
          const { m, r } = yield* drainedHook("/held", ["InvoiceCreated", "InvoiceCancelled"])
          // the first answer comes late: the subject is held while its next event is appended
          yield* r.answer([{ status: 200, delayMs: 400 }])
          yield* anotherDispatcher({ allowPrivateNetworks: true, pollInterval: "1 hour" })
          const invoice = yield* newInvoice(m)
          yield* r.waitFor(1)
          yield* rescind(m, invoice.id)
          const got = yield* r.waitFor(2)
          assert.deepStrictEqual(typesOf(got), ["InvoiceCreated:200", "InvoiceCancelled:200"])
        }))

      it.scoped("an operator's redelivery wakes an idle dispatcher: it goes out without the safety sweep", () =>
        Effect.gen(function*() {
          const { d, m, r, hook } = yield* drainedHook("/redelivered", ["InvoiceCreated"])
          yield* newInvoice(m)
          yield* d.fanOut
          yield* d.deliverDue
          const [original] = yield* deliveriesOf(hook.id)
          assert.strictEqual(original!.status, "delivered")
          let claims = 0
          yield* anotherDispatcher({ allowPrivateNetworks: true, pollInterval: "1 hour" }).pipe(
            Statement.withTransformer((statement) => {
              if (/UPDATE webhook_subjects SET locked_until = [?$]\d*, lock_owner =/.test(statement.compile()[0])) claims++
              return Effect.succeed(statement)
            })
          )
          // its first claim found nothing due: it sleeps until told, or for an hour
          for (let i = 0; i < 1_000 && claims === 0; i++) yield* realPause(10)
          assert.strictEqual(claims, 1)
          const copy = yield* Effect.flatMap(WebhookService, (s) => s.redeliver(hook.id, original!.id)).pipe(Effect.orDie)
          const got = yield* r.waitFor(2, { timeoutMs: 10_000 })
          assert.deepStrictEqual(typesOf(got), ["InvoiceCreated:200", "InvoiceCreated:200"])
          assert.strictEqual(got[1]!.text, got[0]!.text)
          for (let i = 0; i < 1_000 && (yield* deliveriesOf(hook.id)).some((x) => x.status !== "delivered"); i++) yield* realPause(10)
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((x) => [x.id, x.status]), [[original!.id, "delivered"], [copy.id, "delivered"]])
        }))

      it.scoped("a worker that gives its subject back with nothing queued since does not wake an empty claim (SQLite)", () =>
        Effect.gen(function*() {
          const { m, r, hook } = yield* drainedHook("/spread", ["InvoiceCreated"])
          const subjects = 8
          // the sends end one by one, each freeing its worker
          yield* r.answer(Array.from({ length: subjects }, (_, i) => ({ status: 200, delayMs: 40 * i })))
          yield* Effect.forEach(Array.from({ length: subjects }), () => newInvoice(m), { discard: true })
          const claims: Array<string> = []
          yield* anotherDispatcher({ allowPrivateNetworks: true, pollInterval: "1 hour" }).pipe(
            Statement.withTransformer((statement) => {
              const text = statement.compile()[0]
              if (/UPDATE webhook_subjects SET locked_until = [?$]\d*, lock_owner =/.test(text)) claims.push(text)
              return Effect.succeed(statement)
            })
          )
          yield* r.waitFor(subjects)
          // until every send is recorded (its worker freed)
          for (let i = 0; i < 1_000 && (yield* deliveriesOf(hook.id)).some((x) => x.status !== "delivered"); i++) yield* realPause(10)
          assert.deepStrictEqual((yield* deliveriesOf(hook.id)).map((x) => x.status), Array(subjects).fill("delivered"))
          yield* realPause(50)
          // the loop's first claim and the one the fan-out woke; on PostgreSQL a freed worker claims again
          if (dialect === "sqlite") assert.isAtMost(claims.length, 3, `${claims.length} claims`)
        }))

      it.scoped("a drained subject's row is deleted; what is queued while it drains keeps it, what comes after makes it afresh", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { hook } = yield* drainedHook("/rows", ["InvoiceCreated"])
          const queue = yield* Layer.build(SqlDeliveryQueue.layer).pipe(Effect.map(Context.get(DeliveryQueue)))
          const subject = { webhookID: hook.id, type: "invoice", id: `rows-${randomBytes(6).toString("hex")}` }
          const queueNotification = (n: number) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              queue.enqueue([{ subject, eventID: n, topic: "InvoicesTopic", eventType: "InvoiceCreated", body: `{"n":${n}}` }], now))
          const row = Effect.map(
            sql<{ version: unknown; nextAttemptAt: unknown }>`SELECT version, next_attempt_at FROM webhook_subjects
              WHERE webhook_id = ${hook.id} AND subject_type = 'invoice' AND subject_id = ${subject.id}`,
            (rows) => rows.map((x) => ({ version: Number(x.version), due: x.nextAttemptAt !== null }))
          )
          const claimOurs = Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const claimed = yield* queue.claimDue("rows-test", 100, now, 60_000)
            const ours = claimed.filter((c) => c.lease.subject.id === subject.id)
            assert.strictEqual(ours.length, 1)
            return ours[0]!
          })
          /** Records the claimed queue as sent, its last attempt draining it. */
          const sendAll = (c: Claimed) =>
            Effect.forEach(c.pending, (p, i) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                queue.record(c.lease, {
                  deliveryID: p.deliveryID,
                  number: 1,
                  firstAttemptAt: now,
                  startedAt: now,
                  endedAt: now,
                  statusCode: 200,
                  error: undefined,
                  durationMs: 1
                }, { _tag: "Delivered", drained: c.complete && i === c.pending.length - 1 })), { discard: true })
          const bodies = (c: Claimed) => c.pending.map((p) => p.body)

          yield* queueNotification(1)
          const first = yield* claimOurs
          assert.deepStrictEqual(bodies(first), [`{"n":1}`])
          // queued while the first is out: the row stays, due, for the second
          yield* queueNotification(2)
          yield* sendAll(first)
          assert.deepStrictEqual(yield* row, [{ version: 2, due: true }])
          const second = yield* claimOurs
          assert.deepStrictEqual(bodies(second), [`{"n":2}`])
          yield* sendAll(second)
          assert.deepStrictEqual(yield* row, [])
          // after the drain: made afresh, due
          yield* queueNotification(3)
          assert.deepStrictEqual(yield* row, [{ version: 1, due: true }])
          const third = yield* claimOurs
          assert.deepStrictEqual(bodies(third), [`{"n":3}`])
          yield* sendAll(third)
          assert.deepStrictEqual(yield* row, [])
          // given back idle (its queue found empty): deleted, unless something was queued since the lease's version
          yield* queueNotification(4)
          const fourth = yield* claimOurs
          yield* sendAll({ ...fourth, complete: false })
          assert.deepStrictEqual(yield* row, [{ version: 1, due: true }])
          yield* queue.release({ ...fourth.lease, version: fourth.lease.version - 1 }, true)
          assert.deepStrictEqual(yield* row, [{ version: 1, due: true }])
          const renewed = yield* claimOurs
          assert.deepStrictEqual(bodies(renewed), [])
          yield* queue.release(renewed.lease, true)
          assert.deepStrictEqual(yield* row, [])
          const delivered = yield* sql<{ body: string; status: string }>`SELECT body, status FROM webhook_deliveries
            WHERE webhook_id = ${hook.id} AND subject_id = ${subject.id} ORDER BY id`
          assert.deepStrictEqual(delivered.map((x) => `${x.body} ${x.status}`), [1, 2, 3, 4].map((n) => `{"n":${n}} delivered`))

          // Concurrently, on two connections (on SQLite, one after the other): an enqueue whose
          // transaction is open while the drained subject is given back, then a give-back whose
          // transaction is open while an enqueue comes.
          const other = <A, E, R>(effect: Effect.Effect<A, E, R>, after: Deferred.Deferred<void>) =>
            Effect.fork(Effect.zipRight(Deferred.await(after), effect))
          yield* queueNotification(5)
          const fifth = yield* claimOurs
          const enqueued = yield* Deferred.make<void>()
          const givenBack = yield* other(sendAll(fifth), enqueued)
          yield* sql.withTransaction(
            Effect.all([queueNotification(6), Deferred.succeed(enqueued, undefined), realPause(200)], { discard: true })
          )
          yield* Fiber.join(givenBack)
          assert.deepStrictEqual(yield* row, [{ version: 2, due: true }])
          const sixth = yield* claimOurs
          assert.deepStrictEqual(bodies(sixth), [`{"n":6}`])
          const deleting = yield* Deferred.make<void>()
          const arriving = yield* other(queueNotification(7), deleting)
          // (sent, then given back idle: the release runs in the open transaction, the attempts' batched record does not)
          yield* sendAll({ ...sixth, complete: false })
          yield* sql.withTransaction(
            Effect.all([queue.release(sixth.lease, true), Deferred.succeed(deleting, undefined), realPause(200)], { discard: true })
          )
          yield* Fiber.join(arriving)
          assert.deepStrictEqual(yield* row, [{ version: 1, due: true }])
          const seventh = yield* claimOurs
          assert.deepStrictEqual(bodies(seventh), [`{"n":7}`])
          yield* sendAll(seventh)
          assert.deepStrictEqual(yield* row, [])
          const all = yield* sql<{ body: string; status: string }>`SELECT body, status FROM webhook_deliveries
            WHERE webhook_id = ${hook.id} AND subject_id = ${subject.id} ORDER BY id`
          assert.deepStrictEqual(all.map((x) => `${x.body} ${x.status}`), [1, 2, 3, 4, 5, 6, 7].map((n) => `{"n":${n}} delivered`))
        }))

      it.scoped("a webhook's URL is parsed once, but every new connection checks the host's addresses again", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, `http://moving.test:${new URL(r.url).port}/moving`, { eventTypes: ["InvoiceCreated"] })
          // the receiver closes each connection, so the second send must open (and check) a new one
          yield* r.setDefault({ status: 200, headers: { connection: "close" } })
          let answer = "127.0.0.1"
          const resolving = yield* anotherDispatcher({
            allowPrivateNetworks: true,
            run: false,
            resolve: async () => [{ address: answer, family: 4 }]
          })
          yield* newInvoice(m)
          yield* resolving.fanOut
          assert.strictEqual(yield* resolving.deliverDue, 1)
          // the name now resolves to the cloud metadata endpoint, which even development may not reach
          answer = "169.254.169.254"
          yield* newInvoice(m)
          yield* resolving.fanOut
          assert.strictEqual(yield* resolving.deliverDue, 1)
          assert.strictEqual((yield* r.requests).length, 1)
          const deliveries = yield* deliveriesOf(hook.id)
          assert.deepStrictEqual(deliveries.map((d) => d.status), ["delivered", "pending"])
          const [attempt] = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, deliveries[1]!.id)).pipe(Effect.orDie)
          assert.match(attempt!.error!, /refused.*moving\.test resolves to 169\.254\.169\.254 \(cloudMetadata\)/)
        }))

      it.scoped("redirects are not followed; no answer within the timeout is a failure", () =>
        Effect.gen(function*() {
          const m = yield* Fixtures.merchant()
          const r = yield* Receiver.make
          const hook = yield* hookFor(m, r.urlFor("/redirect"), { eventTypes: ["InvoiceCreated"] })
          const quick = yield* anotherDispatcher({ allowPrivateNetworks: true, run: false, timeout: "300 millis" })
          yield* r.answer([{ status: 302, headers: { location: r.urlFor("/elsewhere") } }, { status: 200, delayMs: 1_000 }])
          yield* newInvoice(m)
          yield* quick.fanOut
          yield* quick.deliverDue
          yield* TestClock.adjust("30 seconds")
          yield* quick.deliverDue
          yield* TestClock.adjust("5 minutes")
          yield* quick.deliverDue
          const got = yield* r.requests
          assert.deepStrictEqual(got.map((x) => `${x.path} ${x.answeredStatus}`), ["/redirect 302", "/redirect 200", "/redirect 200"])
          const [delivery] = yield* deliveriesOf(hook.id)
          const attempts = yield* Effect.flatMap(WebhookService, (s) => s.attempts(hook.id, delivery!.id)).pipe(Effect.orDie)
          assert.deepStrictEqual(attempts.map((a) => [a.statusCode, a.succeeded]), [[302, false], [undefined, false], [200, true]])
          assert.match(attempts[1]!.error!, /no answer within 300 ms/)
        }))
    }
  )
}
