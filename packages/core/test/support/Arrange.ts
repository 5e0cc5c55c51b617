/**
 * What the service tests start from, made through the services themselves: a merchant, an
 * invoice, a card's payment resource, a payment (the acquirer scripted for it first). Inputs are given in the wire's shape and
 * decoded by the interface's schemas, defaults and all.
 */
import { InvoiceService } from "@kassa/core/invoice/InvoiceService"
import { InvoiceParams } from "@kassa/core/invoice/Invoice"
import { ChargebackService } from "@kassa/core/chargeback/ChargebackService"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import { Onboarding } from "@kassa/core/onboarding/Onboarding"
import { PaymentParams } from "@kassa/core/payment/Payment"
import { PaymentResourceParams } from "@kassa/core/payment/PaymentTool"
import { PaymentService } from "@kassa/core/payment/PaymentService"
import { PaymentResources } from "@kassa/core/tokenization/PaymentResources"
import { Ledger } from "@kassa/core/ports/Ledger"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { settle } from "./MemoryKassa.js"

export const VISA = "4242424242424242"

/** A party on the test institution with two RUB shops. */
export const merchantNamed = (name: string) =>
  Effect.flatMap(Onboarding, (onboarding) =>
    onboarding.onboard({
      email: `${name}@kassa.test`,
      paymentInstitutionID: 1,
      shops: [
        { name: "Shop 1", url: "https://shop1.kassa.test", categoryID: 1, currency: "RUB" },
        { name: "Shop 2", url: "https://shop2.kassa.test", categoryID: 1, currency: "RUB" }
      ]
    })).pipe(Effect.orDie)

export const merchant = merchantNamed("merchant")

export type Merchant = Effect.Effect.Success<typeof merchant>

const decodeInvoice = Schema.decodeUnknownSync(InvoiceParams)
const decodePayment = Schema.decodeUnknownSync(PaymentParams)
const decodeResource = Schema.decodeUnknownSync(PaymentResourceParams)

/** An invoice of `amount` RUB due a day from now (unless `dueInMs`), on the merchant's first shop. */
export const invoice = (m: Merchant, amount: number, options: { readonly dueInMs?: number; readonly shopID?: string } = {}) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const created = yield* (yield* InvoiceService).create(m.partyID, decodeInvoice({
      shopID: options.shopID ?? m.shopID,
      dueDate: new Date(now + (options.dueInMs ?? 86_400_000)).toISOString(),
      amount,
      currency: "RUB",
      product: "Goods",
      metadata: {}
    }))
    return created.invoice
  })

/** A card's payment resource of the party (a CVV with it). */
export const card = (partyID: string, cardNumber = VISA, cvv = "123") =>
  Effect.flatMap(PaymentResources, (resources) =>
    resources.create(partyID, decodeResource({
      paymentTool: { paymentToolType: "CardData", cardNumber, expDate: "12/30", cvv },
      clientInfo: { fingerprint: "test-device" }
    })))

/** What `startPayment` takes: the wire's body, any part of it. */
export type PaymentInput = Partial<typeof PaymentParams.Encoded>

/** A payment resource payer for a fresh card of the party. */
export const cardPayer = (partyID: string) =>
  Effect.map(card(partyID), (r): typeof PaymentParams.Encoded["payer"] => ({
    payerType: "PaymentResourcePayer",
    paymentToolToken: r.paymentToolToken,
    paymentSession: r.paymentSession,
    contactInfo: { email: "payer@kassa.test" }
  }))

/** Starts a payment on the invoice; `params` in the wire's shape (`payer` a fresh card unless given). */
export const startPayment = (m: Merchant, invoiceID: string, params: PaymentInput = {}) =>
  Effect.gen(function*() {
    const payer = params.payer ?? (yield* cardPayer(m.partyID))
    return yield* (yield* PaymentService).create(
      m.partyID,
      invoiceID,
      decodePayment({ flow: { type: "PaymentFlowInstant" }, ...params, payer })
    )
  })

type StepsOf<F> = F extends (...steps: ReadonlyArray<infer S>) => unknown ? ReadonlyArray<S> : never

/** Steps for the scripted acquirer's methods, as `ScriptedAcquirer.script` takes them. */
export type Script = {
  readonly [M in Scripted.Method]?: StepsOf<Scripted.ScriptedAcquirer["Type"]["script"][M]>
}

/**
 * A new merchant's invoice of `amount` with a payment started on it (`params` as `startPayment`
 * takes them), the acquirer scripted first (`script`). What runs in the background is left to the
 * test (`settle`, `elapse`).
 */
export const startedPayment = (amount: number, options: { readonly script?: Script; readonly params?: PaymentInput } = {}) =>
  Effect.gen(function*() {
    const m = yield* merchant
    const acquirer = yield* Scripted.ScriptedAcquirer
    for (const [method, steps] of Object.entries(options.script ?? {})) {
      // each method's steps were typed by `Script`; the loop sees their union
      yield* (acquirer.script[method as Scripted.Method] as (...steps: ReadonlyArray<unknown>) => Effect.Effect<void>)(...steps)
    }
    const inv = yield* invoice(m, amount)
    const started = yield* startPayment(m, inv.id, options.params)
    return { m, inv, started }
  })

/** An invoice of `amount` paid by card, its payment captured. */
export const paidInvoice = (m: Merchant, amount: number, params: PaymentInput = {}) =>
  Effect.gen(function*() {
    const inv = yield* invoice(m, amount)
    const started = yield* startPayment(m, inv.id, params)
    yield* settle
    const payment = yield* (yield* PaymentService).get(m.partyID, inv.id, started.id)
    return { invoice: inv, payment }
  })

/** What the shop's settlement account holds (`own`), 0 before its first posting. */
export const shopBalance = (partyID: string, shopID: string) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const account = yield* ledger.account({ kind: "settlement", partyID, shopID, currency: "RUB" })
    return Option.match(yield* ledger.balance(account), { onNone: () => 0, onSome: (b) => b.own })
  })

/**
 * The sum of what the provider, the platform and the merchant's shops hold in RUB: double entry
 * keeps it at 0 whatever the payments, refunds and chargebacks did.
 */
export const ledgerTotal = (m: Merchant) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const keys = [
      { kind: "provider" as const, currency: "RUB" },
      { kind: "system" as const, currency: "RUB" },
      ...m.shopIDs.map((shopID) => ({ kind: "settlement" as const, partyID: m.partyID, shopID, currency: "RUB" }))
    ]
    let total = 0
    for (const key of keys) {
      const balance = yield* ledger.balance(yield* ledger.account(key))
      total += Option.match(balance, { onNone: () => 0, onSome: (b) => b.own })
    }
    return total
  })

/** The change types of the invoice's events, in order. */
export const changeTypes = (partyID: string, invoiceID: string) =>
  Effect.map(
    Effect.flatMap(InvoiceService, (invoices) => invoices.events(partyID, invoiceID, 1000, undefined)),
    (events) => events.flatMap((e) => e.changes.map((c) => c.changeType))
  )

/** Opens a chargeback of `body` on the payment (the operator). */
export const chargeback = (invoiceID: string, paymentID: string, body: number, levy = 0) =>
  Effect.flatMap(ChargebackService, (chargebacks) => chargebacks.open(invoiceID, paymentID, { body, levy, currency: "RUB" }))
