import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Idempotent from "../src/internal/idempotent.js"
import type { IdempotencyKey, IdempotencyRecord } from "../src/ports/Idempotency.js"
import * as Ref from "../src/Ref.js"

/** Idempotency records in memory; `raced` is claimed by another request before ours. */
const setup = (raced?: IdempotencyRecord) => {
  const records = new Map<string, IdempotencyRecord>()
  const id = (k: IdempotencyKey) => `${k.partyID}|${k.namespace}|${k.operation}|${k.externalID}`
  const externalIDs = Idempotent.make({
    find: (k) => Effect.sync(() => Option.fromNullable(records.get(id(k)))),
    claim: (k, r) =>
      Effect.sync(() => {
        if (raced !== undefined) records.set(id(k), raced)
        const prior = records.get(id(k))
        if (prior !== undefined) return Option.some(prior)
        records.set(id(k), r)
        return Option.none()
      })
  })
  let created = 0
  const create = (externalID: string | undefined, fingerprint: string, paymentID: string) =>
    externalIDs.create({
      partyID: "p",
      operation: "payment",
      externalID,
      fingerprint: () => fingerprint,
      ref: Ref.Payment,
      load: (ref) => Effect.succeed(`loaded ${Ref.Payment.encode(ref)}`)
    }, (claim) =>
      Effect.gen(function*() {
        yield* claim({ invoiceID: "inv", paymentID })
        created++
        return `created inv/${paymentID}`
      }))
  return { create, created: () => created, externalIDs }
}

describe("the externalID combinator", () => {
  it.effect("without an externalID the body creates", () =>
    Effect.gen(function*() {
      const { create, created } = setup()
      assert.strictEqual(yield* create(undefined, "f", "1"), "created inv/1")
      assert.strictEqual(yield* create(undefined, "f", "2"), "created inv/2")
      assert.strictEqual(created(), 2)
    }))

  it.effect("the same externalID with the same features answers the original; other features are a 409 naming it", () =>
    Effect.gen(function*() {
      const { create, created, externalIDs } = setup()
      assert.strictEqual(yield* create("e1", "f", "1"), "created inv/1")
      assert.strictEqual(yield* create("e1", "f", "2"), "loaded inv/1")
      const conflict = yield* Effect.flip(create("e1", "g", "3"))
      assert.deepStrictEqual({ id: conflict.id, externalID: conflict.externalID }, { id: "1", externalID: "e1" })
      assert.strictEqual(created(), 1)
      assert.deepStrictEqual(yield* externalIDs.find(Ref.Payment, "p", "payment", "e1", "Payment"), { invoiceID: "inv", paymentID: "1" })
      assert.strictEqual((yield* Effect.flip(externalIDs.find(Ref.Payment, "p", "payment", "e2", "Payment")))._tag, "NotFound")
    }))

  it.effect("a concurrent request that claimed first: the body stops at its claim and answers that request's object", () =>
    Effect.gen(function*() {
      const { create, created } = setup({ entityID: "inv/7", fingerprint: "f" })
      assert.strictEqual(yield* create("e1", "f", "8"), "loaded inv/7")
      assert.strictEqual(created(), 0)
    }))
})
