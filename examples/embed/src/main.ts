/**
 * Kassa embedded in a plain Node program, no HTTP: `Kassa.layer` on SQLite (or PostgreSQL when
 * `KASSA_DATABASE_URL` names one) with an acquirer of this program's own. It onboards a merchant
 * (a party with a contract and a shop), then pays one invoice under the acquirer's limit and
 * tries one over it, and prints one JSON line per outcome.
 *
 *   npm run build && KASSA_DATA_DIR=/tmp/kassa-embed npm start
 */
import { Database, Kassa } from "@kassa/adapters"
import { Invoice, InvoiceService, Onboarding, Payment, PaymentError, PaymentResources, PaymentService, PaymentTool } from "@kassa/core"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as LimitAcquirer from "./LimitAcquirer.js"

const LIMIT = 50_000
const calls: Array<string> = []
const print = (line: object) => console.log(JSON.stringify(line))

// The services take what the wire's JSON decodes to: decoding with core's schemas turns
// `dueDate` strings into dates and rejects bad input as a ParseError.
const decode = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknown(schema)

const finalStatuses: ReadonlyArray<Payment.PaymentStatus> = ["captured", "cancelled", "failed", "refunded"]

/** The payment once the acquirer has answered: Kassa processes it in the background. */
const settled = (partyID: string, invoiceID: string, paymentID: string) =>
  Effect.gen(function*() {
    const payments = yield* PaymentService.PaymentService
    for (;;) {
      const payment = yield* payments.get(partyID, invoiceID, paymentID)
      if (finalStatuses.includes(payment.status)) return payment
      yield* Effect.sleep("50 millis")
    }
  }).pipe(Effect.timeout("30 seconds"))

/** An invoice for `amount`, a card token for it, a payment, and what became of them. */
const order = (partyID: string, shopID: string, amount: number) =>
  Effect.gen(function*() {
    const invoices = yield* InvoiceService.InvoiceService
    const resources = yield* PaymentResources.PaymentResources
    const payments = yield* PaymentService.PaymentService
    const tomorrow = new Date((yield* Clock.currentTimeMillis) + 86_400_000).toISOString()
    const { invoice } = yield* invoices.create(
      partyID,
      yield* decode(Invoice.InvoiceParams)({ shopID, amount, currency: "RUB", product: "Tea, 1 kg", dueDate: tomorrow, metadata: {} })
    )
    const resource = yield* resources.create(
      partyID,
      yield* decode(PaymentTool.PaymentResourceParams)({
        paymentTool: { paymentToolType: "CardData", cardNumber: "4242424242424242", expDate: "12/30", cvv: "123" },
        clientInfo: { fingerprint: "embed-example" }
      })
    )
    const created = yield* payments.create(
      partyID,
      invoice.id,
      yield* decode(Payment.PaymentParams)({
        flow: { type: "PaymentFlowInstant" },
        payer: {
          payerType: "PaymentResourcePayer",
          paymentToolToken: resource.paymentToolToken,
          paymentSession: resource.paymentSession,
          contactInfo: {}
        }
      })
    )
    const payment = yield* settled(partyID, invoice.id, created.id)
    return {
      amount,
      payment: payment.status,
      ...(payment.error === undefined ? {} : { error: PaymentError.path(payment.error).join(" > ") }),
      invoice: (yield* invoices.get(partyID, invoice.id)).status
    }
  })

const program = Effect.gen(function*() {
  const onboarding = yield* Onboarding.Onboarding
  const merchant = yield* onboarding.onboard(
    yield* decode(Onboarding.OnboardingParams)({
      email: "tea@shop.example",
      name: "Tea shop",
      paymentInstitutionID: 1,
      shops: [{ name: "Tea shop", url: "https://tea.shop.example", categoryID: 1, currency: "RUB" }]
    })
  )
  print(yield* order(merchant.partyID, merchant.shopID, 10_000))
  print(yield* order(merchant.partyID, merchant.shopID, 90_000))
  print({ acquirer: calls })
})

const main = Effect.gen(function*() {
  const dataDir = yield* Config.string("KASSA_DATA_DIR").pipe(Config.withDefault(".kassa-embed"))
  const url = yield* Config.option(Config.string("KASSA_DATABASE_URL"))
  const database = yield* Database.fromUrl(Option.getOrUndefined(url), dataDir)
  const kassa = Kassa.layer({ database, dataDir, acquirer: LimitAcquirer.layer(LIMIT, (call) => calls.push(call)) })
  yield* Effect.provide(program, kassa)
})

Effect.runPromise(main)
