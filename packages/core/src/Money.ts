/**
 * Money: integer minor units and ISO 4217 currency codes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * An amount in minor units: an integer from 1 up to `Number.MAX_SAFE_INTEGER`.
 *
 * @since 0.1.0 @category models
 */
export const Amount = Schema.Int.pipe(
  Schema.greaterThanOrEqualTo(1),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER)
)
/** @since 0.1.0 */
export type Amount = typeof Amount.Type

/** A non-negative amount (balances, totals). @since 0.1.0 @category models */
export const NonNegativeAmount = Schema.Int.pipe(
  Schema.greaterThanOrEqualTo(0),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER)
)

/** @since 0.1.0 @category models */
export const Currency = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))
/** @since 0.1.0 */
export type Currency = typeof Currency.Type

/**
 * Adds amounts, refusing a sum that would leave the safe integer range.
 *
 * @since 0.1.0
 */
export const sum = (amounts: Iterable<number>): number | undefined => {
  let total = 0
  for (const a of amounts) {
    total += a
    if (!Number.isSafeInteger(total)) return undefined
  }
  return total
}
