/**
 * fast-check arbitraries for the interface's inputs, valid by construction: every value is in the
 * wire's JSON shape (the schemas' encoded side) and the contract's decoder accepts it. Amounts and
 * currencies follow the demo's terms (the test payment institution: RUB, USD, EUR, KZT, BYN, each
 * from 1 up to, not including, 1 000 000 000 minor units).
 *
 * @since 0.1.0
 */
import type * as Allocation from "@kassa/core/allocation/Allocation"
import * as Cart from "@kassa/core/cart/Cart"
import type * as Invoice from "@kassa/core/invoice/Invoice"
import type * as InvoiceTemplate from "@kassa/core/invoice-template/InvoiceTemplate"
import * as Payment from "@kassa/core/payment/Payment"
import type * as PaymentTool from "@kassa/core/payment/PaymentTool"
import * as TestAcquirer from "@kassa/adapters/TestAcquirer"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"

/** The currencies the demo's test payment institution serves. @since 0.1.0 */
export const demoCurrencies = ["RUB", "USD", "EUR", "KZT", "BYN"] as const

/** The demo's cash limit for every currency, minor units: `min` inclusive, `max` exclusive. @since 0.1.0 */
export const demoCashLimit = { min: 1, max: 1_000_000_000 } as const

/** A currency of the demo's terms. @since 0.1.0 @category arbitraries */
export const currency: FastCheck.Arbitrary<string> = FastCheck.constantFrom(...demoCurrencies)

/** An amount within the demo's cash limit. @since 0.1.0 @category arbitraries */
export const amount: FastCheck.Arbitrary<number> = FastCheck.integer({
  min: demoCashLimit.min,
  max: demoCashLimit.max - 1
})

/** An identifier as the interface takes them (`shopID`, `externalID`, …). @since 0.1.0 @category arbitraries */
export const identifier: FastCheck.Arbitrary<string> = FastCheck.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)

/** A small `metadata` object (strings, integers, booleans; no NUL). @since 0.1.0 @category arbitraries */
export const metadata: FastCheck.Arbitrary<Record<string, unknown>> = FastCheck.dictionary(
  FastCheck.string({ maxLength: 20 }),
  FastCheck.oneof(FastCheck.string({ maxLength: 40 }), FastCheck.integer(), FastCheck.boolean()),
  { maxKeys: 4 }
)

/**
 * `parts` positive integers (between `min` and `max` of them) whose sum is `total`.
 *
 * @since 0.1.0 @category arbitraries
 */
export const split = (
  total: number,
  parts: { readonly min: number; readonly max: number }
): FastCheck.Arbitrary<ReadonlyArray<number>> => {
  const most = Math.min(parts.max, total)
  return FastCheck.integer({ min: Math.min(parts.min, most), max: most }).chain((count) =>
    count === 1 ? FastCheck.constant([total]) : FastCheck.uniqueArray(FastCheck.integer({ min: 1, max: total - 1 }), {
      minLength: count - 1,
      maxLength: count - 1
    }).map((cuts) => {
      const bounds = [0, ...[...cuts].sort((a, b) => a - b), total]
      return bounds.slice(1).map((bound, i) => bound - bounds[i]!)
    })
  )
}

/** A cart line as the merchant sends it. @since 0.1.0 @category models */
export type CartLine = typeof Cart.InvoiceLineParams.Encoded

const lineOf = (cost: number): FastCheck.Arbitrary<CartLine> =>
  FastCheck.record({
    product: FastCheck.string({ minLength: 1, maxLength: 100 }),
    quantity: FastCheck.integer({ min: 1, max: 5 }),
    taxMode: FastCheck.option(Arbitrary.make(Cart.TaxMode), { nil: undefined })
  }).map(({ product, quantity, taxMode }) => ({
    product,
    // a quantity that does not divide the cost leaves the line at the default quantity of 1
    ...(cost % quantity === 0 && quantity > 1 ? { quantity, price: cost / quantity } : { price: cost }),
    ...(taxMode === undefined ? {} : { taxMode })
  }))

/**
 * A cart of 1 to 10 lines whose costs (`price` × `quantity`) add up to `total`.
 *
 * @since 0.1.0 @category arbitraries
 */
