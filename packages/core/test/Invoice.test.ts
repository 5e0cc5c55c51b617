import { assert, describe, it } from "@effect/vitest"
import { Allocation, Cart, InvoiceTemplate, RandomizeAmount } from "@kassa/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as Random from "effect/Random"

const MAX = Number.MAX_SAFE_INTEGER
const RUNS = { fastCheck: { numRuns: 200 } }

const leftOf = <A>(e: Either.Either<A, { readonly code: string; readonly message: string }>) => {
  assert.isTrue(Either.isLeft(e), "expected a failure")
  return Either.isLeft(e) ? e.left : { code: "", message: "" }
}

// --- Cart ----------------------------------------------------------------------------------

describe("Cart.make", () => {
  const line = (i: number) => ({ product: `item ${i}`, quantity: 1, price: 100 })

  it("computes each line's cost as price × quantity; quantity defaults to 1", () => {
    const made = Cart.make([
      { product: "tea", quantity: 3, price: 250 },
      { product: "cup", price: 1000, taxMode: { type: "InvoiceLineTaxVAT", rate: "20%" } }
    ])
    assert.deepStrictEqual(Either.getOrThrow(made), [
      { product: "tea", quantity: 3, price: 250, cost: 750 },
      { product: "cup", quantity: 1, price: 1000, cost: 1000, taxMode: { type: "InvoiceLineTaxVAT", rate: "20%" } }
    ])
    assert.strictEqual(Cart.total(Either.getOrThrow(made)), 1750)
  })

  it("holds 1..100 lines: empty and 101 lines are invalidInvoiceCart", () => {
    assert.strictEqual(Either.getOrThrow(Cart.make([line(0)])).length, 1)
    assert.strictEqual(Either.getOrThrow(Cart.make(Array.from({ length: 100 }, (_, i) => line(i)))).length, 100)
    const empty = leftOf(Cart.make([]))
    assert.strictEqual(empty.code, "invalidInvoiceCart")
    assert.include(empty.message, "cart")
    const tooMany = leftOf(Cart.make(Array.from({ length: 101 }, (_, i) => line(i))))
    assert.strictEqual(tooMany.code, "invalidInvoiceCart")
    assert.include(tooMany.message, "100")
  })

  it("a malformed line is invalidInvoiceCart naming the line and the field", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ quantity: 1, price: 100 }, "product"],
      [{ product: "", price: 100 }, "product"],
      [{ product: "x".repeat(1001), price: 100 }, "product"],
      [{ product: "x", price: 0 }, "price"],
      [{ product: "x", price: -5 }, "price"],
      [{ product: "x", price: 1.5 }, "price"],
      [{ product: "x", price: "100" }, "price"],
      [{ product: "x" }, "price"],
      [{ product: "x", price: 1, quantity: 0 }, "quantity"],
      [{ product: "x", price: 1, quantity: 2.5 }, "quantity"],
      [{ product: "x", price: 1, taxMode: { type: "InvoiceLineTaxVAT", rate: "13%" } }, "taxMode"],
      [{ product: "x", price: 1, taxMode: { type: "Other", rate: "20%" } }, "taxMode"]
    ]
    for (const [bad, field] of cases) {
      const e = leftOf(Cart.make([line(0), line(1), bad]))
      assert.strictEqual(e.code, "invalidInvoiceCart", JSON.stringify(bad))
      assert.include(e.message, `cart[2].${field}`, JSON.stringify(bad))
    }
    for (const bad of [null, 42, "line", []]) {
      const e = leftOf(Cart.make([line(0), bad]))
      assert.strictEqual(e.code, "invalidInvoiceCart")
      assert.include(e.message, "cart[1]")
    }
    // the longest product accepted
    assert.isTrue(Either.isRight(Cart.make([{ product: "x".repeat(1000), price: 1 }])))
  })

  it("a cost or total past the safe integer range is invalidInvoiceCart", () => {
    const cost = leftOf(Cart.make([line(0), { product: "big", quantity: 2, price: MAX }]))
    assert.strictEqual(cost.code, "invalidInvoiceCart")
    assert.include(cost.message, "cart[1]")
    const total = leftOf(Cart.make([{ product: "a", price: MAX - 1 }, { product: "b", price: 2 }]))
    assert.strictEqual(total.code, "invalidInvoiceCart")
    assert.include(total.message, "total")
    assert.strictEqual(Cart.total(Either.getOrThrow(Cart.make([{ product: "a", price: MAX - 1 }, { product: "b", price: 1 }]))), MAX)
  })

  it.prop("costs and total of any valid cart", [
    FastCheck.array(
      FastCheck.record({
        product: FastCheck.string({ minLength: 1, maxLength: 20 }),
        quantity: FastCheck.integer({ min: 1, max: 1000 }),
        price: FastCheck.integer({ min: 1, max: 10_000_000 })
      }),
      { minLength: 1, maxLength: 100 }
    )
  ], ([lines]) => {
    const made = Either.getOrThrow(Cart.make(lines))
    assert.strictEqual(made.length, lines.length)
    made.forEach((l, i) => {
      assert.strictEqual(l.product, lines[i]!.product)
      assert.strictEqual(l.cost, lines[i]!.price * lines[i]!.quantity)
    })
    assert.strictEqual(Cart.total(made), lines.reduce((a, l) => a + l.price * l.quantity, 0))
  }, RUNS)
})

