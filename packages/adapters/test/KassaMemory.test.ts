import { assert, layer } from "@effect/vitest"
import { Kassa } from "@kassa/adapters"
import {
  ApiKeyService,
  Authenticator,
  BankCards,
  ChargebackService,
  ContractService,
  CustomerService,
  DepositService,
  DestinationService,
  IdentityService,
  InvoiceService,
  InvoiceTemplateService,
  Onboarding,
  PartyService,
  PaymentResources,
  PaymentService,
  ReferenceService,
  RefundService,
  ReportService,
  SearchService,
  ShopService,
  W2WService,
  WalletReference,
  WalletService,
  WalletWebhookService,
  WebhookService,
  WithdrawalService
} from "@kassa/core"
import { MemoryStore } from "@kassa/core/memory/MemoryStore"
import { type Timer, Timers } from "@kassa/core/ports/Timers"
import { Fixtures } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { inspect } from "node:util"

const CARD = "4242424242424242"
const FINAL = ["captured", "cancelled", "failed", "refunded"]

/** Lets the background work run, moving the test clock a second at a time, until `done` holds (at most a minute). */
const settle = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    let value = yield* read
    for (let i = 0; i < 60 && !done(value); i++) {
      yield* TestClock.adjust("1 second")
      value = yield* read
    }
    return value
  })

/** Core's facades, each of whose `Default` layers builds it with what it needs. */
const facades = [
  PartyService.PartyService,
  ShopService.ShopService,
  ReferenceService.ReferenceService,
  ApiKeyService.ApiKeyService,
  Authenticator.Authenticator,
  Onboarding.Onboarding,
  InvoiceService.InvoiceService,
  InvoiceTemplateService.InvoiceTemplateService,
  PaymentService.PaymentService,
  PaymentResources.PaymentResources,
  BankCards.BankCards,
  WalletReference.WalletReference,
  RefundService.RefundService,
  ChargebackService.ChargebackService,
  CustomerService.CustomerService,
  ContractService.ContractService,
  WebhookService.WebhookService,
  SearchService.SearchService,
  IdentityService.IdentityService,
  WalletService.WalletService,
  DepositService.DepositService,
  W2WService.W2WService,
  DestinationService.DestinationService,
  WithdrawalService.WithdrawalService,
  WalletWebhookService.WalletWebhookService,
  ReportService.ReportService
] as const

const keys = <A>(context: Context.Context<A>) => [...context.unsafeMap.keys()].sort()

layer(Kassa.layerMemory({ webhooks: { run: false } }))("Kassa.layerMemory", (it) => {
  it.scoped("Kassa.services builds every facade the services' Default layers build, and no other, each of its class", () =>
    Effect.gen(function*() {
      const services = yield* Layer.build(Kassa.services)
      const [first, ...rest] = facades.map((facade) => facade.Default as Layer.Layer<unknown, never, Layer.Layer.Context<typeof Kassa.services>>)
      const defaults = yield* Layer.build(Layer.mergeAll(first!, ...rest))
      assert.deepStrictEqual(keys(services), keys(defaults))
      assert.strictEqual(keys(services).length, facades.length)
      for (const facade of facades) {
        assert.isTrue(Context.unsafeGet(services, facade as Context.Tag<unknown, unknown>) instanceof (facade as Function), facade.key)
      }
    }))

  it.effect("a card payment is captured, the invoice paid, and a refund succeeds, all in memory", () =>
    Effect.gen(function*() {
      const m = yield* Fixtures.merchant()
      const invoices = yield* InvoiceService.InvoiceService
      const resources = yield* PaymentResources.PaymentResources
      const payments = yield* PaymentService.PaymentService
      const refunds = yield* RefundService.RefundService
      const now = yield* Clock.currentTimeMillis
      const { invoice } = yield* invoices.create(m.partyID, {
        shopID: m.shopID,
        dueDate: new Date(now + 86_400_000),
        amount: 1000,
        currency: "RUB",
        product: "Tea",
        metadata: {}
      })
      const resource = yield* resources.create(m.partyID, {
        paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "123" },
        clientInfo: { fingerprint: "memory" }
      })
      const started = yield* payments.create(m.partyID, invoice.id, {
        flow: { type: "PaymentFlowInstant" },
        payer: Fixtures.resourcePayer(resource),
        makeRecurrent: false
      })
      const payment = yield* settle(payments.get(m.partyID, invoice.id, started.id).pipe(Effect.orDie), (p) => FINAL.includes(p.status))
      assert.strictEqual(payment.status, "captured")
      assert.strictEqual(payment.amount, 1000)
      const paid = yield* settle(invoices.get(m.partyID, invoice.id).pipe(Effect.orDie), (i) => i.status === "paid")
      assert.strictEqual(paid.status, "paid")

      const refund = yield* refunds.create(m.partyID, invoice.id, started.id, { amount: 400, currency: "RUB" })
      const done = yield* settle(
        refunds.get(m.partyID, invoice.id, started.id, refund.id).pipe(Effect.orDie),
        (r) => r.status !== "pending"
      )
      assert.strictEqual(done.status, "succeeded")

      // the vault's rows, logged or rendered however, never show the card number
      const store = yield* MemoryStore
      const rows = yield* store.table<unknown>("vault_cards").values
      assert.isAbove(rows.length, 0)
      for (const shown of [JSON.stringify(rows), inspect(rows, { depth: 10 }), String(rows.map((r) => JSON.stringify(r)))]) {
        assert.notInclude(shown, CARD)
        assert.notInclude(shown, CARD.slice(6, 12))
      }
    }))

  it.effect("the scheduler fiber fires a timer when the test clock reaches it, once, by itself", () =>
    Effect.gen(function*() {
      const timers = yield* Timers
      const fired: Array<Timer> = []
      yield* timers.register("memory.test", (t) => Effect.sync(() => void fired.push(t)))
      const now = yield* Clock.currentTimeMillis
      yield* timers.schedule({ kind: "memory.test", subject: "s", dueAt: new Date(now + 60_000), payload: { n: 1 } })
      yield* TestClock.adjust("59999 millis")
      assert.deepStrictEqual(fired, [])
      yield* TestClock.adjust("1 millis")
      // the fiber woke: let it run its pass (no time passes)
      for (let i = 0; i < 100 && fired.length === 0; i++) yield* Effect.yieldNow()
      assert.deepStrictEqual(fired, [{ kind: "memory.test", subject: "s", dueAt: new Date(now + 60_000), payload: { n: 1 } }])
      yield* TestClock.adjust("1 day")
      assert.strictEqual(fired.length, 1)
    }))
})
