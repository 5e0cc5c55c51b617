/**
 * Records for the storage contract suite: made by hand where they are small, through the domain's
 * services where a realistic one takes many fields (invoices, payments).
 */
import { RandomIds } from "@kassa/adapters"
import { Ids, InvoiceService, type Party, PaymentResources, PaymentService, type Shop } from "@kassa/core"
import { EventLog } from "@kassa/core/ports/EventLog"
import { PaymentRepository } from "@kassa/core/ports/PaymentRepository"
import { WalletWebhookRepository } from "@kassa/core/ports/WalletWebhookRepository"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import type { ChargebackRecord } from "@kassa/core/chargeback/Chargeback"
import type { RefundRecord } from "@kassa/core/refund/Refund"
import { Fixtures } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** A fresh id with a readable prefix. */
export const fresh = (prefix: string) => `${prefix}-${RandomIds.make()}`

export const party = (overrides: Partial<Party.PartyRecord> = {}): Party.PartyRecord => ({
  id: Ids.PartyID.make(fresh("p")),
  name: "Party",
  email: "party@kassa.test",
  isBlocked: false,
  isSuspended: false,
  createdAt: new Date(1_700_000_000_123),
  version: 1,
  ...overrides
})

export const shop = (partyID: Ids.PartyID, overrides: Partial<Shop.ShopRecord> = {}): Shop.ShopRecord => ({
  id: Ids.ShopID.make(fresh("s")),
  partyID,
  createdAt: new Date(1_700_000_000_456),
  isBlocked: false,
  isSuspended: false,
  currency: "RUB",
  categoryID: 1,
  location: { locationType: "ShopLocationUrl", url: "https://shop.kassa.test" },
  details: { name: "Shop", description: "A shop" },
  contractID: Ids.ContractID.make(fresh("c")),
  version: 1,
  ...overrides
})

export const refund = (of: { readonly invoiceID: string; readonly paymentID: string; readonly partyID: string; readonly shopID: string }, id: string, overrides: Partial<RefundRecord> = {}): RefundRecord => ({
  id,
  invoiceID: of.invoiceID,
  paymentID: of.paymentID,
  partyID: of.partyID,
  shopID: of.shopID,
  createdAt: new Date(1_700_000_100_000 + Number(id)),
  amount: 100,
  currency: "RUB",
  reason: "returned",
  status: "pending",
  fee: 0,
  version: 1,
  ...overrides
})

export const chargeback = (of: { readonly invoiceID: string; readonly paymentID: string; readonly partyID: string; readonly shopID: string }, id: string, overrides: Partial<ChargebackRecord> = {}): ChargebackRecord => ({
  id,
  invoiceID: of.invoiceID,
  paymentID: of.paymentID,
  partyID: of.partyID,
  shopID: of.shopID,
  createdAt: new Date(1_700_000_200_000 + Number(id)),
  body: 500,
  levy: 0,
  currency: "RUB",
  stage: "chargeback",
  status: "pending",
  version: 1,
  ...overrides
})

export const CARD = "4242424242424242"

/** An onboarded merchant's new invoice of `amount` RUB. */
export const invoice = (amount = 1000) =>
  Effect.gen(function*() {
    const m = yield* Fixtures.merchant()
    const invoices = yield* InvoiceService.InvoiceService
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* invoices.create(m.partyID, {
      shopID: m.shopID,
      dueDate: new Date(now + 86_400_000),
      amount,
      currency: "RUB",
      product: "Tea",
      metadata: { n: 1 }
    }).pipe(Effect.orDie)
    return { merchant: m, invoice }
  })

/** A pending card payment of a new invoice (its processing is the services' business, not the storage's). */
export const payment = Effect.gen(function*() {
  const { invoice: inv, merchant } = yield* invoice()
  const resources = yield* PaymentResources.PaymentResources
  const payments = yield* PaymentService.PaymentService
  const resource = yield* resources.create(merchant.partyID, {
    paymentTool: { paymentToolType: "CardData", cardNumber: CARD, expDate: "12/40", cvv: "123" },
    clientInfo: { fingerprint: "storage-contract" }
  }).pipe(Effect.orDie)
  const started = yield* payments.create(merchant.partyID, inv.id, {
    flow: { type: "PaymentFlowHold", onHoldExpiration: "cancel" },
    payer: Fixtures.resourcePayer(resource),
    makeRecurrent: false
  }).pipe(Effect.orDie)
  return { merchant, invoice: inv, paymentID: started.id }
})

/**
 * Gives `partyID` a webhook: the SQL event log writes outbox rows only for a party that has one.
 */
export const subscribed = (partyID: string) =>
  Effect.flatMap(WebhookRepository, (webhooks) => {
    const id = fresh("w")
    return Effect.as(webhooks.insertWithin({
      id,
      partyID,
      active: true,
      scope: { topic: "InvoicesTopic", shopID: "shop-1", eventTypes: ["InvoiceCreated"] },
      url: "https://hooks.kassa.test/outbox",
      publicKey: "",
      createdAt: new Date(0)
    }, undefined), id)
  })

/** Gives `partyID` a wallet webhook (and no other): the SQL event log writes outbox rows for it too. */
export const walletSubscribed = (partyID: string) =>
  Effect.flatMap(WalletWebhookRepository, (webhooks) => {
    const id = fresh("ww")
    return Effect.as(webhooks.insert({
      id,
      partyID,
      identityID: fresh("i"),
      scope: { topic: "DestinationsTopic", eventTypes: ["DestinationCreated"] },
      url: "https://hooks.kassa.test/outbox",
      createdAt: new Date(0)
    }), id)
  })

/** Appends `event` and answers it as stored (the aggregate's last event, read back). */
export const appended = (event: { readonly aggregateType: string; readonly aggregateID: string; readonly partyID: string; readonly changes: ReadonlyArray<unknown> }) =>
  Effect.flatMap(EventLog, (log) =>
    Effect.zipRight(
      log.append(event),
      Effect.map(
        log.list({ aggregateType: event.aggregateType, aggregateID: event.aggregateID, after: 0, limit: 1000 }),
        (events) => events.at(-1)!
      )
    ))

/** A stored payment, copied under a fresh invoice id (the services' own may change meanwhile), as payment "1". */
export const storedPayment = Effect.gen(function*() {
  const { invoice, paymentID } = yield* payment
  const found = yield* Effect.flatMap(PaymentRepository, (r) => r.findById(invoice.id, paymentID))
  return { ...Option.getOrThrow(found), invoiceID: fresh("inv"), id: "1", interactionID: undefined }
})