// --- Allocation ----------------------------------------------------------------------------

describe("Allocation", () => {
  const target = (shopID: string) => ({ allocationTargetType: "AllocationTargetShop" as const, shopID })
  const context: Allocation.AllocationContext = {
    shopID: "main",
    amount: 10_000,
    currency: "RUB",
    partyShops: new Set(["main", "a", "b", "c"]),
    allowed: true
  }
  const byAmount = (shopID: string, amount: number, extra: object = {}): Allocation.AllocationTransactionParams => ({
    target: target(shopID),
    allocationBodyType: "AllocationBodyAmount",
    amount,
    currency: "RUB",
    ...extra
  })
  const byTotal = (
    shopID: string,
    total: number,
    fee: { allocationFeeType: "AllocationFeeFixed"; amount: number } | {
      allocationFeeType: "AllocationFeeShare"
      share: { m: number; exp: number }
    },
    extra: object = {}
  ): Allocation.AllocationTransactionParams => ({
    target: target(shopID),
    allocationBodyType: "AllocationBodyTotal",
    total,
    currency: "RUB",
    fee,
    ...extra
  })
  const invalid = (params: ReadonlyArray<Allocation.AllocationTransactionParams>, ctx = context) => {
    const e = leftOf(Allocation.make(params, ctx))
    assert.strictEqual(e.code, "invalidAllocation", e.message)
    return e.message
  }

  it("AllocationBodyAmount keeps its amount; AllocationBodyTotal computes amount and fee", () => {
    const made = Either.getOrThrow(Allocation.make([
      byAmount("a", 3000),
      byTotal("b", 4000, { allocationFeeType: "AllocationFeeFixed", amount: 500 }),
      byTotal("c", 2000, { allocationFeeType: "AllocationFeeShare", share: { m: 15, exp: -2 } })
    ], context))
    assert.deepStrictEqual(made, [
      { target: target("a"), allocationBodyType: "AllocationBodyAmount", amount: 3000, currency: "RUB" },
      {
        target: target("b"),
        allocationBodyType: "AllocationBodyTotal",
        total: 4000,
        amount: 3500,
        currency: "RUB",
        fee: { allocationFeeType: "AllocationFeeFixed", target: target("main"), amount: 500 }
      },
      {
        target: target("c"),
        allocationBodyType: "AllocationBodyTotal",
        total: 2000,
        amount: 1700,
        currency: "RUB",
        fee: { allocationFeeType: "AllocationFeeShare", target: target("main"), share: { m: 15, exp: -2 }, amount: 300 }
      }
    ])
  })

  it("the total of the transactions may reach the amount, not exceed it", () => {
    assert.isTrue(Either.isRight(Allocation.make([byAmount("a", 6000), byAmount("b", 4000)], context)))
    assert.isTrue(Either.isRight(Allocation.make([byAmount("a", 1)], context)))
    // a BodyTotal counts with its total (fee included)
    assert.isTrue(
      Either.isRight(Allocation.make([byTotal("a", 10_000, { allocationFeeType: "AllocationFeeFixed", amount: 9000 })], context))
    )
    invalid([byAmount("a", 6000), byAmount("b", 4001)])
    invalid([byAmount("a", 1000), byTotal("b", 9001, { allocationFeeType: "AllocationFeeFixed", amount: 9000 })])
    invalid([byAmount("a", 10_001)])
  })

  it("one transaction per shop, shops of the same party, the invoice's currency", () => {
    assert.include(invalid([byAmount("a", 100), byAmount("a", 200)]), "a")
    assert.include(invalid([byAmount("a", 100), byTotal("a", 100, { allocationFeeType: "AllocationFeeFixed", amount: 1 })]), "a")
    assert.include(invalid([byAmount("elsewhere", 100)]), "elsewhere")
    invalid([{ ...byAmount("a", 100), currency: "USD" } as Allocation.AllocationTransactionParams])
    // the invoice's own shop is a shop of the party
    assert.isTrue(Either.isRight(Allocation.make([byAmount("main", 100)], context)))
  })

  it("a fee above its total, or a share above 1, is invalidAllocation", () => {
    invalid([byTotal("a", 100, { allocationFeeType: "AllocationFeeFixed", amount: 101 })])
    invalid([byTotal("a", 100, { allocationFeeType: "AllocationFeeShare", share: { m: 101, exp: -2 } })])
    invalid([byTotal("a", 100, { allocationFeeType: "AllocationFeeShare", share: { m: 2, exp: 0 } })])
    // a share of exactly 1 (or a fixed fee equal to the total) leaves nothing to the target
    const whole = Either.getOrThrow(
      Allocation.make([byTotal("a", 100, { allocationFeeType: "AllocationFeeShare", share: { m: 1, exp: 0 } })], context)
    )[0]!
    assert.strictEqual(whole.allocationBodyType === "AllocationBodyTotal" && whole.fee.amount, 100)
    assert.strictEqual(whole.amount, 0)
    const zero = Either.getOrThrow(
      Allocation.make([byTotal("a", 100, { allocationFeeType: "AllocationFeeShare", share: { m: 0, exp: 0 } })], context)
    )[0]!
    assert.strictEqual(zero.amount, 100)
  })

  it("a transaction's cart must add up to its amount or total", () => {
    const cart = [{ product: "x", quantity: 2, price: 150 }]
    const made = Either.getOrThrow(Allocation.make([byAmount("a", 300, { cart })], context))
    assert.deepStrictEqual(made[0]!.cart, [{ product: "x", quantity: 2, price: 150, cost: 300 }])
    assert.isTrue(
      Either.isRight(
        Allocation.make([byTotal("a", 300, { allocationFeeType: "AllocationFeeFixed", amount: 10 }, { cart })], context)
      )
    )
    invalid([byAmount("a", 301, { cart })])
    assert.include(invalid([byAmount("a", 300, { cart: [] })]), "allocation[0]")
    assert.include(invalid([byAmount("b", 1), byAmount("a", 300, { cart: [{ product: "x", price: 0 }] })]), "allocation[1]")
  })

  it("a contract without allocation answers allocationNotPermitted, whatever the allocation", () => {
    const closed = { ...context, allowed: false }
    for (const params of [[byAmount("a", 100)], [byAmount("a", 100), byAmount("a", 100)], [byAmount("zzz", 1_000_000)]]) {
      assert.strictEqual(leftOf(Allocation.make(params, closed)).code, "allocationNotPermitted")
    }
  })

  it("shareOf rounds half up, exactly", () => {
    assert.strictEqual(Allocation.shareOf(1000, { m: 15, exp: -2 }), 150n)
    assert.strictEqual(Allocation.shareOf(5, { m: 1, exp: -1 }), 1n) // 0.5 → 1
    assert.strictEqual(Allocation.shareOf(4, { m: 1, exp: -1 }), 0n) // 0.4 → 0
    assert.strictEqual(Allocation.shareOf(15, { m: 5, exp: -2 }), 1n) // 0.75 → 1
    assert.strictEqual(Allocation.shareOf(25, { m: 1, exp: -2 }), 0n) // 0.25 → 0
    assert.strictEqual(Allocation.shareOf(150, { m: 1, exp: -2 }), 2n) // 1.5 → 2
    assert.strictEqual(Allocation.shareOf(249, { m: 1, exp: -2 }), 2n) // 2.49 → 2
    assert.strictEqual(Allocation.shareOf(7, { m: 3, exp: 0 }), 21n)
    assert.strictEqual(Allocation.shareOf(7, { m: 3, exp: 2 }), 2100n)
    assert.strictEqual(Allocation.shareOf(MAX, { m: 1, exp: -18 }), 0n)
    assert.strictEqual(Allocation.shareOf(MAX, { m: 1, exp: 0 }), BigInt(MAX))
  })

  it.prop("shareOf equals total × m / 10^-exp rounded half up", [
    FastCheck.integer({ min: 1, max: MAX }),
    FastCheck.integer({ min: 0, max: 1_000_000 }),
    FastCheck.integer({ min: -18, max: 0 })
  ], ([total, m, exp]) => {
    const num = BigInt(total) * BigInt(m)
    const den = 10n ** BigInt(-exp)
    const q = num / den
    const r = num % den
    assert.strictEqual(Allocation.shareOf(total, { m, exp }), 2n * r >= den ? q + 1n : q)
  }, RUNS)

  it.prop("an allocation of distinct party shops is accepted iff its total fits the amount", [
    FastCheck.integer({ min: 1, max: 100_000 }),
    FastCheck.array(FastCheck.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 3 })
  ], ([amount, parts]) => {
    const shops = ["a", "b", "c"]
    const params = parts.map((p, i) => byAmount(shops[i]!, p))
    const made = Allocation.make(params, { ...context, amount })
    const sum = parts.reduce((a, b) => a + b, 0)
    if (sum <= amount) assert.isTrue(Either.isRight(made))
    else assert.strictEqual(leftOf(made).code, "invalidAllocation")
  }, RUNS)
})

