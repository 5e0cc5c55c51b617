/**
 * Wallet webhook delivery, on memory, SQLite and PostgreSQL under `TestClock`: a withdrawal's
 * and a destination's events reach the webhooks that want them (identity, wallet, event types),
 * signed with the party's key; a failed notification is retried on the payments webhooks'
 * schedule; a deleted webhook's queue is discarded; a dispatcher that dies holding a subject
 * leaves it to another, which sends each notification once.
 */
import { assert, layer } from "@effect/vitest"
import { Kassa, WebhookDispatcher } from "@kassa/adapters"
import * as SqlDeliveryQueue from "@kassa/adapters/webhooks/SqlDeliveryQueue"
import { verifyNotification } from "@kassa/adapters/WebhookSignature"
import {
  BankCards,
  DepositService,
  DestinationService,
  IdentityService,
  WalletService,
  WalletWebhookService,
  WebhookService,
  WithdrawalService
} from "@kassa/core"
import { DeliveryQueue } from "@kassa/core/ports/DeliveryQueue"
import { EventLog } from "@kassa/core/ports/EventLog"
import { WithdrawalRepository } from "@kassa/core/ports/WithdrawalRepository"
import type { WalletWebhookScope } from "@kassa/core/wallet-webhook/WalletWebhook"
import type { WithdrawalRecord } from "@kassa/core/withdrawal/Withdrawal"
import { Dialects, Fixtures, TestKassa } from "@kassa/testing"
import * as Receiver from "@kassa/testing/WebhookReceiver"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const OK_CARD = "4242424242424242"
const REJECTED_CARD = "4000000100000019"
const UNAUTHORIZED_CARD = "4000000100000076"

const webhooks = { run: false, allowPrivateNetworks: true, timeout: "2 seconds" } as const

const kassa = (
  backend: Dialects.Backend
): Layer.Layer<Kassa.Services | WebhookDispatcher.WebhookDispatcher | DeliveryQueue | EventLog | WithdrawalRepository> =>
  backend === "memory"
    ? TestKassa.layerMemory({ webhooks })
    : Layer.provideMerge(SqlDeliveryQueue.layer, TestKassa.layer(backend, { webhooks }))

const rub = (amount: number) => ({ amount, currency: "RUB" })

/** A new identity of the merchant's, with a wallet. */
const walletOf = (partyID: string) =>
  Effect.gen(function*() {
    const identity = yield* (yield* IdentityService.IdentityService).create(partyID, { name: "Ivan", provider: "test" })
    const wallet = yield* (yield* WalletService.WalletService).create(partyID, { name: "Main", identity: identity.id, currency: "RUB" })
    return { identityID: identity.id, walletID: wallet.id }
  }).pipe(Effect.orDie)

const funded = (walletID: string, amount: number) =>
  Effect.gen(function*() {
    yield* (yield* DepositService.DepositService).create({ wallet: walletID, source: "src-1", body: rub(amount) })
    yield* TestKassa.settle
  }).pipe(Effect.orDie)

const destinationOf = (partyID: string, identityID: string, card = OK_CARD, externalID?: string) =>
  Effect.gen(function*() {
    const token = yield* (yield* BankCards.BankCards).store(partyID, { cardNumber: card, expDate: "12/40" })
    return yield* (yield* DestinationService.DestinationService).create(partyID, {
      name: "Card",
      identity: identityID,
      currency: "RUB",
      resource: { type: "BankCardDestinationResource", token: token.token },
      ...(externalID === undefined ? {} : { externalID })
    })
  }).pipe(Effect.orDie)

const hookOf = (partyID: string, identityID: string, scope: WalletWebhookScope, url: string) =>
  Effect.flatMap(WalletWebhookService.WalletWebhookService, (s) => s.create(partyID, { identityID, scope, url })).pipe(Effect.orDie)

const withdraw = (partyID: string, walletID: string, destinationID: string, amount: number, externalID?: string) =>
  Effect.flatMap(WithdrawalService.WithdrawalService, (s) =>
    s.create(partyID, { wallet: walletID, destination: destinationID, body: rub(amount), ...(externalID === undefined ? {} : { externalID }) })).pipe(
      Effect.orDie
    )

const at = (path: string) => (r: Receiver.ReceivedRequest) => r.path === path
const about = (id: string) => (r: Receiver.ReceivedRequest) =>
  r.json?.withdrawalID === id || r.json?.withdrawal?.id === id || r.json?.destinationID === id || r.json?.destination?.id === id
const typesOf = (rs: ReadonlyArray<Receiver.ReceivedRequest>) => rs.map((r) => `${r.json?.eventType}:${r.answeredStatus}`)

