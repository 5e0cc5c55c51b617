/**
 * A customer's card binding: verified with the acquirer (a recurrent token asked for), through
 * 3-D Secure when it asks, failed when declined or when the payer abandons the challenge.
 */
import { assert, describe, it } from "@effect/vitest"
import { CustomerParams } from "@kassa/core/customer/Customer"
import { CustomerService } from "@kassa/core/customer/CustomerService"
import { MemoryStore } from "@kassa/core/memory/MemoryStore"
import * as Scripted from "@kassa/core/memory/ScriptedAcquirer"
import * as Settings from "@kassa/core/Settings"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Arrange from "../support/Arrange.js"
import * as MemoryKassa from "../support/MemoryKassa.js"

const { ScriptedAcquirer } = Scripted
const decodeCustomer = Schema.decodeUnknownSync(CustomerParams)

/** A customer of the merchant's first shop and a binding of a fresh card started for it. */
const binding = Effect.gen(function*() {
  const m = yield* Arrange.merchant
  const customers = yield* CustomerService
  const { customer } = yield* customers.create(m.partyID, decodeCustomer({ shopID: m.shopID, contactInfo: {}, metadata: {} }))
  const resource = yield* Arrange.card(m.partyID)
  const started = yield* customers.createBinding(m.partyID, customer.id, {
    paymentResource: { paymentToolToken: resource.paymentToolToken, paymentSession: resource.paymentSession }
  })
  return { m, customer, started }
})

const state = (partyID: string, customerID: string, bindingID: string) =>
  Effect.gen(function*() {
    const customers = yield* CustomerService
    return {
      customer: (yield* customers.get(partyID, customerID)).status,
      binding: (yield* customers.binding(partyID, customerID, bindingID)).status
    }
  })

describe("CustomerService: bindings", () => {
  it.effect("a binding the acquirer authorises succeeds and readies the customer", () =>
    Effect.gen(function*() {
      const { customer, m, started } = yield* binding
      assert.strictEqual(started.status, "pending")
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* state(m.partyID, customer.id, started.id), { customer: "ready", binding: "succeeded" })
      const calls = yield* (yield* ScriptedAcquirer).calls
      assert.deepInclude(calls[0], { method: "authorize", makeRecurrent: true, toolType: "BankCard" })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a declined binding fails and leaves the customer unready", () =>
    Effect.gen(function*() {
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.declined()))
      const { customer, m, started } = yield* binding
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* state(m.partyID, customer.id, started.id), { customer: "unready", binding: "failed" })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a binding through a passed challenge succeeds", () =>
    Effect.gen(function*() {
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.challenge))
      const { customer, m, started } = yield* binding
      yield* MemoryKassa.settle
      const customers = yield* CustomerService
      const waiting = yield* customers.binding(m.partyID, customer.id, started.id)
      assert.isDefined(waiting.interactionID)
      const answered = yield* customers.completeChallenge(waiting.interactionID!, true)
      assert.isTrue(answered.decided)
      yield* MemoryKassa.settle
      assert.deepStrictEqual(yield* state(m.partyID, customer.id, started.id), { customer: "ready", binding: "succeeded" })
    }).pipe(Effect.provide(MemoryKassa.layer)))

  it.effect("a binding whose challenge is abandoned fails when the payer's time runs out, not before", () =>
    Effect.gen(function*() {
      yield* (yield* ScriptedAcquirer).script.authorize(Scripted.answer(Scripted.challenge))
      const { customer, m, started } = yield* binding
      yield* MemoryKassa.settle
      // while the payer has the challenge, only its timeout waits: no recovery runs in vain
      const timers = (yield* MemoryStore).table<{ readonly kind: string; readonly subject: string }>("timers")
      const pending = (yield* timers.values).filter((t) => t.subject.includes(started.id)).map((t) => t.kind)
      assert.deepStrictEqual(pending, ["binding.interaction"])
      const calls = (yield* (yield* ScriptedAcquirer).calls).length
      yield* MemoryKassa.elapse(Settings.defaults.interactionTimeoutMs - 1)
      assert.deepStrictEqual(yield* state(m.partyID, customer.id, started.id), { customer: "unready", binding: "pending" })
      assert.strictEqual((yield* (yield* ScriptedAcquirer).calls).length, calls)
      yield* MemoryKassa.elapse(1)
      assert.deepStrictEqual(yield* state(m.partyID, customer.id, started.id), { customer: "unready", binding: "failed" })
    }).pipe(Effect.provide(MemoryKassa.layer)))
})
