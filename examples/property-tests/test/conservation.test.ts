// Any sequence of a merchant's commands (invoices, payments by every kind of test card,
// captures, cancels, refunds, chargebacks, days passing) keeps Kassa in step with the kit's
// model: statuses, the shop's balance, and money conserved in the ledger.
import { it } from "@effect/vitest"
import { Dialects, ModelRunner, TestKassa } from "@kassa/testing"
import { Effect } from "effect"

for (const backend of Dialects.backends()) {
  it.effect(`any command sequence keeps money conserved [${backend}]`, () =>
    ModelRunner.check({ numRuns: backend === "memory" ? 30 : 5, maxCommands: 20 }).pipe(
      Effect.provide(TestKassa.layerOf(backend))
    ))
}
