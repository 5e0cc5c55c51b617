/**
 * The invoice template: a stored specification merchants create invoices from (payment links,
 * donation buttons). Both revisions of the interface are accepted: the newer `details`
 * (`InvoiceTemplateSingleLine` / `InvoiceTemplateMultiLine`) and the older `product` + `cost`;
 * answers carry both forms.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Cart from "../cart/Cart.js"
import { Identifier } from "../Ids.js"
import { Amount, Currency } from "../Money.js"
import { DateTime, Metadata } from "../Time.js"
import { RandomizeAmount } from "../invoice/RandomizeAmount.js"

const Int32 = Schema.Int.pipe(Schema.between(0, 2147483647))

/** @since 0.1.0 @category schemas */
export const LifetimeInterval = Schema.Struct({ days: Int32, months: Int32, years: Int32 })
/** @since 0.1.0 */
export type LifetimeInterval = typeof LifetimeInterval.Type

/** @since 0.1.0 @category schemas */
export const CostRange = Schema.Struct({ lowerBound: Amount, upperBound: Amount })

/** The newer revision's line cost. @since 0.1.0 @category schemas */
export const LineCost = Schema.Union(
  Schema.Struct({ costType: Schema.Literal("InvoiceTemplateLineCostUnlim") }),
  Schema.Struct({ costType: Schema.Literal("InvoiceTemplateLineCostFixed"), currency: Currency, amount: Amount }),
  Schema.Struct({ costType: Schema.Literal("InvoiceTemplateLineCostRange"), currency: Currency, range: CostRange })
)
/** @since 0.1.0 */
export type LineCost = typeof LineCost.Type

/** The older revision's cost. @since 0.1.0 @category schemas */
export const TemplateCost = Schema.Union(
  Schema.Struct({ invoiceTemplateCostType: Schema.Literal("InvoiceTemplateCostUnlim") }),
  Schema.Struct({ invoiceTemplateCostType: Schema.Literal("InvoiceTemplateCostFixed"), currency: Currency, amount: Amount }),
  Schema.Struct({ invoiceTemplateCostType: Schema.Literal("InvoiceTemplateCostRange"), currency: Currency, range: CostRange })
)
/** @since 0.1.0 */
export type TemplateCost = typeof TemplateCost.Type

/** @since 0.1.0 @category schemas */
export const SingleLine = Schema.Struct({
  templateType: Schema.Literal("InvoiceTemplateSingleLine"),
  product: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  price: LineCost,
  taxMode: Schema.optional(Cart.TaxMode)
})

/** @since 0.1.0 @category schemas */
export const MultiLineParams = Schema.Struct({
  templateType: Schema.Literal("InvoiceTemplateMultiLine"),
  cart: Cart.CartParam,
  currency: Currency
})

/** @since 0.1.0 @category schemas */
export const DetailsParams = Schema.Union(SingleLine, MultiLineParams)
/** @since 0.1.0 */
export type DetailsParams = typeof DetailsParams.Type

/** @since 0.1.0 @category schemas */
export const Details = Schema.Union(
  SingleLine,
  Schema.Struct({
    templateType: Schema.Literal("InvoiceTemplateMultiLine"),
    cart: Schema.Array(Cart.InvoiceLine),
    currency: Schema.String
  })
)
/** @since 0.1.0 */
export type Details = typeof Details.Type

const Name = Schema.String.pipe(Schema.maxLength(100))
const Description = Schema.String.pipe(Schema.maxLength(1000))
const Product = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100))

/**
 * createInvoiceTemplate's body in either revision.
 *
 * @since 0.1.0 @category schemas
 */
export const CreateParams = Schema.Struct({
  shopID: Identifier,
  externalID: Schema.optional(Identifier),
  partyID: Schema.optional(Identifier),
  name: Schema.optional(Name),
  description: Schema.optional(Description),
  lifetime: LifetimeInterval,
  details: Schema.optional(DetailsParams),
  product: Schema.optional(Product),
  cost: Schema.optional(TemplateCost),
  metadata: Schema.optional(Metadata),
  randomizeAmount: Schema.optional(RandomizeAmount)
}).annotations({ identifier: "InvoiceTemplateCreateParams" })
/** @since 0.1.0 */
export type CreateParams = typeof CreateParams.Type

/** updateInvoiceTemplate's body in either revision. @since 0.1.0 @category schemas */
export const UpdateParams = Schema.Struct({
  name: Schema.optional(Name),
  description: Schema.optional(Description),
  lifetime: Schema.optional(LifetimeInterval),
  details: Schema.optional(DetailsParams),
  product: Schema.optional(Product),
  cost: Schema.optional(TemplateCost),
  metadata: Schema.optional(Metadata),
  randomizeAmount: Schema.optional(RandomizeAmount)
}).annotations({ identifier: "InvoiceTemplateUpdateParams" })
/** @since 0.1.0 */
export type UpdateParams = typeof UpdateParams.Type