for (const backend of Dialects.backends()) {
  layer(kassa(backend), { timeout: "120 seconds" })(`Wallet webhook delivery [${backend}]`, (it) => {
    it.scoped("a withdrawal's notifications reach the webhooks of its identity that want them: its wallet, its event types", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID, walletID } = yield* walletOf(m.partyID)
        const sibling = yield* (yield* WalletService.WalletService).create(m.partyID, { name: "Second", identity: identityID, currency: "RUB" }).pipe(
          Effect.orDie
        )
        const stranger = yield* walletOf(m.partyID)
        yield* funded(walletID, 10_000)
        const ok = yield* destinationOf(m.partyID, identityID)
        const rejected = yield* destinationOf(m.partyID, identityID, REJECTED_CARD)
        yield* TestKassa.settle

        const all = ["WithdrawalStarted", "WithdrawalSucceeded", "WithdrawalFailed"] as const
        const wallet = yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", walletID, eventTypes: all }, r.urlFor("/wallet"))
        yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalSucceeded", "WithdrawalFailed"] }, r.urlFor("/final"))
        yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", walletID: sibling.id, eventTypes: all }, r.urlFor("/sibling"))
        yield* hookOf(m.partyID, stranger.identityID, { topic: "WithdrawalsTopic", eventTypes: all }, r.urlFor("/stranger"))
        yield* hookOf(m.partyID, identityID, { topic: "DestinationsTopic", eventTypes: ["DestinationCreated"] }, r.urlFor("/destinations"))

        const paid = yield* withdraw(m.partyID, walletID, ok.id, 1_000, "wd-ok")
        const failed = yield* withdraw(m.partyID, walletID, rejected.id, 2_000)
        yield* TestKassa.settle

        const got = yield* r.requests
        assert.deepStrictEqual(typesOf(got.filter(at("/wallet")).filter(about(paid.id))), ["WithdrawalStarted:200", "WithdrawalSucceeded:200"])
        assert.deepStrictEqual(typesOf(got.filter(at("/wallet")).filter(about(failed.id))), ["WithdrawalStarted:200", "WithdrawalFailed:200"])
        assert.deepStrictEqual(typesOf(got.filter(at("/final")).filter(about(paid.id))), ["WithdrawalSucceeded:200"])
        assert.deepStrictEqual(typesOf(got.filter(at("/final")).filter(about(failed.id))), ["WithdrawalFailed:200"])
        // another wallet's, another identity's, and a destinations hook created after the destinations: nothing
        assert.deepStrictEqual(got.filter((x) => !at("/wallet")(x) && !at("/final")(x)).map((x) => x.path), [])

        const withdrawal = yield* (yield* WithdrawalService.WithdrawalService).get(m.partyID, paid.id).pipe(Effect.orDie)
        const [started, succeeded] = got.filter(at("/wallet")).filter(about(paid.id))
        assert.deepStrictEqual(started!.json, {
          eventID: "1",
          occuredAt: withdrawal.createdAt.toISOString(),
          topic: "WithdrawalTopic",
          eventType: "WithdrawalStarted",
          withdrawal: { id: paid.id, createdAt: withdrawal.createdAt.toISOString(), wallet: walletID, destination: ok.id, body: rub(1_000), externalID: "wd-ok" }
        })
        assert.deepStrictEqual(succeeded!.json, {
          eventID: "2",
          occuredAt: withdrawal.events[1]!.occuredAt.toISOString(),
          topic: "WithdrawalTopic",
          eventType: "WithdrawalSucceeded",
          withdrawalID: paid.id,
          externalID: "wd-ok",
          fee: rub(withdrawal.fee),
          body: rub(1_000)
        })
        assert.deepStrictEqual(got.filter(at("/final")).find(about(failed.id))!.json, {
          eventID: "2",
          occuredAt: (yield* (yield* WithdrawalService.WithdrawalService).get(m.partyID, failed.id).pipe(Effect.orDie)).events[1]!.occuredAt.toISOString(),
          topic: "WithdrawalTopic",
          eventType: "WithdrawalFailed",
          withdrawalID: failed.id
        })
        const { publicKey } = yield* (yield* WalletWebhookService.WalletWebhookService).get(m.partyID, identityID, wallet.id).pipe(Effect.orDie)
        for (const x of got) {
          assert.strictEqual(x.headers["content-type"], "application/json; charset=utf-8")
          assert.isTrue(verifyNotification(x.body, x.headers["content-signature"], publicKey), x.text)
        }
      }))

    it.scoped("a withdrawal refused for too little money notifies its start and its failure", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID, walletID } = yield* walletOf(m.partyID)
        const ok = yield* destinationOf(m.partyID, identityID)
        yield* TestKassa.settle
        yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted", "WithdrawalFailed"] }, r.url)
        const w = yield* withdraw(m.partyID, walletID, ok.id, 500)
        assert.strictEqual(w.status, "Failed")
        yield* TestKassa.settle
        assert.deepStrictEqual(typesOf(yield* r.requests), ["WithdrawalStarted:200", "WithdrawalFailed:200"])
      }))

    it.scoped("a withdrawal another party makes with a wallet grant notifies the wallet owner's webhooks, not its maker's", () =>
      Effect.gen(function*() {
        const owner = yield* Fixtures.merchant()
        const maker = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID, walletID } = yield* walletOf(owner.partyID)
        const own = yield* walletOf(maker.partyID)
        yield* funded(walletID, 10_000)
        const d = yield* destinationOf(maker.partyID, own.identityID)
        yield* TestKassa.settle
        const all = ["WithdrawalStarted", "WithdrawalSucceeded", "WithdrawalFailed"] as const
        yield* hookOf(owner.partyID, identityID, { topic: "WithdrawalsTopic", walletID, eventTypes: all }, r.urlFor("/owner"))
        yield* hookOf(maker.partyID, own.identityID, { topic: "WithdrawalsTopic", eventTypes: all }, r.urlFor("/maker"))

        const validUntil = new Date((yield* Clock.currentTimeMillis) + 3_600_000)
        const grant = yield* (yield* WalletService.WalletService).issueGrant(owner.partyID, walletID, { asset: rub(2_000), validUntil }).pipe(
          Effect.orDie
        )
        const w = yield* Effect.flatMap(WithdrawalService.WithdrawalService, (s) =>
          s.create(maker.partyID, { wallet: walletID, destination: d.id, body: rub(1_000), walletGrant: grant.token })).pipe(Effect.orDie)
        yield* TestKassa.settle

        const got = yield* r.requests
        assert.deepStrictEqual(typesOf(got.filter(about(w.id))), ["WithdrawalStarted:200", "WithdrawalSucceeded:200"])
        assert.deepStrictEqual([...new Set(got.map((x) => x.path))], ["/owner"])
      }))

    it.scoped("a withdrawal older than its logged events: a logged status change notifies that status, numbered as the withdrawal's events", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID, walletID } = yield* walletOf(m.partyID)
        yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted", "WithdrawalSucceeded"] }, r.url)
        // stored before withdrawals logged their events: its start is on its record only
        const createdAt = new Date(yield* Clock.currentTimeMillis)
        const id = `old-${createdAt.getTime()}`
        const old: WithdrawalRecord = {
          id,
          partyID: m.partyID,
          walletPartyID: m.partyID,
          walletID,
          identityID,
          destinationID: "d-old",
          amount: 700,
          currency: "RUB",
          fee: 7,
          payout: rub(700),
          status: "Succeeded",
          attempts: 1,
          events: [{ eventID: 1, occuredAt: createdAt, status: "Pending" }, { eventID: 2, occuredAt: createdAt, status: "Succeeded" }],
          createdAt,
          version: 2
        }
        yield* (yield* WithdrawalRepository).insert(old)
        yield* (yield* EventLog).append({
          aggregateType: "withdrawal",
          aggregateID: id,
          partyID: m.partyID,
          changes: [{ type: "WithdrawalStatusChanged", status: "Succeeded" }]
        })
        yield* TestKassa.settle
        assert.deepStrictEqual((yield* r.requests).map((x) => [x.json.eventType, x.json.eventID, x.json.withdrawalID]), [["WithdrawalSucceeded", "2", id]])
      }))

    it.scoped("a destination's creation and authorization reach its identity's destinations webhooks, the card masked", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID } = yield* walletOf(m.partyID)
        const stranger = yield* walletOf(m.partyID)
        const both = ["DestinationCreated", "DestinationAuthorized"] as const
        yield* hookOf(m.partyID, identityID, { topic: "DestinationsTopic", eventTypes: both }, r.urlFor("/both"))
        yield* hookOf(m.partyID, identityID, { topic: "DestinationsTopic", eventTypes: ["DestinationUnauthorized"] }, r.urlFor("/unauthorized"))
        yield* hookOf(m.partyID, identityID, { topic: "WithdrawalsTopic", eventTypes: ["WithdrawalStarted"] }, r.urlFor("/withdrawals"))
        yield* hookOf(m.partyID, stranger.identityID, { topic: "DestinationsTopic", eventTypes: both }, r.urlFor("/stranger"))

        const d = yield* destinationOf(m.partyID, identityID, OK_CARD, "dest-1")
        const never = yield* destinationOf(m.partyID, identityID, UNAUTHORIZED_CARD)
        yield* TestKassa.settle
        const got = yield* r.requests
        assert.deepStrictEqual(got.map((x) => x.path).filter((p) => p !== "/both"), [])
        assert.deepStrictEqual(typesOf(got.filter(about(d.id))), ["DestinationCreated:200", "DestinationAuthorized:200"])
        assert.deepStrictEqual(typesOf(got.filter(about(never.id))), ["DestinationCreated:200"])
        const [created, authorized] = got.filter(about(d.id))
        assert.deepStrictEqual(created!.json, {
          eventID: "1",
          occuredAt: d.createdAt.toISOString(),
          topic: "DestinationTopic",
          eventType: "DestinationCreated",
          destination: {
            id: d.id,
            name: "Card",
            identity: identityID,
            currency: "RUB",
            resource: { type: "BankCard", cardNumberMask: "424242******4242", bin: "424242", lastDigits: "4242", paymentSystem: "visa" },
            externalID: "dest-1"
          }
        })
        assert.deepInclude(authorized!.json, { eventID: "2", topic: "DestinationTopic", eventType: "DestinationAuthorized", destinationID: d.id, externalID: "dest-1" })
        assert.deepStrictEqual(Object.keys(authorized!.json).sort(), ["destinationID", "eventID", "eventType", "externalID", "occuredAt", "topic"])
        for (const x of got) {
          assert.notInclude(x.text, OK_CARD)
          assert.notInclude(x.text, d.resource.token)
        }
      }))

    it.scoped("a failed notification is retried on the payments webhooks' schedule; a deleted webhook's queue is discarded", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const { identityID } = yield* walletOf(m.partyID)
        const service = yield* WalletWebhookService.WalletWebhookService
        const hook = yield* hookOf(m.partyID, identityID, { topic: "DestinationsTopic", eventTypes: ["DestinationCreated", "DestinationAuthorized"] }, r.url)
        yield* r.setDefault(500)
        const d = yield* destinationOf(m.partyID, identityID)
        yield* TestKassa.settle
        // the creation failed: the authorization waits behind it
        assert.deepStrictEqual(typesOf(yield* r.requests), ["DestinationCreated:500"])
        yield* TestKassa.advance("29 seconds")
        assert.strictEqual((yield* r.requests).length, 1)
        yield* TestKassa.advance("1 second")
        assert.deepStrictEqual(typesOf(yield* r.requests), ["DestinationCreated:500", "DestinationCreated:500"])

        // the operator sees the queue as a payments webhook's
        const operator = yield* WebhookService.WebhookService
        const queued = yield* operator.deliveries(hook.id).pipe(Effect.orDie)
        assert.deepStrictEqual(queued.map((x) => [x.eventType, x.status, x.attempts, x.subjectType, x.subjectID]).reverse(), [
          ["DestinationCreated", "pending", 2, "destination", d.id],
          ["DestinationAuthorized", "pending", 0, "destination", d.id]
        ])
        assert.strictEqual(queued[1]!.nextAttemptAt!.getTime() - queued[1]!.lastAttemptAt!.getTime(), 5 * 60_000)

        yield* service.delete(m.partyID, identityID, hook.id).pipe(Effect.orDie)
        assert.strictEqual((yield* Effect.flip(operator.deliveries(hook.id)))._tag, "NotFound")
        yield* r.setDefault(200)
        yield* TestKassa.advance("1 hour")
        assert.deepStrictEqual(typesOf((yield* r.requests).filter(about(d.id))), ["DestinationCreated:500", "DestinationCreated:500"])
        // nothing is left queued for it
        const now = yield* Clock.currentTimeMillis
        const due = yield* (yield* DeliveryQueue).claimDue("probe", 1000, now + 48 * 3_600_000, 1)
        assert.deepStrictEqual(due.filter((c) => c.lease.subject.webhookID === hook.id), [])
      }))

    it.scoped("a dispatcher that dies holding a subject leaves it to another after its lease: each notification is sent once", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const r = yield* Receiver.make
        const queue = yield* DeliveryQueue
        const dispatcher = yield* WebhookDispatcher.WebhookDispatcher
        const { identityID } = yield* walletOf(m.partyID)
        const hook = yield* hookOf(m.partyID, identityID, { topic: "DestinationsTopic", eventTypes: ["DestinationCreated", "DestinationAuthorized"] }, r.url)
        const d = yield* destinationOf(m.partyID, identityID)
        yield* dispatcher.fanOut
        // a process claims the subject, then dies before sending
        const now = yield* Clock.currentTimeMillis
        const claimed = (yield* queue.claimDue("dead-process", 1000, now, 60_000)).filter((c) => c.lease.subject.webhookID === hook.id)
        assert.deepStrictEqual(claimed.map((c) => [c.lease.subject.id, c.pending.length > 0]), [[d.id, true]])
        // while its lease lives the others leave the subject alone; what follows queues behind
        yield* TestKassa.settle
        assert.deepStrictEqual(yield* r.requests, [])
        yield* TestKassa.advance("61 seconds")
        yield* TestKassa.advance("10 minutes")
        assert.deepStrictEqual(typesOf(yield* r.requests), ["DestinationCreated:200", "DestinationAuthorized:200"])
      }))
  })
}
