import { assert, describe, it } from "@effect/vitest"
import * as Ref from "@kassa/core/Ref"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"

const part = FastCheck.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("/"))

describe("Ref", () => {
  it.prop("a reference decodes to the parts it was made of", [part, part, part], ([invoiceID, paymentID, refundID]) => {
    const ref = Ref.Refund.encode({ invoiceID, paymentID, refundID })
    assert.deepStrictEqual(Ref.Refund.decode(ref), { invoiceID, paymentID, refundID })
    assert.strictEqual(Ref.Refund.idOf(ref), refundID)
    assert.deepStrictEqual(Ref.Payment.decode(Ref.Payment.encode({ invoiceID, paymentID })), { invoiceID, paymentID })
  })

  it("keeps the stored shape: parts joined by /", () => {
    assert.strictEqual(Ref.Payment.encode({ invoiceID: "inv", paymentID: "1" }), "inv/1")
    assert.strictEqual(Ref.Binding.encode({ customerID: "c", bindingID: "b" }), "c/b")
    assert.strictEqual(Ref.Id.encode({ id: "inv" }), "inv")
  })

  // (`encode` and `decode` check well-formed references by hand: they must agree with the schema)
  it.prop(
    "encode and decode answer as the schema does, a malformed reference or part included",
    [FastCheck.array(FastCheck.constantFrom("", "/", "a", "b/", "ü"), { maxLength: 4 }).map((s) => s.join("")), FastCheck.string(), FastCheck.string()],
    ([ref, invoiceID, paymentID]) => {
      const decoded = Schema.decodeEither(Ref.Payment.schema)(ref)
      if (Either.isRight(decoded)) assert.deepStrictEqual(Ref.Payment.decode(ref), decoded.right)
      else assert.throws(() => Ref.Payment.decode(ref))
      const encoded = Schema.encodeEither(Ref.Payment.schema)({ invoiceID, paymentID })
      if (Either.isRight(encoded)) assert.strictEqual(Ref.Payment.encode({ invoiceID, paymentID }), encoded.right)
      else assert.throws(() => Ref.Payment.encode({ invoiceID, paymentID }))
    }
  )

  it("a malformed reference is refused, never split into the wrong parts", () => {
    for (const bad of ["inv", "inv/1/2", "/1", "inv/"]) {
      assert.isTrue(Either.isLeft(Schema.decodeEither(Ref.Payment.schema)(bad)), bad)
      assert.throws(() => Ref.Payment.decode(bad))
    }
    assert.throws(() => Ref.Payment.encode({ invoiceID: "a/b", paymentID: "1" }))
  })
})
