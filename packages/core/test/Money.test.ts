import { assert, describe, it } from "@effect/vitest"
import { Money } from "@kassa/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

const MAX = Number.MAX_SAFE_INTEGER

describe("Money.sum", () => {
  it("adds amounts", () => {
    assert.strictEqual(Money.sum([]), 0)
    assert.strictEqual(Money.sum([1]), 1)
    assert.strictEqual(Money.sum([1, 2, 3]), 6)
    assert.strictEqual(Money.sum(new Set([100, 250])), 350)
    assert.strictEqual(Money.sum([MAX - 1, 1]), MAX)
    assert.strictEqual(Money.sum([MAX]), MAX)
  })

  it("is undefined past MAX_SAFE_INTEGER", () => {
    assert.isUndefined(Money.sum([MAX, 1]))
    assert.isUndefined(Money.sum([MAX, MAX]))
    assert.isUndefined(Money.sum([2 ** 52, 2 ** 52]))
    assert.isUndefined(Money.sum([MAX, 1, 0]))
    assert.isUndefined(Money.sum([1, MAX]))
  })

  it.prop(
    "equals the exact sum when it is safe, else is undefined",
    [
      FastCheck.array(
        FastCheck.oneof(
          FastCheck.integer({ min: 1, max: 1_000_000 }),
          FastCheck.integer({ min: 1, max: MAX }),
          FastCheck.integer({ min: Math.floor(MAX / 3), max: Math.floor(MAX / 2) })
        ),
        { maxLength: 20 }
      )
    ],
    ([amounts]) => {
      const exact = amounts.reduce((acc, a) => acc + BigInt(a), 0n)
      const expected = exact <= BigInt(MAX) ? Number(exact) : undefined
      assert.strictEqual(Money.sum(amounts), expected)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "matches the plain sum of small amounts",
    [FastCheck.array(FastCheck.integer({ min: 1, max: 1_000_000_000 }), { maxLength: 50 })],
    ([amounts]) => {
      assert.strictEqual(Money.sum(amounts), amounts.reduce((acc, a) => acc + a, 0))
    },
    { fastCheck: { numRuns: 200 } }
  )
})

describe("Money.Amount", () => {
  const decode = Schema.decodeUnknownEither(Money.Amount)

  it("accepts integers from 1 to MAX_SAFE_INTEGER", () => {
    assert.deepStrictEqual(decode(1), Either.right(1))
    assert.deepStrictEqual(decode(42), Either.right(42))
    assert.deepStrictEqual(decode(MAX), Either.right(MAX))
  })

  it("rejects 0, fractions, negatives, unsafe integers and non-numbers", () => {
    for (const value of [0, -1, 1.5, 0.5, MAX + 1, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, "1", null]) {
      assert.isTrue(Either.isLeft(decode(value)), String(value))
    }
  })

  it.prop("accepts every integer of the range", [FastCheck.integer({ min: 1, max: MAX })], ([n]) => {
    assert.deepStrictEqual(decode(n), Either.right(n))
  }, { fastCheck: { numRuns: 200 } })

  it("NonNegativeAmount accepts 0 and rejects -1", () => {
    const decodeNN = Schema.decodeUnknownEither(Money.NonNegativeAmount)
    assert.deepStrictEqual(decodeNN(0), Either.right(0))
    assert.isTrue(Either.isLeft(decodeNN(-1)))
    assert.isTrue(Either.isLeft(decodeNN(MAX + 1)))
  })

  it("Currency is three upper-case letters", () => {
    const decodeC = Schema.decodeUnknownEither(Money.Currency)
    assert.deepStrictEqual(decodeC("RUB"), Either.right("RUB"))
    for (const value of ["rub", "RU", "RUBL", "R1B", ""]) assert.isTrue(Either.isLeft(decodeC(value)), value)
  })
})