/** createInvoiceWithTemplate's body. @since 0.1.0 @category schemas */
export const InvoiceParamsWithTemplate = Schema.Struct({
  externalID: Schema.optional(Identifier),
  amount: Schema.optional(Amount),
  currency: Schema.optional(Currency),
  metadata: Schema.optional(Metadata)
}).annotations({ identifier: "InvoiceParamsWithTemplate" })
/** @since 0.1.0 */
export type InvoiceParamsWithTemplate = typeof InvoiceParamsWithTemplate.Type

/**
 * The template as Kassa answers it: the newer revision's fields plus the older revision's
 * `product` and `cost`.
 *
 * @since 0.1.0 @category schemas
 */
export const InvoiceTemplate = Schema.Struct({
  id: Schema.String,
  externalID: Schema.optional(Schema.String),
  shopID: Schema.String,
  name: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  createdAt: DateTime,
  lifetime: LifetimeInterval,
  details: Details,
  metadata: Schema.optional(Metadata),
  randomizeAmount: Schema.optional(RandomizeAmount),
  product: Schema.String,
  cost: TemplateCost
}).annotations({ identifier: "InvoiceTemplate" })
/** @since 0.1.0 */
export type InvoiceTemplate = typeof InvoiceTemplate.Type

/** The template as stored. @since 0.1.0 @category models */
export interface InvoiceTemplateRecord {
  readonly id: string
  readonly partyID: string
  readonly shopID: string
  readonly externalID?: string | undefined
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly createdAt: Date
  readonly lifetime: LifetimeInterval
  readonly details: Details
  readonly metadata?: Metadata | undefined
  readonly randomizeAmount?: RandomizeAmount | undefined
  readonly version: number
}

/** The older revision's cost of a newer line cost. @since 0.1.0 */
export const costOf = (details: Details): TemplateCost => {
  if (details.templateType === "InvoiceTemplateMultiLine") {
    return {
      invoiceTemplateCostType: "InvoiceTemplateCostFixed",
      currency: details.currency,
      amount: details.cart.reduce((a, l) => a + l.cost, 0)
    }
  }
  const p = details.price
  switch (p.costType) {
    case "InvoiceTemplateLineCostUnlim":
      return { invoiceTemplateCostType: "InvoiceTemplateCostUnlim" }
    case "InvoiceTemplateLineCostFixed":
      return { invoiceTemplateCostType: "InvoiceTemplateCostFixed", currency: p.currency, amount: p.amount }
    case "InvoiceTemplateLineCostRange":
      return { invoiceTemplateCostType: "InvoiceTemplateCostRange", currency: p.currency, range: p.range }
  }
}

/** The newer line cost of an older cost. @since 0.1.0 */
export const lineCostOf = (cost: TemplateCost): LineCost => {
  switch (cost.invoiceTemplateCostType) {
    case "InvoiceTemplateCostUnlim":
      return { costType: "InvoiceTemplateLineCostUnlim" }
    case "InvoiceTemplateCostFixed":
      return { costType: "InvoiceTemplateLineCostFixed", currency: cost.currency, amount: cost.amount }
    case "InvoiceTemplateCostRange":
      return { costType: "InvoiceTemplateLineCostRange", currency: cost.currency, range: cost.range }
  }
}

/** The product an invoice from the template carries. @since 0.1.0 */
export const productOf = (t: { readonly name?: string | undefined; readonly details: Details }): string =>
  t.details.templateType === "InvoiceTemplateSingleLine"
    ? t.details.product
    : (t.name !== undefined && t.name !== "" ? t.name : t.details.cart[0]!.product).slice(0, 100)

/** The answer for a stored template. @since 0.1.0 */
export const toTemplate = (r: InvoiceTemplateRecord): InvoiceTemplate => ({
  id: r.id,
  ...(r.externalID === undefined ? {} : { externalID: r.externalID }),
  shopID: r.shopID,
  ...(r.name === undefined ? {} : { name: r.name }),
  ...(r.description === undefined ? {} : { description: r.description }),
  createdAt: r.createdAt,
  lifetime: r.lifetime,
  details: r.details,
  ...(r.metadata === undefined ? {} : { metadata: r.metadata }),
  ...(r.randomizeAmount === undefined ? {} : { randomizeAmount: r.randomizeAmount }),
  product: productOf(r),
  cost: costOf(r.details)
})

/**
 * The end of an invoice's life from `start`: years, then months, then days, in UTC calendar
 * arithmetic (a month from January 31st is the last day of February).
 *
 * @since 0.1.0
 */
export const dueDateOf = (start: Date, lifetime: LifetimeInterval): Date => {
  const d = new Date(start.getTime())
  const day = d.getUTCDate()
  d.setUTCDate(1)
  d.setUTCFullYear(d.getUTCFullYear() + lifetime.years)
  d.setUTCMonth(d.getUTCMonth() + lifetime.months)
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()
  d.setUTCDate(Math.min(day, last))
  return new Date(d.getTime() + lifetime.days * 86_400_000)
}
