import { assert, describe, it } from "@effect/vitest"
import { check } from "@kassa/core/payres/BankCardRules"
import * as Card from "@kassa/core/payment/Card"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const NOW = new Date(Date.UTC(2026, 0, 15, 12))

const refusal = (input: Parameters<typeof check>[0]) => {
  const checked = check(input, NOW)
  assert.isTrue(Either.isLeft(checked))
  return Either.isLeft(checked) ? checked.left.message : undefined
}

/** 15 digits after a Visa BIN, completed with their check digit. */
const complete = (payload: string) => payload + Card.checkDigit(payload)
const visa = FastCheck.stringMatching(/^\d{9}$/).map((rest) => complete(`424242${rest}`))

describe("BankCardRules.check", () => {
  it("keeps a valid card with its payment system, BIN and last digits", () => {
    const checked = check({ cardNumber: "5555555555554444", expDate: "12/30", cvv: "123", cardHolder: "IVAN PETROV" }, NOW)
    assert.isTrue(Either.isRight(checked))
    if (Either.isRight(checked)) {
      assert.strictEqual(checked.right.paymentSystem, "mastercard")
      assert.deepStrictEqual([checked.right.details.bin, checked.right.details.last4], ["555555", "4444"])
      assert.deepStrictEqual(checked.right.card, { cardNumber: "5555555555554444", expMonth: 12, expYear: 2030, cardHolder: "IVAN PETROV" })
    }
  })

  it("refuses with the interface's two messages, never repeating the number or the CVV", () => {
    assert.strictEqual(refusal({ cardNumber: "4242424242424241", expDate: "12/30" }), "Card data is invalid")
    assert.strictEqual(refusal({ cardNumber: complete("900000000000000"), expDate: "12/30" }), "Unsupported card")
    assert.strictEqual(refusal({ cardNumber: "4242424242424242", expDate: "12/25" }), "Card data is invalid")
    assert.strictEqual(refusal({ cardNumber: "4242424242424242", expDate: "13/30" }), "Card data is invalid")
    assert.strictEqual(refusal({ cardNumber: "4242424242424242" }), "Card data is invalid")
    assert.strictEqual(refusal({ cardNumber: "4242424242424242", expDate: "12/30", cvv: "1234" }), "Card data is invalid")
    assert.strictEqual(refusal({ cardNumber: "378282246310005", expDate: "12/30", cvv: "123" }), "Card data is invalid")
  })

  it.prop("any Visa number with its check digit is kept; changing its last digit is refused", [visa], ([number]) => {
    assert.isTrue(Either.isRight(check({ cardNumber: number, expDate: "01/27" }, NOW)))
    const last = Number(number.slice(-1))
    const wrong = number.slice(0, -1) + String((last + 1) % 10)
    const refused = check({ cardNumber: wrong, expDate: "01/27" }, NOW)
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) assert.notInclude(JSON.stringify(refused.left), wrong)
  })

  it("a card is good through the last moment of its month", () => {
    assert.isTrue(Either.isRight(check({ cardNumber: "4242424242424242", expDate: "01/26" }, NOW)))
    assert.isTrue(Either.isLeft(check({ cardNumber: "4242424242424242", expDate: "12/2025" }, NOW)))
  })
})