// --- RandomizeAmount -----------------------------------------------------------------------

describe("RandomizeAmount", () => {
  const params = (p: Partial<RandomizeAmount.RandomizeAmount> & { deviation: number }): RandomizeAmount.RandomizeAmount => ({
    precision: 2,
    direction: "both",
    ...p
  })
  const randomizeWith = (seed: unknown, amount: number, p: RandomizeAmount.RandomizeAmount) =>
    Effect.runSync(RandomizeAmount.randomize(amount, p).pipe(Effect.withRandom(Random.make(seed))))

  it("applies only to amounts that meet the conditions", () => {
    const p = params({ deviation: 100, minAmountCondition: 1000, maxAmountCondition: 5000, amountMultiplicityCondition: 100 })
    assert.isTrue(RandomizeAmount.applies(1000, p))
    assert.isTrue(RandomizeAmount.applies(5000, p))
    assert.isTrue(RandomizeAmount.applies(2500, p))
    assert.isFalse(RandomizeAmount.applies(900, p))
    assert.isFalse(RandomizeAmount.applies(5100, p))
    assert.isFalse(RandomizeAmount.applies(2550, p))
    assert.isTrue(RandomizeAmount.applies(1, params({ deviation: 100 })))
    assert.isTrue(Option.isNone(randomizeWith(1, 900, p)))
    assert.isTrue(Option.isNone(randomizeWith(1, 2550, p)))
    assert.isTrue(Option.isSome(randomizeWith(1, 2500, p)))
  })

  it("draws from whole steps of 10^precision within the deviation", () => {
    assert.deepStrictEqual(RandomizeAmount.range(10_000, params({ deviation: 300 })), { unit: 100, lo: -3, hi: 3 })
    assert.deepStrictEqual(RandomizeAmount.range(10_000, params({ deviation: 350 })), { unit: 100, lo: -3, hi: 3 })
    assert.deepStrictEqual(RandomizeAmount.range(10_000, params({ deviation: 300, direction: "upward" })), {
      unit: 100,
      lo: 0,
      hi: 3
    })
    assert.deepStrictEqual(RandomizeAmount.range(10_000, params({ deviation: 300, direction: "downward" })), {
      unit: 100,
      lo: -3,
      hi: 0
    })
    assert.deepStrictEqual(RandomizeAmount.range(10_000, params({ deviation: 7, precision: 0 })), { unit: 1, lo: -7, hi: 7 })
    // never below 1
    assert.deepStrictEqual(RandomizeAmount.range(250, params({ deviation: 1000 })), { unit: 100, lo: -2, hi: 10 })
    // a deviation below one step leaves the amount as it is
    assert.deepStrictEqual(randomizeWith(3, 10_000, params({ deviation: 99 })), Option.some({ original: 10_000, randomized: 10_000 }))
  })

  it("reaches both ends of the range and every step between", () => {
    const seen = new Set<number>()
    for (let seed = 0; seed < 200; seed++) {
      const r = randomizeWith(seed, 10_000, params({ deviation: 300 }))
      seen.add(Option.getOrThrow(r).randomized)
    }
    assert.deepStrictEqual([...seen].sort((a, b) => a - b), [9700, 9800, 9900, 10_000, 10_100, 10_200, 10_300])
  })

  it("is reproducible with a seeded Random", () => {
    const p = params({ deviation: 123_456, precision: 1 })
    for (const seed of [0, 1, 42, "kassa"]) {
      assert.deepStrictEqual(randomizeWith(seed, 1_000_000, p), randomizeWith(seed, 1_000_000, p))
    }
    const outcomes = new Set([0, 1, 2, 3, 4, 5, 6, 7].map((seed) => Option.getOrThrow(randomizeWith(seed, 1_000_000, p)).randomized))
    assert.isAbove(outcomes.size, 1)
  })

  it.prop("stays within the deviation, in steps of 10^precision, in the direction asked, ≥ 1", [
    FastCheck.integer({ min: 1, max: 10_000_000 }),
    FastCheck.integer({ min: 0, max: 1_000_000 }),
    FastCheck.integer({ min: 0, max: 5 }),
    FastCheck.constantFrom<"both" | "upward" | "downward">("both", "upward", "downward"),
    FastCheck.integer()
  ], ([amount, deviation, precision, direction, seed]) => {
    const p = params({ deviation, precision, direction })
    const r = Option.getOrThrow(randomizeWith(seed, amount, p))
    const delta = r.randomized - r.original
    assert.strictEqual(r.original, amount)
    assert.isTrue(Number.isSafeInteger(r.randomized))
    assert.isAtLeast(r.randomized, 1)
    assert.isAtMost(Math.abs(delta), deviation)
    assert.strictEqual(delta % 10 ** precision, 0)
    if (direction === "upward") assert.isAtLeast(delta, 0)
    if (direction === "downward") assert.isAtMost(delta, 0)
    const { hi, lo, unit } = RandomizeAmount.range(amount, p)
    assert.isTrue(delta >= lo * unit && delta <= hi * unit)
  }, RUNS)

  it.prop("conditions decide whether an amount is randomized", [
    FastCheck.integer({ min: 1, max: 100_000 }),
    FastCheck.option(FastCheck.integer({ min: 0, max: 100_000 }), { nil: undefined }),
    FastCheck.option(FastCheck.integer({ min: 0, max: 100_000 }), { nil: undefined }),
    FastCheck.option(FastCheck.integer({ min: 1, max: 1000 }), { nil: undefined })
  ], ([amount, min, max, multiple]) => {
    const p = params({
      deviation: 500,
      ...(min === undefined ? {} : { minAmountCondition: min }),
      ...(max === undefined ? {} : { maxAmountCondition: max }),
      ...(multiple === undefined ? {} : { amountMultiplicityCondition: multiple })
    })
    const expected = (min === undefined || amount >= min) && (max === undefined || amount <= max) &&
      (multiple === undefined || amount % multiple === 0)
    assert.strictEqual(RandomizeAmount.applies(amount, p), expected)
    assert.strictEqual(Option.isSome(randomizeWith(amount, amount, p)), expected)
  }, RUNS)
})

