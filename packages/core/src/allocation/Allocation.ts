/**
 * Allocations: how an invoice's money is distributed among shops of the party. Each transaction
 * names a target shop and either an amount (`AllocationBodyAmount`) or a total with a fee in
 * favour of the invoice's shop (`AllocationBodyTotal`, fee `AllocationFeeFixed` or
 * `AllocationFeeShare`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Cart from "../cart/Cart.js"
import { BusinessError } from "../Errors.js"
import { Amount, Currency, sum } from "../Money.js"

const ShopRef = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/** @since 0.1.0 @category schemas */
export const AllocationTarget = Schema.Struct({
  allocationTargetType: Schema.Literal("AllocationTargetShop"),
  shopID: ShopRef
})
/** @since 0.1.0 */
export type AllocationTarget = typeof AllocationTarget.Type

/** `m` × 10^`exp`. @since 0.1.0 @category schemas */
export const Decimal = Schema.Struct({
  m: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
  exp: Schema.Int.pipe(Schema.between(-18, 18))
})

const FeeFixedParams = Schema.Struct({ allocationFeeType: Schema.Literal("AllocationFeeFixed"), amount: Amount })
const FeeShareParams = Schema.Struct({ allocationFeeType: Schema.Literal("AllocationFeeShare"), share: Decimal })

/** @since 0.1.0 @category schemas */
export const AllocationTransactionParams = Schema.Union(
  Schema.Struct({
    target: AllocationTarget,
    allocationBodyType: Schema.Literal("AllocationBodyAmount"),
    amount: Amount,
    currency: Currency,
    cart: Schema.optional(Cart.CartParam)
  }),
  Schema.Struct({
    target: AllocationTarget,
    allocationBodyType: Schema.Literal("AllocationBodyTotal"),
    total: Amount,
    currency: Currency,
    fee: Schema.Union(FeeFixedParams, FeeShareParams),
    cart: Schema.optional(Cart.CartParam)
  })
)
/** @since 0.1.0 */
export type AllocationTransactionParams = typeof AllocationTransactionParams.Type

/** @since 0.1.0 @category schemas */
export const AllocationParams = Schema.Array(AllocationTransactionParams).pipe(Schema.minItems(1), Schema.maxItems(100))

const FeeOut = Schema.Union(
  Schema.Struct({ allocationFeeType: Schema.Literal("AllocationFeeFixed"), target: AllocationTarget, amount: Schema.Int }),
  Schema.Struct({
    allocationFeeType: Schema.Literal("AllocationFeeShare"),
    target: AllocationTarget,
    share: Decimal,
    amount: Schema.Int
  })
)

/** A transaction as Kassa answers it (read-only amounts filled in). @since 0.1.0 @category schemas */
export const AllocationTransaction = Schema.Union(
  Schema.Struct({
    target: AllocationTarget,
    allocationBodyType: Schema.Literal("AllocationBodyAmount"),
    amount: Schema.Int,
    currency: Schema.String,
    cart: Schema.optional(Schema.Array(Cart.InvoiceLine))
  }),
  Schema.Struct({
    target: AllocationTarget,
    allocationBodyType: Schema.Literal("AllocationBodyTotal"),
    total: Schema.Int,
    amount: Schema.Int,
    currency: Schema.String,
    fee: FeeOut,
    cart: Schema.optional(Schema.Array(Cart.InvoiceLine))
  })
)
/** @since 0.1.0 */
export type AllocationTransaction = typeof AllocationTransaction.Type

/** The fee of a share: total × m × 10^exp, rounded half up, in exact arithmetic. @since 0.1.0 */
export const shareOf = (total: number, share: { readonly m: number; readonly exp: number }): bigint => {
  const t = BigInt(total) * BigInt(share.m)
  if (share.exp >= 0) return t * 10n ** BigInt(share.exp)
  const d = 10n ** BigInt(-share.exp)
  return (t * 2n + d) / (2n * d)
}