export const cartOf = (total: number): FastCheck.Arbitrary<ReadonlyArray<CartLine>> =>
  split(total, { min: 1, max: 10 }).chain((costs) => FastCheck.tuple(...costs.map(lineOf)))

/** An amount of the demo's terms and a cart adding up to it. @since 0.1.0 @category arbitraries */
export const cart: FastCheck.Arbitrary<{ readonly amount: number; readonly cart: ReadonlyArray<CartLine> }> = amount
  .chain((total) => cartOf(total).map((lines) => ({ amount: total, cart: lines })))

/** A transaction of an allocation as the merchant sends it. @since 0.1.0 @category models */
export type AllocationTransaction = typeof Allocation.AllocationTransactionParams.Encoded

const transactionOf = (shopID: string, gross: number, currency: string): FastCheck.Arbitrary<AllocationTransaction> => {
  const target = { allocationTargetType: "AllocationTargetShop", shopID } as const
  const withCart = FastCheck.option(cartOf(gross), { nil: undefined, freq: 3 }).map((lines) =>
    lines === undefined ? {} : { cart: lines }
  )
  const byAmount = withCart.map((extra) => ({
    target,
    allocationBodyType: "AllocationBodyAmount" as const,
    amount: gross,
    currency,
    ...extra
  }))
  const fee = FastCheck.oneof(
    FastCheck.integer({ min: 1, max: gross }).map((fee) => ({ allocationFeeType: "AllocationFeeFixed" as const, amount: fee })),
    // m × 10^-2 with m ≤ 100: a share between 0 and 1
    FastCheck.integer({ min: 0, max: 100 }).map((m) => ({ allocationFeeType: "AllocationFeeShare" as const, share: { m, exp: -2 } }))
  )
  const byTotal = FastCheck.tuple(withCart, fee).map(([extra, fee]) => ({
    target,
    allocationBodyType: "AllocationBodyTotal" as const,
    total: gross,
    currency,
    fee,
    ...extra
  }))
  return FastCheck.oneof(byAmount, byTotal)
}

/**
 * An allocation of at most `amount` in `currency` to distinct shops among `shopIDs` (at most 5
 * transactions), as `Allocation.make` accepts it for an invoice or payment of that amount.
 *
 * @since 0.1.0 @category arbitraries
 */
export const allocationOf = (options: {
  readonly amount: number
  readonly currency: string
  readonly shopIDs: ReadonlyArray<string>
}): FastCheck.Arbitrary<ReadonlyArray<AllocationTransaction>> => {
  const most = Math.min(options.shopIDs.length, options.amount, 5)
  return FastCheck.integer({ min: 1, max: most }).chain((count) =>
    FastCheck.tuple(
      FastCheck.shuffledSubarray([...options.shopIDs], { minLength: count, maxLength: count }),
      FastCheck.integer({ min: count, max: options.amount }).chain((allocated) =>
        split(allocated, { min: count, max: count })
      )
    ).chain(([shops, grosses]) =>
      FastCheck.tuple(...shops.map((shop, i) => transactionOf(shop, grosses[i]!, options.currency)))
    )
  )
}

const dueDateAfter = (now: Date): FastCheck.Arbitrary<string> =>
  FastCheck.integer({ min: 60, max: 30 * 24 * 3600 }).map((seconds) => new Date(now.getTime() + seconds * 1000).toISOString())

const optional = <A>(arbitrary: FastCheck.Arbitrary<A>) => FastCheck.option(arbitrary, { nil: undefined })

/** `A` with its possibly undefined fields made optional, as the wire's encoded types write them. */
type Defined<A> =
  & { readonly [K in keyof A as undefined extends A[K] ? never : K]: A[K] }
  & { readonly [K in keyof A as undefined extends A[K] ? K : never]?: Exclude<A[K], undefined> }

const withoutUndefined = <A extends object>(a: A): Defined<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Defined<A>

/** createInvoice's body. @since 0.1.0 @category models */
export type InvoiceParams = Omit<typeof Invoice.InvoiceParams.Encoded, "amount" | "cart"> & {
  readonly amount: number
  readonly cart?: ReadonlyArray<CartLine>
}

/** Where an invoice or template goes: the shop and, when given, its currency (a shop takes only its own). @since 0.1.0 @category models */
export interface ShopOptions {
  readonly shopID: string
  readonly currency?: string | undefined
}

