/**
 * Random modification of an invoice amount (`randomizeAmount`): a uniform step of 10^precision
 * minor units within ±deviation (or only up, or only down), applied only to amounts that meet
 * the conditions. Randomness comes from Effect's `Random`, so a seeded `Random` reproduces it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"

const Int64 = Schema.Int.pipe(Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER))

/** @since 0.1.0 @category schemas */
export const RandomizeAmount = Schema.Struct({
  deviation: Int64.pipe(Schema.greaterThanOrEqualTo(0)),
  precision: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 5)), { default: () => 2 }),
  direction: Schema.optionalWith(Schema.Literal("both", "upward", "downward"), { default: () => "both" as const }),
  minAmountCondition: Schema.optional(Int64.pipe(Schema.greaterThanOrEqualTo(0))),
  maxAmountCondition: Schema.optional(Int64.pipe(Schema.greaterThanOrEqualTo(0))),
  amountMultiplicityCondition: Schema.optional(Int64.pipe(Schema.greaterThanOrEqualTo(1)))
})
/** @since 0.1.0 */
export type RandomizeAmount = typeof RandomizeAmount.Type

/** @since 0.1.0 @category schemas */
export const AmountRandomized = Schema.Struct({ original: Schema.Int, randomized: Schema.Int })
/** @since 0.1.0 */
export type AmountRandomized = typeof AmountRandomized.Type

/** Whether the amount meets the conditions that allow randomizing it. @since 0.1.0 */
export const applies = (amount: number, p: RandomizeAmount): boolean =>
  (p.minAmountCondition === undefined || amount >= p.minAmountCondition) &&
  (p.maxAmountCondition === undefined || amount <= p.maxAmountCondition) &&
  (p.amountMultiplicityCondition === undefined || amount % p.amountMultiplicityCondition === 0)

/**
 * The step range `[lo, hi]` (in units of 10^precision) a randomization draws from. The result
 * never goes below 1 nor above the safe integer range.
 *
 * @since 0.1.0
 */
export const range = (amount: number, p: RandomizeAmount): { readonly unit: number; readonly lo: number; readonly hi: number } => {
  const unit = 10 ** p.precision
  const steps = Math.floor(p.deviation / unit)
  let lo = p.direction === "upward" ? 0 : -steps
  let hi = p.direction === "downward" ? 0 : steps
  lo = Math.max(lo, -Math.floor((amount - 1) / unit))
  hi = Math.min(hi, Math.floor((Number.MAX_SAFE_INTEGER - amount) / unit))
  return { unit, lo, hi }
}

/**
 * Randomizes `amount`; `None` when the conditions do not apply.
 *
 * @since 0.1.0
 */
export const randomize = (amount: number, p: RandomizeAmount): Effect.Effect<Option.Option<AmountRandomized>> =>
  applies(amount, p)
    ? Effect.map(
      Effect.suspend(() => {
        const r = range(amount, p)
        return r.hi > r.lo ? Effect.map(Random.nextIntBetween(r.lo, r.hi + 1), (k) => k * r.unit) : Effect.succeed(0)
      }),
      (delta) => Option.some({ original: amount, randomized: amount + delta })
    )
    : Effect.succeed(Option.none())
