/**
 * What creating an invoice costs Effect's run loop on each store: its steps, as the server runs
 * it (no tracing, no statement counting). A count, so it pins what a CPU figure cannot.
 */
import { assert, layer } from "@effect/vitest"
import { InvoiceService } from "@kassa/core"
import { Dialects, Fixtures } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import { kassaOn } from "./support/KassaOn.js"
import { Steps } from "./support/Supervisors.js"

const YEAR = 365 * 24 * 3_600_000

for (const dialect of Dialects.dialects()) {
  layer(kassaOn(dialect), { timeout: "60 seconds", excludeTestServices: true })(`Invoice creation's steps [${dialect}]`, (it) => {
    it.effect("few: the clock read in the step that uses it, the reference data handed out as loaded", () =>
      Effect.gen(function*() {
        const m = yield* Fixtures.merchant()
        const invoices = yield* InvoiceService.InvoiceService
        const now = yield* Clock.currentTimeMillis
        const create = invoices.create(m.partyID, {
          shopID: m.shopID,
          dueDate: new Date(now + YEAR),
          amount: 1000,
          currency: "RUB",
          product: "Tea",
          metadata: {}
        })
        // the shop's terms read and the statements prepared first, as a running server has them
        yield* create
        const steps = new Steps()
        const { invoice } = yield* Effect.supervised(Effect.withRuntimeFlagsPatch(create, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)), steps)
        assert.strictEqual(invoice.amount, 1000)
        // 101 on PostgreSQL, 158 on SQLite (105 with a scope made for a transaction that never
        // opens; 170 with a savepoint around a unit alone in its group, 268 with Effect's
        // semaphores, a scope and a Deferred around it as well;
        // 131 and 294 with the reference data behind `Effect.cached`, 137 and 300 with each clock
        // read two to four steps of its own as well)
        assert.isAtMost(yield* steps.value, dialect === "pg" ? 103 : 160)
      }).pipe(Effect.withTracerEnabled(false), Effect.orDie))
  })
}