/** What an allocation is checked against. @since 0.1.0 @category models */
export interface AllocationContext {
  /** The invoice's (or payment's) shop: the fee's beneficiary. */
  readonly shopID: string
  readonly amount: number
  readonly currency: string
  /** Shops of the same party. */
  readonly partyShops: ReadonlySet<string>
  /** Whether the contract's terms allow allocations. */
  readonly allowed: boolean
}

/**
 * Checks an allocation against the interface's rules and fills in the computed amounts:
 * not permitted by the terms → `allocationNotPermitted`; a shop of another party, two
 * transactions for one shop, another currency, a fee above its total, a cart that does not add
 * up, or transactions together above the amount → `invalidAllocation`.
 *
 * @since 0.1.0
 */
export const make = (
  params: ReadonlyArray<AllocationTransactionParams>,
  context: AllocationContext
): Either.Either<ReadonlyArray<AllocationTransaction>, BusinessError> => {
  const invalid = (message: string) => Either.left(BusinessError.of("invalidAllocation", message))
  if (!context.allowed) return Either.left(BusinessError.of("allocationNotPermitted", "Allocation is not permitted by the contract"))
  const seen = new Set<string>()
  const out: Array<AllocationTransaction> = []
  const feeTarget: AllocationTarget = { allocationTargetType: "AllocationTargetShop", shopID: context.shopID }
  for (let i = 0; i < params.length; i++) {
    const t = params[i]!
    const shop = t.target.shopID
    if (!context.partyShops.has(shop)) return invalid(`allocation[${i}]: unknown shop ${shop}`)
    if (seen.has(shop)) return invalid(`allocation[${i}]: duplicate shop ${shop}`)
    seen.add(shop)
    if (t.currency !== context.currency) return invalid(`allocation[${i}]: currency must be ${context.currency}`)
    let cart: ReadonlyArray<Cart.InvoiceLine> | undefined
    if (t.cart !== undefined) {
      const made = Cart.make(t.cart)
      if (Either.isLeft(made)) return invalid(`allocation[${i}].${made.left.message}`)
      cart = made.right
    }
    const gross = t.allocationBodyType === "AllocationBodyAmount" ? t.amount : t.total
    if (cart !== undefined && Cart.total(cart) !== gross) {
      return invalid(`allocation[${i}]: cart total ${Cart.total(cart)} differs from ${gross}`)
    }
    const withCart = cart === undefined ? {} : { cart }
    if (t.allocationBodyType === "AllocationBodyAmount") {
      out.push({ target: t.target, allocationBodyType: t.allocationBodyType, amount: t.amount, currency: t.currency, ...withCart })
      continue
    }
    const fee = t.fee.allocationFeeType === "AllocationFeeFixed" ? BigInt(t.fee.amount) : shareOf(t.total, t.fee.share)
    if (t.fee.allocationFeeType === "AllocationFeeShare" && shareOf(1_000_000, t.fee.share) > 1_000_000n) {
      return invalid(`allocation[${i}].fee.share: must be between 0 and 1`)
    }
    if (fee > BigInt(t.total)) return invalid(`allocation[${i}]: fee exceeds the total`)
    const feeAmount = Number(fee)
    out.push({
      target: t.target,
      allocationBodyType: t.allocationBodyType,
      total: t.total,
      amount: t.total - feeAmount,
      currency: t.currency,
      fee: t.fee.allocationFeeType === "AllocationFeeFixed"
        ? { allocationFeeType: "AllocationFeeFixed", target: feeTarget, amount: feeAmount }
        : { allocationFeeType: "AllocationFeeShare", target: feeTarget, share: t.fee.share, amount: feeAmount },
      ...withCart
    })
  }
  const allocated = sum(out.map((t) => (t.allocationBodyType === "AllocationBodyAmount" ? t.amount : t.total)))
  if (allocated === undefined || allocated > context.amount) {
    return invalid(`allocation: transactions total ${allocated ?? "too much"}, above the amount ${context.amount}`)
  }
  return Either.right(out)
}
