/**
 * Carts: invoice lines, each with `cost` = `price` × `quantity`.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { BusinessError } from "../Errors.js"
import { Amount, sum } from "../Money.js"

/** @since 0.1.0 @category schemas */
export const TaxMode = Schema.Struct({
  type: Schema.Literal("InvoiceLineTaxVAT"),
  rate: Schema.Literal("0%", "10%", "18%", "20%", "10/110", "18/118", "20/120")
})

/** A line as the merchant sends it. @since 0.1.0 @category schemas */
export const InvoiceLineParams = Schema.Struct({
  product: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)),
  quantity: Schema.optionalWith(Amount, { default: () => 1 }),
  price: Amount,
  taxMode: Schema.optional(TaxMode)
})

/** A line as Kassa answers it. @since 0.1.0 @category schemas */
export const InvoiceLine = Schema.Struct({
  product: Schema.String,
  quantity: Schema.Int,
  price: Schema.Int,
  cost: Schema.Int,
  taxMode: Schema.optional(TaxMode)
})
/** @since 0.1.0 */
export type InvoiceLine = typeof InvoiceLine.Type

/** A cart on the wire, checked by the domain so that a bad cart is `invalidInvoiceCart`. @since 0.1.0 */
export const CartParam = Schema.Array(Schema.Unknown).annotations({
  description: "InvoiceCart: 1..100 InvoiceLine {product, quantity, price, taxMode}"
})

const decodeLine = Schema.decodeUnknownEither(InvoiceLineParams, { errors: "all", onExcessProperty: "ignore" })

/**
 * Checks a cart (1..100 well-formed lines whose costs and total stay safe integers) and computes
 * each line's cost. A bad cart is `invalidInvoiceCart` naming the line and field.
 *
 * @since 0.1.0
 */
export const make = (lines: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<InvoiceLine>, BusinessError> => {
  const bad = (message: string) => Either.left(BusinessError.of("invalidInvoiceCart", message))
  if (lines.length === 0) return bad("cart: must hold at least one line")
  if (lines.length > 100) return bad("cart: at most 100 lines")
  const out: Array<InvoiceLine> = []
  for (let i = 0; i < lines.length; i++) {
    const decoded = decodeLine(lines[i])
    if (Either.isLeft(decoded)) {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)
      return bad(issues.map((issue) => `cart[${i}]${issue.path.length ? "." + issue.path.join(".") : ""}: ${issue.message}`).join("; "))
    }
    const line = decoded.right
    const cost = line.price * line.quantity
    if (!Number.isSafeInteger(cost)) return bad(`cart[${i}]: cost is too large`)
    out.push({
      product: line.product,
      quantity: line.quantity,
      price: line.price,
      cost,
      ...(line.taxMode === undefined ? {} : { taxMode: line.taxMode })
    })
  }
  if (total(out) === undefined) return bad("cart: total is too large")
  return Either.right(out)
}

/** The cart's total, or undefined past the safe integer range. @since 0.1.0 */
export const total = (lines: ReadonlyArray<InvoiceLine>): number | undefined => sum(lines.map((l) => l.cost))
