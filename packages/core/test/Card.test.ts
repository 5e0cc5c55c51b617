import { assert, describe, it } from "@effect/vitest"
import * as Card from "@kassa/core/payment/Card"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const digits = (min: number, max: number) =>
  FastCheck.array(FastCheck.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((ds) => ds.join(""))

/** A Luhn-valid number: `prefix`, filler zeros to `length - 1` digits, then the check digit. */
const number = (prefix: string, length: number) => {
  const payload = prefix.padEnd(length - 1, "0")
  return payload + Card.checkDigit(payload)
}

describe("Card.luhn", () => {
  it("accepts known valid numbers", () => {
    for (
      const n of ["4242424242424242", "4111111111111111", "5555555555554444", "378282246310005", "79927398713", "0"]
    ) assert.isTrue(Card.luhn(n), n)
  })

  it("refuses known invalid numbers and non-digits", () => {
    for (const n of ["4242424242424241", "4111111111111112", "79927398710", "", "4242 4242 4242 4242", "abc", "-1"]) {
      assert.isFalse(Card.luhn(n), n)
    }
  })

  it.prop("appending the computed check digit always validates, any other digit never", [digits(1, 18)], ([payload]) => {
    const check = Card.checkDigit(payload)
    assert.isTrue(Card.luhn(payload + check))
    for (let d = 0; d <= 9; d++) {
      if (String(d) !== check) assert.isFalse(Card.luhn(payload + d))
    }
  })
})

describe("Card.paymentSystemOf", () => {
  it("knows the test cards", () => {
    const cases: ReadonlyArray<[string, Card.PaymentSystem]> = [
      ["4242424242424242", "visa"],
      ["5555555555554444", "mastercard"],
      ["2200000000000004", "nspkmir"],
      ["378282246310005", "amex"],
      ["6011111111111117", "discover"],
      ["3566002020360505", "jcb"],
      ["6200000000000005", "unionpay"],
      ["30569309025904", "dinersclub"],
      ["6759649826438453", "maestro"]
    ]
    for (const [n, system] of cases) assert.strictEqual(Card.paymentSystemOf(n), system, n)
  })

  it("prefers the longest matching prefix", () => {
    const cases: ReadonlyArray<[string, Card.PaymentSystem | undefined]> = [
      ["4026000000000000", "visaelectron"],
      ["4175000000000000", "visaelectron"],
      ["4175010000000000", "visa"],
      ["4917000000000000", "visaelectron"],
      ["4011780000000000", "elo"],
      ["4576320000000000", "elo"],
      ["2221000000000000", "mastercard"],
      ["2720990000000000", "mastercard"],
      ["2721000000000000", undefined],
      ["2204000000000000", "nspkmir"],
      ["2205000000000000", undefined],
      ["5100000000000000", "mastercard"],
      ["5018000000000000", "maestro"],
      ["5019000000000000", "dankort"],
      ["6762000000000000", "maestro"],
      ["6007220000000000", "forbrugsforeningen"],
      ["3400000000000000", "amex"],
      ["3050000000000000", "dinersclub"],
      ["3060000000000000", undefined],
      ["3900000000000000", "dinersclub"],
      ["3528000000000000", "jcb"],
      ["3590000000000000", undefined],
      ["6440000000000000", "discover"],
      ["6500340000000000", "discover"],
      ["6500310000000000", "elo"],
      ["6550200000000000", "discover"],
      ["6550210000000000", "elo"],
      ["5067000000000000", "elo"],
      ["5085000000000000", "rupay"],
      ["6070000000000000", "rupay"],
      ["6080000000000000", undefined],
      ["6521500000000000", "rupay"],
      ["6531500000000000", "discover"],
      ["6277800000000000", "elo"],
      ["6280000000000000", "unionpay"],
      ["9999999999999999", undefined],
      ["", undefined],
      ["4x", undefined]
    ]
    for (const [n, system] of cases) assert.strictEqual(Card.paymentSystemOf(n), system, n)
  })

  it.prop("answers only values of the specification's enum", [digits(0, 19)], ([n]) => {
    const system = Card.paymentSystemOf(n)
    assert.isTrue(system === undefined || Card.paymentSystems.includes(system))
  })
})

describe("Card lengths", () => {
  it("validLength follows the system", () => {
    assert.isTrue(Card.validLength("visa", "4242424242424242"))
    assert.isTrue(Card.validLength("visa", "4222222222222"))
    assert.isFalse(Card.validLength("visa", "424242424242424"))
    assert.isTrue(Card.validLength("amex", "378282246310005"))
    assert.isFalse(Card.validLength("amex", "3782822463100050"))
    assert.isTrue(Card.validLength("dinersclub", "30569309025904"))
    assert.isTrue(Card.validLength("maestro", "675964982643"))
    assert.isFalse(Card.validLength("mastercard", "55555555555544"))
    assert.isFalse(Card.validLength("unknown", "4242424242424242"))
    assert.isFalse(Card.validLength("toString", "4242424242424242"))
  })

  it("cvvLength is 4 for amex, else 3", () => {
    assert.strictEqual(Card.cvvLength("amex"), 4)
    for (const system of Card.paymentSystems.filter((s) => s !== "amex")) assert.strictEqual(Card.cvvLength(system), 3)
  })
})

describe("Card expiry", () => {
  it("parseExpDate reads MM/YY and MM/YYYY", () => {
    assert.deepStrictEqual(Card.parseExpDate("12/25"), { expMonth: 12, expYear: 2025 })
    assert.deepStrictEqual(Card.parseExpDate("01/2030"), { expMonth: 1, expYear: 2030 })
    assert.deepStrictEqual(Card.parseExpDate("09/00"), { expMonth: 9, expYear: 2000 })
    for (const bad of ["00/25", "13/25", "1/25", "12/253", "12-25", "12/25 ", "", "aa/bb", "12/2025/1"]) {
      assert.isUndefined(Card.parseExpDate(bad), bad)
    }
  })

  it("isExpired: valid through the end of the month, UTC", () => {
    const exp = { expMonth: 12, expYear: 2025 }
    assert.isFalse(Card.isExpired(exp, new Date("2025-12-01T00:00:00Z")))
    assert.isFalse(Card.isExpired(exp, new Date("2025-12-31T23:59:59.999Z")))
    assert.isTrue(Card.isExpired(exp, new Date("2026-01-01T00:00:00Z")))
    assert.isFalse(Card.isExpired({ expMonth: 2, expYear: 2024 }, new Date("2024-02-29T12:00:00Z")))
    assert.isTrue(Card.isExpired({ expMonth: 2, expYear: 2024 }, new Date("2024-03-01T00:00:00Z")))
    assert.isTrue(Card.isExpired({ expMonth: 1, expYear: 2020 }, new Date("2025-06-15T00:00:00Z")))
  })
})

describe("Card.mask", () => {
  const PATTERN = /^\d{0,6}\*+\d{0,4}$/

  it("shows the BIN and the last four", () => {
    assert.deepStrictEqual(Card.mask("4242424242424242"), {
      bin: "424242",
      last4: "4242",
      cardNumberMask: "424242******4242"
    })
    assert.deepStrictEqual(Card.mask("378282246310005"), {
      bin: "378282",
      last4: "0005",
      cardNumberMask: "378282*****0005"
    })
    assert.deepStrictEqual(Card.maskV1("4242424242424242"), { bin: "424242", lastDigits: "4242" })
  })

  it.prop("matches the interface's pattern and keeps the length", [digits(12, 19)], ([n]) => {
    const m = Card.mask(n)
    assert.match(m.cardNumberMask, PATTERN)
    assert.strictEqual(m.cardNumberMask.length, n.length)
    assert.strictEqual(m.bin, n.slice(0, 6))
    assert.strictEqual(m.last4, n.slice(-4))
    assert.deepStrictEqual(Card.maskV1(n), { bin: m.bin, lastDigits: m.last4 })
  })
})

describe("Card.validate", () => {
  const now = new Date("2025-06-15T12:00:00Z")
  const error = (input: Card.CardInput) => {
    const result = Card.validate(input, now)
    if (Either.isRight(result)) return assert.fail("expected a validation error")
    assert.notInclude(result.left, input.cardNumber === "" ? "\u0000" : input.cardNumber)
    return result.left
  }

  it("answers the card, its system and its mask", () => {
    const result = Card.validate(
      { cardNumber: "4242424242424242", expDate: "12/30", cvv: "123", cardHolder: "JOHN DOE" },
      now
    )
    assert.deepStrictEqual(
      result,
      Either.right({
        card: { cardNumber: "4242424242424242", expMonth: 12, expYear: 2030, cardHolder: "JOHN DOE" },
        paymentSystem: "visa" as const,
        details: { bin: "424242", last4: "4242", cardNumberMask: "424242******4242" }
      })
    )
  })

  it("leaves cardHolder out when absent and accepts amex's 4-digit CVV", () => {
    const result = Card.validate({ cardNumber: "378282246310005", expDate: "06/2025", cvv: "1234" }, now)
    assert.isTrue(Either.isRight(result))
    if (Either.isRight(result)) {
      assert.deepStrictEqual(result.right.card, { cardNumber: "378282246310005", expMonth: 6, expYear: 2025 })
      assert.strictEqual(result.right.paymentSystem, "amex")
    }
  })

  it("names the field in each error", () => {
    const ok = { cardNumber: "4242424242424242", expDate: "12/30" }
    assert.strictEqual(error({ ...ok, cardNumber: "4242424242424241" }), "cardNumber: invalid checksum")
    assert.strictEqual(error({ ...ok, cardNumber: number("99", 16) }), "cardNumber: unsupported card")
    assert.strictEqual(error({ ...ok, cardNumber: number("4242", 15) }), "cardNumber: invalid length for visa")
    assert.strictEqual(error({ ...ok, cardNumber: number("34", 16) }), "cardNumber: invalid length for amex")
    assert.match(error({ ...ok, cardNumber: "4242-4242-4242-4242" }), /^cardNumber: /)
    assert.match(error({ ...ok, cardNumber: "42424242424" }), /^cardNumber: /)
    assert.strictEqual(error({ ...ok, expDate: "05/25" }), "expDate: card expired")
    assert.strictEqual(error({ ...ok, expDate: "12/2024" }), "expDate: card expired")
    assert.match(error({ ...ok, expDate: "6/25" }), /^expDate: /)
    assert.match(error({ ...ok, expDate: "13/25" }), /^expDate: /)
    assert.strictEqual(error({ ...ok, cvv: "12" }), "cvv: invalid length")
    assert.strictEqual(error({ ...ok, cvv: "1234" }), "cvv: invalid length")
    assert.strictEqual(error({ ...ok, cardNumber: "378282246310005", cvv: "123" }), "cvv: invalid length")
    assert.match(error({ ...ok, cvv: "12a" }), /^cvv: /)
    assert.match(error({ ...ok, cardHolder: "" }), /^cardHolder: /)
    assert.match(error({ ...ok, cardHolder: "A".repeat(101) }), /^cardHolder: /)
    assert.match(error({ ...ok, cardHolder: "J0HN DOE" }), /^cardHolder: /)
  })

  it("the current month is not expired; the holder may be any letters and punctuation", () => {
    for (const cardHolder of ["Jöhn O'Néil-Smith", "ИВАН ИВАНОВ", "A", "A".repeat(100), "Dr. J. Doe, Jr."]) {
      const result = Card.validate({ cardNumber: "5555555555554444", expDate: "06/25", cardHolder }, now)
      assert.isTrue(Either.isRight(result), cardHolder)
    }
  })
})