const currencyOf = (options: ShopOptions) =>
  options.currency === undefined ? currency : FastCheck.constant(options.currency)

/**
 * createInvoice's body for `shopID`: an amount of the demo's terms in the shop's currency (any
 * of the terms' when not given), sometimes with a cart adding up to the amount, a due date from
 * one minute to 30 days after `now`.
 *
 * @since 0.1.0 @category arbitraries
 */
export const invoiceParams = (options: ShopOptions & { readonly now: Date }): FastCheck.Arbitrary<InvoiceParams> =>
  FastCheck.record({
    amount,
    currency: currencyOf(options),
    dueDate: dueDateAfter(options.now),
    product: FastCheck.string({ maxLength: 100 }),
    description: optional(FastCheck.string({ maxLength: 1000 })),
    externalID: optional(identifier),
    metadata,
    withCart: FastCheck.boolean()
  }).chain(({ withCart, ...params }) =>
    (withCart ? cartOf(params.amount) : FastCheck.constant(undefined)).map((lines) =>
      withoutUndefined({ ...params, shopID: options.shopID, cart: lines })
    )
  )

/** createInvoiceTemplate's body. @since 0.1.0 @category models */
export type InvoiceTemplateParams = typeof InvoiceTemplate.CreateParams.Encoded

const lineCost = (currency: FastCheck.Arbitrary<string>) => FastCheck.oneof(
  FastCheck.constant({ costType: "InvoiceTemplateLineCostUnlim" as const }),
  FastCheck.record({ currency, amount }).map((c) => ({ costType: "InvoiceTemplateLineCostFixed" as const, ...c })),
  FastCheck.tuple(currency, amount, amount).map(([currency, a, b]) => ({
    costType: "InvoiceTemplateLineCostRange" as const,
    currency,
    range: { lowerBound: Math.min(a, b), upperBound: Math.max(a, b) }
  }))
)

const templateDetails = (currency: FastCheck.Arbitrary<string>) => FastCheck.oneof(
  FastCheck.record({
    product: FastCheck.string({ minLength: 1, maxLength: 100 }),
    price: lineCost(currency),
    taxMode: optional(Arbitrary.make(Cart.TaxMode))
  }).map((line) => withoutUndefined({ templateType: "InvoiceTemplateSingleLine" as const, ...line })),
  FastCheck.tuple(cart, currency).map(([c, currency]) => ({
    templateType: "InvoiceTemplateMultiLine" as const,
    cart: c.cart,
    currency
  }))
)

/**
 * createInvoiceTemplate's body for `shopID` in the newer revision: a lifetime of 1 to 90 days
 * (plus up to a year) and, in the shop's currency when given, single-line (unlimited, fixed or range cost) or multi-line details.
 *
 * @since 0.1.0 @category arbitraries
 */
export const invoiceTemplateParams = (options: ShopOptions): FastCheck.Arbitrary<InvoiceTemplateParams> =>
  FastCheck.record({
    externalID: optional(identifier),
    name: optional(FastCheck.string({ maxLength: 100 })),
    description: optional(FastCheck.string({ maxLength: 1000 })),
    lifetime: FastCheck.record({
      days: FastCheck.integer({ min: 1, max: 90 }),
      months: FastCheck.integer({ min: 0, max: 11 }),
      years: FastCheck.integer({ min: 0, max: 1 })
    }),
    details: templateDetails(currencyOf(options)),
    metadata: optional(metadata)
  }).map((params) => withoutUndefined({ ...params, shopID: options.shopID }))

/** The kinds of payer a payment names. @since 0.1.0 */
export const payerKinds = ["PaymentResourcePayer", "CustomerPayer", "RecurrentPayer"] as const

/** A payer kind. @since 0.1.0 @category arbitraries */
export const payerKind: FastCheck.Arbitrary<typeof payerKinds[number]> = FastCheck.constantFrom(...payerKinds)

/** The payer's contact info. @since 0.1.0 @category arbitraries */
export const contactInfo: FastCheck.Arbitrary<typeof Payment.ContactInfo.Encoded> = FastCheck.record({
  email: optional(FastCheck.stringMatching(/^[a-z0-9._-]{1,30}@example\.com$/)),
  firstName: optional(FastCheck.string({ maxLength: 100 })),
  lastName: optional(FastCheck.string({ maxLength: 100 }))
}).map(withoutUndefined)

