/**
 * A signal raised in a transaction is sent once the outermost transaction has committed, and
 * never when it rolls back; outside a transaction it is sent at once. On SQLite, units that share
 * a group's COMMIT keep their signals apart: a unit that fails drops its own only.
 */
import { assert, layer } from "@effect/vitest"
import { RandomIds } from "@kassa/adapters"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Effect from "effect/Effect"
import { SqlDriver } from "../src/sql/driver/Driver.js"

const append = (aggregateID: string) =>
  Effect.flatMap(EventLog, (log) => log.append({ aggregateType: "invoice", aggregateID, partyID: "p", changes: ["c"] }))

/** The hints `timers` listeners hear while the scope lives. */
const heard = Effect.gen(function*() {
  const driver = yield* SqlDriver
  const hints: Array<number | undefined> = []
  yield* driver.signals.listen("timers", (hint) => void hints.push(hint))
  return { hints, notify: (hint: number) => driver.signals.notify("timers", hint) }
})

for (const dialect of Dialects.dialects()) {
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Signals [${dialect}]`, (it) => {
    it.scoped("outside a transaction a signal is sent at once; inside one, once it has committed", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const { hints, notify } = yield* heard
        yield* notify(1)
        assert.deepStrictEqual(hints, [1])
        const during = yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* append(`inv-${RandomIds.make()}`)
            yield* notify(2)
            // nested: the outermost transaction sends it
            yield* tx.withTransaction(notify(3))
            return [...hints]
          })
        )
        assert.deepStrictEqual(during, [1])
        assert.deepStrictEqual(hints, [1, 2, 3])
      }))

    it.scoped("a transaction that fails sends none of its signals", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const { hints, notify } = yield* heard
        const failed = yield* tx.withTransaction(
          Effect.zipRight(Effect.zipRight(append(`inv-${RandomIds.make()}`), notify(4)), Effect.fail("refused" as const))
        ).pipe(Effect.flip)
        assert.strictEqual(failed, "refused")
        const died = yield* tx.withTransaction(Effect.zipRight(notify(5), Effect.dieMessage("boom"))).pipe(Effect.exit)
        assert.isTrue(died._tag === "Failure")
        assert.deepStrictEqual(hints, [])
      }))

    it.scoped("transactions at once: each sends its own signals, a failed one none", () =>
      Effect.gen(function*() {
        const tx = yield* Transactions
        const { hints, notify } = yield* heard
        const unit = (hint: number, fails: boolean) =>
          tx.withTransaction(Effect.gen(function*() {
            yield* append(`inv-${RandomIds.make()}`)
            yield* notify(hint)
            if (fails) return yield* Effect.fail(hint)
          })).pipe(Effect.either)
        const outcomes = yield* Effect.all([unit(6, false), unit(7, true), unit(8, false), unit(9, true)], { concurrency: "unbounded" })
        assert.deepStrictEqual(outcomes.map((o) => o._tag), ["Right", "Left", "Right", "Left"])
        assert.deepStrictEqual([...hints].sort(), [6, 8])
      }))
  })
}
