/**
 * `CurrencyCatalog` from the ISO 4217 list the `currency-codes` package keeps (codes, numeric
 * codes, names, minor units), with each currency's narrow sign as the runtime's `Intl` writes it.
 *
 * @since 0.1.0
 */
import { CurrencyCatalog, type CurrencyRecord } from "@kassa/core/ports/CurrencyCatalog"
import * as CurrencyCodes from "currency-codes"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** The narrow symbol `Intl` writes for a code, unless it writes the code itself or the generic `¤`. */
const signOf = (code: string): string | undefined => {
  try {
    const sign = new Intl.NumberFormat("en", { style: "currency", currency: code, currencyDisplay: "narrowSymbol" })
      .formatToParts(0)
      .find((part) => part.type === "currency")?.value
    return sign === undefined || sign === code || sign === "¤" ? undefined : sign
  } catch {
    return undefined
  }
}

// Built on first use: `Intl` takes about 20 ms for the whole list, which a start need not pay.
let catalog: ReadonlyMap<string, CurrencyRecord> | undefined
const catalogOf = (): ReadonlyMap<string, CurrencyRecord> =>
  catalog ??= new Map(
    CurrencyCodes.data.map((c) => [
      c.code,
      { id: c.code, numericCode: c.number, name: c.currency, sign: signOf(c.code), exponent: c.digits }
    ])
  )

/** @since 0.1.0 @category layers */
export const layer = Layer.succeed(CurrencyCatalog, {
  currency: (code) => Effect.succeed(Option.fromNullable(catalogOf().get(code)))
})