/** What a payer of each kind refers to; kinds without their reference are not generated. @since 0.1.0 @category models */
export interface PayerRefs {
  readonly paymentResource?: { readonly paymentToolToken: string; readonly paymentSession: string } | undefined
  readonly customerID?: string | undefined
  readonly recurrentParent?: { readonly invoiceID: string; readonly paymentID: string } | undefined
}

/** The payer of a payment. @since 0.1.0 @category models */
export type PayerParams = typeof Payment.PayerParams.Encoded

/**
 * A payer of one of the kinds `refs` makes possible (a payment resource, a customer, a recurrent
 * parent payment).
 *
 * @since 0.1.0 @category arbitraries
 */
export const payer = (refs: PayerRefs): FastCheck.Arbitrary<PayerParams> => {
  const kinds: Array<FastCheck.Arbitrary<PayerParams>> = []
  const { customerID, paymentResource, recurrentParent } = refs
  if (paymentResource !== undefined) {
    kinds.push(contactInfo.map((contact) => ({ payerType: "PaymentResourcePayer" as const, ...paymentResource, contactInfo: contact })))
  }
  if (customerID !== undefined) kinds.push(FastCheck.constant({ payerType: "CustomerPayer" as const, customerID }))
  if (recurrentParent !== undefined) {
    kinds.push(contactInfo.map((contact) => ({
      payerType: "RecurrentPayer" as const,
      contactInfo: contact,
      recurrentParentPayment: recurrentParent
    })))
  }
  if (kinds.length === 0) throw new Error("Arbitraries.payer: refs name no payer")
  return FastCheck.oneof(...kinds)
}

/** createPayment's body. @since 0.1.0 @category models */
export type PaymentParams = typeof Payment.PaymentParams.Encoded

/** A flow: instant or hold (cancelled or captured when the hold expires). @since 0.1.0 @category arbitraries */
export const flow: FastCheck.Arbitrary<typeof Payment.FlowParams.Encoded> = Arbitrary.make(Payment.FlowParams)

/** createPayment's body with a payer from `refs`. @since 0.1.0 @category arbitraries */
export const paymentParams = (refs: PayerRefs): FastCheck.Arbitrary<PaymentParams> =>
  FastCheck.record({
    externalID: optional(identifier),
    flow,
    payer: payer(refs),
    makeRecurrent: optional(FastCheck.boolean()),
    metadata: optional(metadata)
  }).map(withoutUndefined)

/** A card of the test acquirer's table with what it answers (`outcome`). @since 0.1.0 @category arbitraries */
export const testCard: FastCheck.Arbitrary<TestAcquirer.TestCard> = FastCheck.constantFrom(...TestAcquirer.cards)

/** A card of the table whose outcome has `tag`. @since 0.1.0 @category arbitraries */
export const testCardWith = (tag: TestAcquirer.CardOutcome["_tag"]): FastCheck.Arbitrary<TestAcquirer.TestCard> =>
  FastCheck.constantFrom(...TestAcquirer.cards.filter((card) => card.outcome._tag === tag))

/** A card to tokenize and the table's entry for it. @since 0.1.0 @category models */
export interface CardData {
  readonly card: TestAcquirer.TestCard
  readonly paymentTool: typeof PaymentTool.CardData.Encoded
}

/**
 * A test card as createPaymentResource's `paymentTool`: an expiry date one to five years after
 * `now`, a CVV, sometimes a holder.
 *
 * @since 0.1.0 @category arbitraries
 */
export const cardData = (options: { readonly now: Date }): FastCheck.Arbitrary<CardData> =>
  FastCheck.record({
    card: testCard,
    month: FastCheck.integer({ min: 1, max: 12 }),
    years: FastCheck.integer({ min: 1, max: 5 }),
    cvv: FastCheck.stringMatching(/^\d{3}$/),
    cardHolder: optional(FastCheck.stringMatching(/^[A-Z]{1,20} [A-Z]{1,20}$/))
  }).map(({ card, cardHolder, cvv, month, years }) => ({
    card,
    paymentTool: withoutUndefined({
      paymentToolType: "CardData" as const,
      cardNumber: card.cardNumber,
      expDate: `${String(month).padStart(2, "0")}/${options.now.getUTCFullYear() + years}`,
      cvv,
      cardHolder
    })
  }))
