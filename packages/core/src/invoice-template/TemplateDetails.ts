/**
 * The rules of a template's details and lifetime, as a create or an update sends them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Cart from "../cart/Cart.js"
import { BusinessError } from "../Errors.js"
import { type Details, type DetailsParams, type LifetimeInterval, lineCostOf, type TemplateCost } from "./InvoiceTemplate.js"

const invalid = (message: string) => Effect.fail(BusinessError.of("invalidRequest", message))

/** A template lives at least a day. @since 0.1.0 */
export const checkLifetime = (l: LifetimeInterval) =>
  l.days === 0 && l.months === 0 && l.years === 0 ? invalid("lifetime: a zero lifetime is rejected") : Effect.void

/**
 * The template's details from either revision's fields, falling back on `existing` (update).
 *
 * @since 0.1.0
 */
export const resolveDetails = (
  input: { readonly details?: DetailsParams | undefined; readonly product?: string | undefined; readonly cost?: TemplateCost | undefined },
  existing: Details | undefined
): Effect.Effect<Details, BusinessError> =>
  Effect.gen(function*() {
    let details: Details
    if (input.details !== undefined) {
      const d = input.details
      if (d.templateType === "InvoiceTemplateMultiLine") {
        const cart = Cart.make(d.cart)
        if (Either.isLeft(cart)) return yield* cart.left
        details = { templateType: d.templateType, cart: cart.right, currency: d.currency }
      } else {
        details = d
      }
    } else if (input.product !== undefined || input.cost !== undefined) {
      const prior = existing?.templateType === "InvoiceTemplateSingleLine" ? existing : undefined
      const product = input.product ?? prior?.product
      const price = input.cost !== undefined ? lineCostOf(input.cost) : prior?.price
      if (product === undefined) return yield* invalid("product: is missing")
      if (price === undefined) return yield* invalid("cost: is missing")
      details = {
        templateType: "InvoiceTemplateSingleLine",
        product,
        price,
        ...(prior?.taxMode === undefined ? {} : { taxMode: prior.taxMode })
      }
    } else if (existing !== undefined) {
      details = existing
    } else {
      return yield* invalid("details: is missing")
    }
    if (
      details.templateType === "InvoiceTemplateSingleLine" && details.price.costType === "InvoiceTemplateLineCostRange" &&
      details.price.range.lowerBound > details.price.range.upperBound
    ) {
      return yield* invalid("details.price.range: lowerBound is above upperBound")
    }
    return details
  })

/** The currency a template fixes, if any. @since 0.1.0 */
export const currencyOf = (details: Details): string | undefined =>
  details.templateType === "InvoiceTemplateMultiLine"
    ? details.currency
    : details.price.costType === "InvoiceTemplateLineCostUnlim"
    ? undefined
    : details.price.currency