// --- InvoiceTemplate.dueDateOf -------------------------------------------------------------

describe("InvoiceTemplate.dueDateOf", () => {
  const utc = (y: number, m: number, d: number, h = 0, min = 0) => new Date(Date.UTC(y, m - 1, d, h, min))
  const due = (start: Date, lifetime: Partial<InvoiceTemplate.LifetimeInterval>) =>
    InvoiceTemplate.dueDateOf(start, { days: 0, months: 0, years: 0, ...lifetime })

  it("adds days, months and years in UTC calendar arithmetic, keeping the time of day", () => {
    assert.deepStrictEqual(due(utc(2025, 3, 10, 13, 45), { days: 1 }), utc(2025, 3, 11, 13, 45))
    assert.deepStrictEqual(due(utc(2025, 3, 10, 13, 45), { days: 30 }), utc(2025, 4, 9, 13, 45))
    assert.deepStrictEqual(due(utc(2025, 3, 10), { months: 1 }), utc(2025, 4, 10))
    assert.deepStrictEqual(due(utc(2025, 11, 15), { months: 3 }), utc(2026, 2, 15))
    assert.deepStrictEqual(due(utc(2025, 3, 10), { years: 2 }), utc(2027, 3, 10))
    assert.deepStrictEqual(due(utc(2025, 1, 1), { years: 1, months: 2, days: 3 }), utc(2026, 3, 4))
    assert.deepStrictEqual(due(new Date(0), { days: 3 }), new Date(3 * 86_400_000))
  })

  it("a month from the 31st is the last day of a shorter month", () => {
    assert.deepStrictEqual(due(utc(2025, 1, 31, 10), { months: 1 }), utc(2025, 2, 28, 10))
    assert.deepStrictEqual(due(utc(2024, 1, 31, 10), { months: 1 }), utc(2024, 2, 29, 10))
    assert.deepStrictEqual(due(utc(2025, 3, 31), { months: 1 }), utc(2025, 4, 30))
    assert.deepStrictEqual(due(utc(2025, 8, 31), { months: 1 }), utc(2025, 9, 30))
    assert.deepStrictEqual(due(utc(2025, 1, 31), { months: 2 }), utc(2025, 3, 31))
    assert.deepStrictEqual(due(utc(2025, 10, 31), { months: 4 }), utc(2026, 2, 28))
    // days come after the months
    assert.deepStrictEqual(due(utc(2025, 1, 31), { months: 1, days: 1 }), utc(2025, 3, 1))
  })

  it("leap years: Feb 29 plus a year is Feb 28, plus four years Feb 29", () => {
    assert.deepStrictEqual(due(utc(2024, 2, 29), { years: 1 }), utc(2025, 2, 28))
    assert.deepStrictEqual(due(utc(2024, 2, 29), { years: 4 }), utc(2028, 2, 29))
    assert.deepStrictEqual(due(utc(2024, 2, 28), { days: 1 }), utc(2024, 2, 29))
    assert.deepStrictEqual(due(utc(2025, 2, 28), { days: 1 }), utc(2025, 3, 1))
    assert.deepStrictEqual(due(utc(2100, 1, 31), { months: 1 }), utc(2100, 2, 28))
    assert.deepStrictEqual(due(utc(2000, 1, 31), { months: 1 }), utc(2000, 2, 29))
    // years then months: 2023-01-31 + 1y 1m = 2024-02-29
    assert.deepStrictEqual(due(utc(2023, 1, 31), { years: 1, months: 1 }), utc(2024, 2, 29))
  })

  it.prop("is strictly after the start for a non-zero lifetime and never skips a month end", [
    FastCheck.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }),
    FastCheck.integer({ min: 0, max: 400 }),
    FastCheck.integer({ min: 0, max: 30 }),
    FastCheck.integer({ min: 0, max: 5 })
  ], ([start, days, months, years]) => {
    const s = new Date(start)
    const d = due(s, { days, months, years })
    if (days + months + years > 0) assert.isAbove(d.getTime(), start)
    // the time of day is kept
    assert.strictEqual(d.getTime() % 86_400_000, start % 86_400_000)
    if (days === 0) {
      const target = (s.getUTCFullYear() + years) * 12 + s.getUTCMonth() + months
      assert.strictEqual(d.getUTCFullYear() * 12 + d.getUTCMonth(), target)
      assert.strictEqual(d.getUTCDate(), Math.min(s.getUTCDate(), new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()))
    }
  }, RUNS)
})
