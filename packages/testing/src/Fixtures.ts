/**
 * Fixtures: onboarded parties with shops and keys, made through the domain's own services.
 *
 * @since 0.1.0
 */
import { ApiKeyService, Onboarding } from "@kassa/core"
import * as Invoice from "@kassa/core/invoice/Invoice"
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import * as Payment from "@kassa/core/payment/Payment"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import * as PaymentTool from "@kassa/core/payment/PaymentTool"
import { PaymentResources } from "@kassa/core/tokenization/PaymentResources"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

let counter = 0

/** @since 0.1.0 @category models */
export interface Merchant {
  readonly partyID: string
  readonly shopID: string
  readonly shopIDs: ReadonlyArray<string>
  readonly contractID: string
  readonly apiKey: string
}

/**
 * A party with a contract on the test payment institution and two RUB shops of a test
 * category.
 *
 * @since 0.1.0
 */
export const merchant = (overrides: Partial<Onboarding.OnboardingParams> = {}) =>
  Effect.gen(function*() {
    const onboarding = yield* Onboarding.Onboarding
    const n = ++counter
    const result = yield* onboarding.onboard({
      email: `merchant${n}@kassa.test`,
      name: `Merchant ${n}`,
      paymentInstitutionID: 1,
      shops: [
        { name: `Shop ${n}-1`, url: `https://shop${n}.kassa.test`, categoryID: 1, currency: "RUB" },
        { name: `Shop ${n}-2`, url: `https://shop${n}-2.kassa.test`, categoryID: 1, currency: "RUB" }
      ],
      ...overrides
    })
    return result satisfies Merchant
  }).pipe(Effect.orDie)

/** An operator token. @since 0.1.0 */
export const operatorToken = Effect.flatMap(ApiKeyService.ApiKeyService, (keys) => keys.issueOperator()).pipe(
  Effect.map((k) => k.token)
)

/**
 * A payer paying with a payment resource (a card token and its session), as a payment's
 * parameters name it.
 *
 * @since 0.1.0
 */
export const resourcePayer = (resource: { readonly paymentToolToken: string; readonly paymentSession: string }) => ({
  payerType: "PaymentResourcePayer" as const,
  paymentToolToken: resource.paymentToolToken,
  paymentSession: resource.paymentSession,
  contactInfo: { email: "payer@kassa.test" }
})

const decodeInvoice = Schema.decodeUnknownSync(Invoice.InvoiceParams)
const decodePayment = Schema.decodeUnknownSync(Payment.PaymentParams)
const decodeResource = Schema.decodeUnknownSync(PaymentTool.PaymentResourceParams)

/**
 * An invoice of `amount` RUB on the merchant's first shop, due a day from now (by Effect's clock)
 * unless `dueInMs` says otherwise.
 *
 * @since 0.1.0
 */
export const invoice = (m: Merchant, amount: number, options: { readonly dueInMs?: number; readonly shopID?: string } = {}) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const { invoice } = yield* (yield* InvoiceService).create(m.partyID, decodeInvoice({
      shopID: options.shopID ?? m.shopID,
      dueDate: new Date(now + (options.dueInMs ?? 86_400_000)).toISOString(),
      amount,
      currency: "RUB",
      product: "Goods",
      metadata: {}
    }))
    return invoice
  })

/**
 * A createInvoice request's body (the wire's form) for `shopID`, due a day after `now`.
 *
 * @since 0.1.0
 */
export const invoiceBody = (shopID: string, now: number, overrides: Record<string, unknown> = {}) => ({
  shopID,
  dueDate: new Date(now + 86_400_000).toISOString(),
  amount: 1000,
  currency: "RUB",
  product: "Tea",
  metadata: {},
  ...overrides
})

/** A payment resource of the party for a card (a test card's number, say). @since 0.1.0 */
export const cardResource = (partyID: string, cardNumber: string) =>
  Effect.flatMap(PaymentResources, (resources) =>
    resources.create(partyID, decodeResource({
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/40", cvv: "123" },
      clientInfo: { fingerprint: "kassa-testing" }
    })))

/**
 * Starts a payment of the invoice; `params` in the wire's shape (createPayment's body), an instant
 * payment by a fresh resource of `cardNumber` unless they name a flow or a payer. The payment
 * runs in the background: `TestKassa.settle` to see where it ends.
 *
 * @since 0.1.0
 */
export const pay = (
  m: Merchant,
  invoiceID: string,
  options: { readonly cardNumber?: string; readonly params?: Partial<typeof Payment.PaymentParams.Encoded> } = {}
) =>
  Effect.gen(function*() {
    const payer = options.params?.payer ??
      resourcePayer(yield* cardResource(m.partyID, options.cardNumber ?? "4242424242424242"))
    return yield* (yield* PaymentService).create(
      m.partyID,
      invoiceID,
      decodePayment({ flow: { type: "PaymentFlowInstant" }, ...options.params, payer })
    )
  })
