/**
 * The model-based runner on memory and on each dialect: random command sequences of a merchant
 * (invoices, payments by every kind of test card, captures, cancels, refunds, chargebacks, time
 * moving on) agree with the model after every command. SQL runs fewer sequences.
 */
import { describe, it } from "@effect/vitest"
import { Dialects, ModelRunner, TestKassa } from "@kassa/testing"
import * as Effect from "effect/Effect"

const runs = { memory: 40, sqlite: 10, pg: 8 } as const

for (const backend of Dialects.backends()) {
  describe(`ModelRunner [${backend}]`, () => {
    it.effect("Kassa agrees with the model after every command of random sequences", () =>
      ModelRunner.check({ numRuns: runs[backend], maxCommands: 20 }).pipe(Effect.provide(TestKassa.layerOf(backend))), { timeout: 180_000 })
  })
}
