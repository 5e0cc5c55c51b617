/**
 * Composite references: the one string that names an object inside its parents (a payment inside
 * its invoice, a refund inside its payment), as idempotency records and durable timers store it.
 * Each kind of reference is a schema, so it is built and read in one place and a malformed one is
 * refused instead of split into the wrong parts.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const SEPARATOR = "/"

/** One part: any non-empty identifier without the separator. */
const Part = Schema.String.pipe(Schema.minLength(1), Schema.filter((s) => !s.includes(SEPARATOR)))

/** @since 0.1.0 @category models */
export type Parts<K extends string> = { readonly [k in K]: string }

/** @since 0.1.0 @category models */
export interface Ref<K extends string> {
  /** `"a/b"` ⇄ `{ first: "a", second: "b" }`. */
  readonly schema: Schema.Schema<Parts<K>, string>
  readonly encode: (parts: Parts<K>) => string
  /** The parts of a reference Kassa wrote itself: a malformed one is a defect. */
  readonly decode: (ref: string) => Parts<K>
  /** The last part: the object's own id. */
  readonly idOf: (ref: string) => string
}

/**
 * A reference made of `keys`, in that order.
 *
 * @since 0.1.0 @category constructors
 */
export const make = <const K extends ReadonlyArray<string>>(...keys: K): Ref<K[number]> => {
  const Target = Schema.Struct(Object.fromEntries(keys.map((k) => [k, Part]))) as unknown as Schema.Schema<Parts<K[number]>>
  const schema: Schema.Schema<Parts<K[number]>, string> = Schema.transformOrFail(Schema.String, Target, {
    strict: true,
    decode: (s, _, ast) => {
      const values = s.split(SEPARATOR)
      return values.length === keys.length
        ? ParseResult.succeed(Object.fromEntries(keys.map((k, i) => [k, values[i]!])) as Parts<K[number]>)
        : ParseResult.fail(new ParseResult.Type(ast, s, `expected ${keys.join(SEPARATOR)}`))
    },
    encode: (parts) => ParseResult.succeed(keys.map((k) => parts[k as K[number]]).join(SEPARATOR))
  })
  const decodeEither = Schema.decodeEither(schema)
  const encodeSync = Schema.encodeSync(schema)
  // The schema's checks by hand for a well-formed reference (processing makes several a payment);
  // a malformed one still goes through the schema, for its error.
  const isPart = (u: unknown) => typeof u === "string" && u.length > 0 && !u.includes(SEPARATOR)
  const encode = (parts: Parts<K[number]>): string => {
    const values = keys.map((k) => parts[k as K[number]])
    return values.every(isPart) ? values.join(SEPARATOR) : encodeSync(parts)
  }
  const decode = (ref: string) => {
    const values = ref.split(SEPARATOR)
    if (values.length === keys.length && values.every(isPart)) {
      return Object.fromEntries(keys.map((k, i) => [k, values[i]!])) as Parts<K[number]>
    }
    const parts = decodeEither(ref)
    if (Either.isLeft(parts)) throw new Error(`malformed reference ${JSON.stringify(ref)}: expected ${keys.join(SEPARATOR)}`)
    return parts.right
  }
  const last = keys[keys.length - 1] as K[number]
  return { schema, encode, decode, idOf: (ref) => decode(ref)[last] }
}

/** An object named by its own id alone (an invoice, a customer, a template). @since 0.1.0 */
export const Id = make("id")

/** A payment: `invoiceID/paymentID`. @since 0.1.0 */
export const Payment = make("invoiceID", "paymentID")

/** A refund: `invoiceID/paymentID/refundID`. @since 0.1.0 */
export const Refund = make("invoiceID", "paymentID", "refundID")

/** A chargeback: `invoiceID/paymentID/chargebackID`. @since 0.1.0 */
export const Chargeback = make("invoiceID", "paymentID", "chargebackID")

/** A customer's binding: `customerID/bindingID`. @since 0.1.0 */
export const Binding = make("customerID", "bindingID")
