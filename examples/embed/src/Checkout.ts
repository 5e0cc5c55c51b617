/**
 * Kassa inside this service, everything an embedder copies: `Kassa.layer` on the service's
 * database with the service's own acquirer, the HTTP API's operations called in-process as the
 * shop's party (`InProcess`, JSON in and out, no socket), and the calls a checkout makes:
 * invoice → card token → payment, refund, webhook subscription. Each answers an `Either`: the
 * typed error on the left (`BusinessError` with the interface's `code`, `NotFound`, …).
 */
import { Database, Kassa } from "@kassa/adapters"
import { InProcess } from "@kassa/http"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as LimitAcquirer from "./LimitAcquirer.js"

const PARTY = "tea-shop"
const SHOP = "tea-shop-online"

export interface Options {
  readonly databaseUrl?: string | undefined
  readonly dataDir: string
  /** Whether webhooks may go to loopback and private networks: development only, as Kassa's `KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS`. */
  readonly allowPrivateNetworks: boolean
  readonly record: (call: string) => void
}

export const open = async (options: Options) => {
  const kassa = ManagedRuntime.make(InProcess.layer(Kassa.layer({
    database: Either.getOrThrow(Database.fromUrl(options.databaseUrl, options.dataDir)),
    dataDir: options.dataDir,
    acquirer: LimitAcquirer.layer(50_000, options.record),
    webhooks: { allowPrivateNetworks: options.allowPrivateNetworks }
  })))
  const run = <A, E>(effect: Effect.Effect<A, E>) => kassa.runPromise(Effect.either(effect))
  const { asOperator, asParty } = await kassa.runPromise(InProcess.InProcess)
  const onboard = asOperator.Admin.onboardParty({
    payload: { partyID: PARTY, email: "tea@shop.example", paymentInstitutionID: 1, shops: [{ id: SHOP, name: "Tea shop", url: "https://tea.shop.example", categoryID: 1, currency: "RUB" }] }
  })
  const api = await kassa.runPromise(Effect.orElse(asParty(PARTY), () => Effect.zipRight(onboard, asParty(PARTY))))

  /** An invoice and its payment. The payer's browser would tokenize the card; a test card stands in. */
  const order = (amount: number, product: string) =>
    run(Effect.gen(function*() {
      const dueDate = new Date(Date.now() + 86_400_000).toISOString()
      const { invoice } = yield* api.Invoices.createInvoice({ payload: { shopID: SHOP, amount, currency: "RUB", product, dueDate, metadata: {} } })
      const card = yield* api.Tokens.createPaymentResource({
        payload: { paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/30", cvv: "123" }, clientInfo: { fingerprint: "checkout" } }
      })
      const payer = { payerType: "PaymentResourcePayer", paymentToolToken: card.paymentToolToken, paymentSession: card.paymentSession, contactInfo: {} } as const
      const payment = yield* api.Payments.createPayment({ path: { invoiceID: invoice.id }, payload: { flow: { type: "PaymentFlowInstant" }, payer, makeRecurrent: false } })
      return { orderID: invoice.id, paymentID: payment.id, status: payment.status }
    }))

  /** A refund of the order's payment (its first). */
  const refund = (orderID: string, amount: number) =>
    run(Effect.gen(function*() {
      const [payment] = yield* api.Payments.getPayments({ path: { invoiceID: orderID } })
      if (payment === undefined) return yield* Effect.fail({ _tag: "NotFound", message: `order ${orderID} has no payment` } as const)
      return yield* api.Refunds.createRefund({ path: { invoiceID: orderID, paymentID: payment.id }, payload: { amount } })
    }))

  /** The shop's one webhook, to `url`; the answer's `publicKey` verifies what arrives. */
  const subscribe = (url: string) =>
    run(Effect.gen(function*() {
      for (const old of yield* api.Webhooks.getWebhooks()) yield* api.Webhooks.deleteWebhookByID({ path: { webhookID: old.id } })
      const eventTypes = ["InvoiceCreated", "InvoicePaid", "PaymentStarted", "PaymentProcessed", "PaymentCaptured", "PaymentFailed", "PaymentRefundCreated", "PaymentRefundSucceeded", "PaymentRefundFailed"] as const
      return yield* api.Webhooks.createWebhook({ payload: { scope: { topic: "InvoicesTopic", shopID: SHOP, eventTypes }, url } })
    }))

  // Closing drains Kassa's background work (payments in flight, webhook deliveries) first.
  return { order, refund, subscribe, close: () => kassa.dispose() }
}
