/**
 * The ISO 4217 currencies: code, numeric code, name, sign and exponent. The adapter owns the
 * data set.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** @since 0.1.0 @category models */
export interface CurrencyRecord {
  /** The alphabetic code, `RUB`. */
  readonly id: string
  /** The numeric code, `643`. */
  readonly numericCode: string
  readonly name: string
  /** The narrow symbol, `₽`, when there is one. */
  readonly sign: string | undefined
  /** Digits after the decimal point of the minor unit. */
  readonly exponent: number
}

/** @since 0.1.0 @category tags */
export class CurrencyCatalog extends Context.Tag("kassa/CurrencyCatalog")<CurrencyCatalog, {
  /** The currency of an alphabetic code (upper case), if ISO 4217 lists it. */
  readonly currency: (code: string) => Effect.Effect<Option.Option<CurrencyRecord>>
}>() {}
