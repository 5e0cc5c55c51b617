import { assert, describe, it } from "@effect/vitest"
import * as TestAcquirer from "@kassa/adapters/TestAcquirer"
import * as PaymentError from "@kassa/core/payment/PaymentError"
import type { AcquirerTool, AuthorizeAnswer, AuthorizeRequest } from "@kassa/core/ports/Acquirer"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"

/** An independent Luhn check, so the module's own helper is not trusted. */
const luhn = (n: string): boolean =>
  /^\d+$/.test(n) &&
  [...n].reverse().reduce((sum, c, i) => {
    const d = Number(c) * (i % 2 === 1 ? 2 : 1)
    return sum + (d > 9 ? d - 9 : d)
  }, 0) % 10 === 0

const cardTool = (cardNumber: string): AcquirerTool => ({
  type: "BankCard",
  card: { cardNumber, expMonth: 12, expYear: 2030, cardHolder: "TEST HOLDER" },
  paymentSystem: "visa",
  cvv: "123"
})

let seq = 0
const request = (tool: AcquirerTool, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  operationID: `op-${++seq}`,
  amount: 1000,
  currency: "RUB",
  tool,
  hold: false,
  makeRecurrent: false,
  ...overrides
})

const card = (tag: TestAcquirer.CardOutcome["_tag"]): string => {
  const found = TestAcquirer.cards.find((c) => c.outcome._tag === tag)
  if (found === undefined) throw new Error(`no ${tag} card`)
  return found.cardNumber
}

const assertAuthorized = (result: AuthorizeAnswer) => {
  if (result._tag !== "Authorized") assert.fail(`expected Authorized, got ${JSON.stringify(result)}`)
  return result
}

const assertDeclined = (result: AuthorizeAnswer, path: ReadonlyArray<string>) => {
  if (result._tag !== "Declined") assert.fail(`expected Declined, got ${JSON.stringify(result)}`)
  assert.deepStrictEqual(PaymentError.path(result.error), path)
  return result
}

const cdp = (path: ReadonlyArray<string>) => path.join(" > ")
const deadline = cdp(["authorization_failed", "processing_deadline_reached"])

