/**
 * The wallet interface's reference data: currencies (`getCurrency`) and residences
 * (`getResidence`, the ISO 3166-1 countries).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../Errors.js"
import * as Traced from "../internal/traced.js"
import { CurrencyCatalog, type CurrencyRecord } from "../ports/CurrencyCatalog.js"
import { ReferenceData } from "../ports/ReferenceData.js"

/** @since 0.1.0 @category models */
export interface Residence {
  /** ISO 3166-1 alpha-3 */
  readonly id: string
  readonly name: string
}

/** What builds the service: `WalletReference.Default` runs it, and so does `Services.layer` with every other service. @since 0.1.0 @category constructors */
export const make = Effect.gen(function*() {
  const catalog = yield* CurrencyCatalog
  const data = yield* ReferenceData

  /** A currency by its code, either case. */
  const currency = Traced.fn("WalletReference.currency")(function*(code: string) {
    const found = yield* catalog.currency(code.toUpperCase())
    if (Option.isNone(found)) return yield* NotFound.of("Currency", code)
    const record: CurrencyRecord = found.value
    return record
  })

  /** A residence by its alpha-3 code, either case. */
  const residence = Traced.fn("WalletReference.residence")(function*(code: string) {
    const found = yield* data.country(code.toUpperCase())
    if (Option.isNone(found)) return yield* NotFound.of("Residence", code)
    const answer: Residence = { id: found.value.id, name: found.value.name }
    return answer
  })

  return { currency, residence } as const
})

/** @since 0.1.0 @category services */
export class WalletReference extends Effect.Service<WalletReference>()("kassa/WalletReference", {
  effect: make
}) {}