describe("TestAcquirer", () => {
  describe("the card table", () => {
    it("numbers are Luhn-valid, distinct, and the declining cards are in the visa test range", () => {
      const numbers = TestAcquirer.cards.map((c) => c.cardNumber)
      assert.strictEqual(new Set(numbers).size, numbers.length)
      for (const n of numbers) {
        assert.isTrue(luhn(n), `${n} fails Luhn`)
        assert.isTrue(TestAcquirer.isLuhnValid(n))
        assert.strictEqual(n.length, 16)
      }
      for (const c of TestAcquirer.cards) {
        if (c.outcome._tag === "Declined") assert.match(c.cardNumber, /^400000000000\d{4}$/)
        if (c.cardNumber.startsWith("4")) assert.strictEqual(c.paymentSystem, "visa")
      }
      assert.isFalse(TestAcquirer.isLuhnValid("4242424242424241"))
      assert.isFalse(TestAcquirer.isLuhnValid("42424242abcd4242"))
    })

    it("the documented cards give the documented outcomes", () => {
      const outcome = (n: string) => TestAcquirer.cards.find((c) => c.cardNumber === n)?.outcome
      assert.deepStrictEqual(outcome("4242424242424242"), { _tag: "Authorized" })
      assert.deepStrictEqual(outcome("5555555555554444"), { _tag: "Authorized" })
      assert.deepStrictEqual(outcome("2200000000000004"), { _tag: "Authorized" })
      assert.deepStrictEqual(outcome("4000000000000002"), {
        _tag: "Declined",
        error: ["authorization_failed", "rejected_by_issuer"]
      })
      assert.deepStrictEqual(outcome("4000000000009995"), {
        _tag: "Declined",
        error: ["authorization_failed", "insufficient_funds"]
      })
      assert.deepStrictEqual(outcome("4000000000000127"), {
        _tag: "Declined",
        error: ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "cvv_invalid"]
      })
      assert.deepStrictEqual(outcome("4000000000000077"), { _tag: "RefundDeclined" })
      assert.deepStrictEqual(outcome("4000000000000101"), { _tag: "Slow" })
      assert.deepStrictEqual(outcome("4000000000003220"), { _tag: "ThreeDSecure" })
      assert.strictEqual(TestAcquirer.cards.find((c) => c.cardNumber === "5555555555554444")?.paymentSystem, "mastercard")
      assert.strictEqual(TestAcquirer.cards.find((c) => c.cardNumber === "2200000000000004")?.paymentSystem, "nspkmir")
    })

    it("every path of the error tree but processing_deadline_reached has exactly one card", () => {
      const produced = TestAcquirer.cards.flatMap((c) => c.outcome._tag === "Declined" ? [cdp(c.outcome.error)] : [])
      assert.strictEqual(new Set(produced).size, produced.length)
      const tree = PaymentError.TREE.map(cdp)
      for (const p of tree) {
        if (p === deadline) assert.notInclude(produced, p)
        else assert.include(produced, p, `no card for ${p}`)
      }
      for (const p of produced) assert.include(tree, p, `${p} is not in the tree`)
    })

    it("TEST_CARDS.md documents exactly the table", () => {
      const doc = fs.readFileSync(new URL("../TEST_CARDS.md", import.meta.url), "utf8")
      const rows = [...doc.matchAll(/^\| (\d{12,19}) \| (\w+) \| (.+) \|$/gm)].map((m) => ({
        cardNumber: m[1]!,
        paymentSystem: m[2]!,
        outcome: m[3]!
      }))
      assert.deepStrictEqual(rows.map((r) => r.cardNumber), TestAcquirer.cards.map((c) => c.cardNumber))
      for (const [i, c] of TestAcquirer.cards.entries()) {
        const row = rows[i]!
        assert.strictEqual(row.paymentSystem, c.paymentSystem)
        switch (c.outcome._tag) {
          case "Declined":
            assert.strictEqual(row.outcome, `Declined: \`${cdp(c.outcome.error)}\``)
            break
          case "Authorized":
            assert.strictEqual(row.outcome, "Authorized")
            break
          case "Slow":
            assert.match(row.outcome, /^Authorized after a delay/)
            break
          case "ThreeDSecure":
            assert.match(row.outcome, /3-D Secure/)
            break
          case "RefundDeclined":
            assert.match(row.outcome, /^Authorized; every refund of the payment is declined/)
            break
        }
      }
      assert.include(doc, TestAcquirer.refundAmountMessage)
      assert.include(doc, TestAcquirer.refundCardMessage)
    })

    it.effect("each card answers its outcome, and declines never carry the card number", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const seen = new Set<string>()
        for (const c of TestAcquirer.cards) {
          const req = request(cardTool(c.cardNumber))
          const fiber = yield* Effect.fork(acquirer.authorize(req))
          yield* TestClock.adjust("5 seconds")
          const result = yield* Fiber.join(fiber)
          switch (c.outcome._tag) {
            case "Authorized":
            case "RefundDeclined":
            case "Slow":
              assertAuthorized(result)
              break
            case "ThreeDSecure":
              assert.strictEqual(result._tag, "InteractionRequired")
              break
            case "Declined": {
              const declined = assertDeclined(result, c.outcome.error)
              assert.notInclude(declined.message, c.cardNumber)
              assert.notInclude(declined.message, c.cardNumber.slice(-4))
              assert.notInclude(JSON.stringify(declined), c.cardNumber)
              seen.add(cdp(c.outcome.error))
              break
            }
          }
        }
        assert.strictEqual(seen.size, PaymentError.TREE.length - 1)
      }))
  })

  describe("other cards", () => {
    it.effect("any other Luhn-valid number is authorised", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        for (const n of ["4111111111111111", "5105105105105100", "378282246310005", "6011111111111117"]) {
          assert.isTrue(luhn(n))
          assertAuthorized(yield* acquirer.authorize(request(cardTool(n))))
        }
      }))

    it.effect("a number failing the Luhn check is declined as card_number_invalid, without the number", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        for (const n of ["4242424242424241", "1234", "4242-4242-4242-4242"]) {
          const result = assertDeclined(
            yield* acquirer.authorize(request(cardTool(n))),
            ["authorization_failed", "payment_tool_rejected", "bank_card_rejected", "card_number_invalid"]
          )
          assert.notInclude(result.message, n)
        }
      }))
  })

  describe("the slow card", () => {
    it.effect("answers only after the default delay of 5 seconds", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const fiber = yield* Effect.fork(acquirer.authorize(request(cardTool(card("Slow")))))
        yield* TestClock.adjust("4999 millis")
        assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
        yield* TestClock.adjust("1 millis")
        assertAuthorized(yield* Fiber.join(fiber))
      }))

    it.effect("takes the configured delay", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make({ slowDelay: "30 seconds" })
        const req = request(cardTool(card("Slow")))
        const fiber = yield* Effect.fork(acquirer.authorize(req))
        yield* TestClock.adjust("29 seconds")
        assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
        yield* TestClock.adjust("1 seconds")
        const first = assertAuthorized(yield* Fiber.join(fiber))
        // Once answered, a repeated call answers at once with the same answer.
        assert.deepStrictEqual(yield* acquirer.authorize(req), first)
      }))
    it.effect("keeps the request's deadline: answers DeadlineReached at it, having authorised nothing", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = { ...request(cardTool(card("Slow"))), deadline: new Date((yield* Clock.currentTimeMillis) + 2_000) }
        const fiber = yield* Effect.fork(acquirer.authorize(req))
        yield* TestClock.adjust("1999 millis")
        assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* Fiber.join(fiber), { _tag: "DeadlineReached" })
        assert.deepStrictEqual(yield* acquirer.status(req.operationID), { _tag: "Nothing" })
      }))

    it.effect("answers within a deadline later than its delay", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = { ...request(cardTool(card("Slow"))), deadline: new Date((yield* Clock.currentTimeMillis) + 5_001) }
        const fiber = yield* Effect.fork(acquirer.authorize(req))
        yield* TestClock.adjust("5 seconds")
        assertAuthorized(yield* Fiber.join(fiber))
      }))
  })

  describe("3-D Secure", () => {
    it.effect("a passed challenge authorises", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = request(cardTool(card("ThreeDSecure")))
        const first = yield* acquirer.authorize(req)
        if (first._tag !== "InteractionRequired") return assert.fail(JSON.stringify(first))
        assert.isTrue(first.challenge.length > 0)
        assert.notInclude(first.challenge, card("ThreeDSecure"))
        // Before completion a repeated call answers the same challenge.
        assert.deepStrictEqual(yield* acquirer.authorize(req), first)
        const done = assertAuthorized(yield* acquirer.completeInteraction(req.operationID, true))
        assert.deepStrictEqual(done.transaction, TestAcquirer.transactionOf(req.operationID))
        // Completion is idempotent, and authorize now answers the final outcome.
        assert.deepStrictEqual(yield* acquirer.completeInteraction(req.operationID, false), done)
        assert.deepStrictEqual(yield* acquirer.authorize(req), done)
      }))

    it.effect("a failed challenge declines with preauthorization_failed", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = request(cardTool(card("ThreeDSecure")))
        assert.strictEqual((yield* acquirer.authorize(req))._tag, "InteractionRequired")
        const failed = assertDeclined(yield* acquirer.completeInteraction(req.operationID, false), [
          "preauthorization_failed"
        ])
        assert.notInclude(failed.message, card("ThreeDSecure"))
        assert.deepStrictEqual(yield* acquirer.completeInteraction(req.operationID, true), failed)
        assert.deepStrictEqual(yield* acquirer.authorize(req), failed)
      }))

    it.effect("completing an unknown operation is declined; completing a settled one answers its outcome", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        assertDeclined(yield* acquirer.completeInteraction("nope", true), ["preauthorization_failed"])
        const req = request(cardTool("4242424242424242"))
        const result = assertAuthorized(yield* acquirer.authorize(req))
        assert.deepStrictEqual(yield* acquirer.completeInteraction(req.operationID, false), result)
      }))
  })

  describe("idempotency", () => {
    it.effect("the same operationID answers the first answer", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const ok = request(cardTool("4242424242424242"))
        const first = yield* acquirer.authorize(ok)
        assert.deepStrictEqual(yield* acquirer.authorize(ok), first)
        assert.deepStrictEqual(yield* acquirer.authorize({ ...ok, tool: cardTool("4000000000000002") }), first)

        const ko = request(cardTool("4000000000009995"))
        const declined = yield* acquirer.authorize(ko)
        assert.deepStrictEqual(yield* acquirer.authorize({ ...ko, tool: cardTool("4242424242424242") }), declined)
      }))

    it.effect("refunds answer their first answer per refund", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = request(cardTool("4242424242424242"))
        yield* acquirer.authorize(req)
        const first = yield* acquirer.refund(req.operationID, "100", 1099, "RUB")
        assert.strictEqual(first._tag, "Declined")
        assert.deepStrictEqual(yield* acquirer.refund(req.operationID, "100", 1000, "RUB"), first)
        assert.deepStrictEqual(yield* acquirer.refund(req.operationID, "101", 1000, "RUB"), { _tag: "Done" })
      }))
  })

  describe("transactions", () => {
    it.effect("fields match their patterns and depend only on the operationID", () =>
      Effect.gen(function*() {
        const a = TestAcquirer.make()
        const b = TestAcquirer.make()
        const ids = new Set<string>()
        for (let i = 0; i < 50; i++) {
          const req = request(cardTool("4242424242424242"), { operationID: `pay-${i}` })
          const { transaction } = assertAuthorized(yield* a.authorize(req))
          assert.match(transaction.rrn, /^[a-zA-Z0-9]{12}$/)
          assert.match(transaction.approvalCode, /^\d{6}$/)
          assert.match(transaction.id, /^[a-zA-Z0-9-]{1,40}$/)
          ids.add(transaction.id)
          const again = assertAuthorized(yield* b.authorize({ ...req, tool: cardTool("5555555555554444") }))
          assert.deepStrictEqual(again.transaction, transaction)
        }
        assert.strictEqual(ids.size, 50)
      }))
  })

  describe("other payment tools", () => {
    it.effect("terminals, wallets and mobile commerce are authorised", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const tools: ReadonlyArray<AcquirerTool> = [
          { type: "PaymentTerminal", provider: "euroset" },
          { type: "DigitalWallet", provider: "qiwi", id: "wallet-1" },
          { type: "CryptoWallet", cryptoCurrency: "bitcoin" },
          { type: "MobileCommerce", phone: "+79001234567" }
        ]
        for (const tool of tools) assertAuthorized(yield* acquirer.authorize(request(tool)))
      }))
  })

  describe("recurrent payments", () => {
    it.effect("a token issued by this acquirer authorises; others are declined with authorization_failed > unknown", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const plain = assertAuthorized(yield* acquirer.authorize(request(cardTool("4242424242424242"))))
        assert.isUndefined(plain.recurrentToken)

        const parent = assertAuthorized(
          yield* acquirer.authorize(request(cardTool("4242424242424242"), { makeRecurrent: true }))
        )
        const token = parent.recurrentToken
        if (token === undefined) return assert.fail("no recurrent token")
        assert.notInclude(token, "4242424242424242")

        assertAuthorized(yield* acquirer.authorize(request({ type: "Recurrent", recurrentToken: token })))
        const unknown = assertDeclined(
          yield* acquirer.authorize(request({ type: "Recurrent", recurrentToken: "rt-made-up" })),
          ["authorization_failed", "unknown"]
        )
        assert.notInclude(unknown.message, "rt-made-up")
        // Tokens live in the acquirer that issued them.
        assertDeclined(
          yield* TestAcquirer.make().authorize(request({ type: "Recurrent", recurrentToken: token })),
          ["authorization_failed", "unknown"]
        )
      }))

    it.effect("declined payments issue no token; a passed 3-D Secure challenge does", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const declined = yield* acquirer.authorize(request(cardTool("4000000000000002"), { makeRecurrent: true }))
        assert.strictEqual(declined._tag, "Declined")
        const req = request(cardTool(card("ThreeDSecure")), { makeRecurrent: true })
        yield* acquirer.authorize(req)
        const done = assertAuthorized(yield* acquirer.completeInteraction(req.operationID, true))
        const token = done.recurrentToken
        if (token === undefined) return assert.fail("no recurrent token")
        assertAuthorized(yield* acquirer.authorize(request({ type: "Recurrent", recurrentToken: token })))
      }))
  })

  describe("capture, cancel and refund", () => {
    it.effect("captures and cancels always answer Done", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        for (const n of ["4242424242424242", card("RefundDeclined")]) {
          const a = request(cardTool(n), { hold: true })
          assertAuthorized(yield* acquirer.authorize(a))
          assert.deepStrictEqual(yield* acquirer.capture(a.operationID, 500, "RUB"), { _tag: "Done" })
          const b = request(cardTool(n), { hold: true })
          assertAuthorized(yield* acquirer.authorize(b))
          assert.deepStrictEqual(yield* acquirer.cancel(b.operationID), { _tag: "Done" })
        }
      }))

    it.effect("status tells what was done with an operation: nothing, authorised, captured, cancelled, declined", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const transaction = (r: AuthorizeRequest) => TestAcquirer.transactionOf(r.operationID)
        const unknown = request(cardTool("4242424242424242"))
        assert.deepStrictEqual(yield* acquirer.status(unknown.operationID), { _tag: "Nothing" })
        const captured = request(cardTool("4242424242424242"), { makeRecurrent: true })
        const { recurrentToken } = assertAuthorized(yield* acquirer.authorize(captured))
        assert.deepStrictEqual(yield* acquirer.status(captured.operationID), {
          _tag: "Authorized",
          transaction: transaction(captured),
          recurrentToken
        })
        yield* acquirer.capture(captured.operationID, 1000, "RUB")
        assert.deepStrictEqual(yield* acquirer.status(captured.operationID), {
          _tag: "Captured",
          transaction: transaction(captured),
          recurrentToken
        })
        const cancelled = request(cardTool("4242424242424242"), { hold: true })
        assertAuthorized(yield* acquirer.authorize(cancelled))
        yield* acquirer.cancel(cancelled.operationID)
        assert.deepStrictEqual(yield* acquirer.status(cancelled.operationID), { _tag: "Cancelled" })
        const declined = request(cardTool(TestAcquirer.cards.find((c) => c.outcome._tag === "Declined")!.cardNumber))
        yield* acquirer.authorize(declined)
        assert.deepStrictEqual(yield* acquirer.status(declined.operationID), { _tag: "Declined" })
        // a challenge not yet passed has authorised nothing
        const challenged = request(cardTool(card("ThreeDSecure")))
        yield* acquirer.authorize(challenged)
        assert.deepStrictEqual(yield* acquirer.status(challenged.operationID), { _tag: "Nothing" })
        yield* acquirer.completeInteraction(challenged.operationID, true)
        assert.deepStrictEqual(yield* acquirer.status(challenged.operationID), { _tag: "Authorized", transaction: transaction(challenged) })
      }))

    it.effect("refunds of amounts ending in 99 are declined, others are Done", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const req = request(cardTool("4242424242424242"))
        assertAuthorized(yield* acquirer.authorize(req))
        for (const amount of [99, 1099, 123499]) {
          assert.deepStrictEqual(yield* acquirer.refund(req.operationID, `r-${amount}`, amount, "RUB"), {
            _tag: "Declined",
            error: { code: "refund_declined" },
            message: "Declined by the test acquirer: amounts ending in 99 are refused"
          })
        }
        for (const amount of [1, 100, 1098, 1000, 990]) {
          assert.deepStrictEqual(yield* acquirer.refund(req.operationID, `r-${amount}`, amount, "RUB"), {
            _tag: "Done"
          })
        }
      }))

    it.effect("every refund of a payment by the refund-declined card is declined, also through its recurrent token", () =>
      Effect.gen(function*() {
        const acquirer = TestAcquirer.make()
        const n = card("RefundDeclined")
        assert.strictEqual(n, "4000000000000077")
        const req = request(cardTool(n), { makeRecurrent: true })
        const parent = assertAuthorized(yield* acquirer.authorize(req))
        assert.deepStrictEqual(yield* acquirer.capture(req.operationID, req.amount, "RUB"), { _tag: "Done" })
        for (const amount of [1000, 1]) {
          const result = yield* acquirer.refund(req.operationID, `r-${amount}`, amount, "RUB")
          if (result._tag !== "Declined") return assert.fail(JSON.stringify(result))
          assert.deepStrictEqual(result.error, { code: TestAcquirer.refundDeclinedCode })
          assert.notInclude(result.message, n)
        }
        const child = request({ type: "Recurrent", recurrentToken: parent.recurrentToken ?? "" })
        assertAuthorized(yield* acquirer.authorize(child))
        assert.strictEqual((yield* acquirer.refund(child.operationID, "100", 1000, "RUB"))._tag, "Declined")
      }))
  })

  describe("layer", () => {
    it.effect("provides the Acquirer port", () =>
      Effect.gen(function*() {
        const acquirer = yield* Acquirer
        assertAuthorized(yield* acquirer.authorize(request(cardTool("4242424242424242"))))
      }).pipe(Effect.provide(TestAcquirer.layer)))

    it.effect("layerWith takes options", () =>
      Effect.gen(function*() {
        const acquirer = yield* Acquirer
        const fiber = yield* Effect.fork(acquirer.authorize(request(cardTool(card("Slow")))))
        yield* TestClock.adjust("1 seconds")
        assertAuthorized(yield* Fiber.join(fiber))
      }).pipe(Effect.provide(TestAcquirer.layerWith({ slowDelay: "1 seconds" }))))
  })
})
