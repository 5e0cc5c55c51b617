/**
 * The whole domain for a test: in memory, or on a throw-away database of one dialect, with the
 * background work (timers, payment and refund processing, webhook fan-out and delivery) driven
 * by the test's `TestClock`: `advance` moves the clock and runs what came due, `settle` runs
 * until nothing is left to do at the current instant. No real sleep is needed, so `it.effect`
 * (whose clock stands still) does not wait for Kassa's background work.
 *
 * ```ts
 * it.effect("an unpaid invoice is cancelled when due", () =>
 *   Effect.gen(function*() {
 *     const invoice = yield* createInvoice(...) // due in a day
 *     yield* TestKassa.advance("25 hours")
 *     // the invoice's due timer fired
 *   }).pipe(Effect.provide(TestKassa.layerMemory())))
 * ```
 *
 * @since 0.1.0
 */
import { Kassa, SqlTimers, SqlTransactions, TokenKeys, WebhookDispatcher } from "@kassa/adapters"
import { MemoryScheduler } from "@kassa/core/memory/MemoryTimers"
import { MemoryBackground } from "@kassa/core/memory/MemoryTransactions"
import type { Ledger } from "@kassa/core/ports/Ledger"
import type { KassaSettings } from "@kassa/core/Settings"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import type { Dialect } from "./Dialects.js"
import * as TestDatabase from "./TestDatabase.js"

/**
 * Kassa on a throw-away database of `dialect` (dropped when the layer closes). Its background
 * loops poll in real time but read the time from Effect's clock, and `settle` / `advance` run
 * what is due at once.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (dialect: Dialect, overrides: Partial<Kassa.Options> = {}) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), ({ dataDir, database }) =>
      Kassa.layer({
        database,
        dataDir,
        signingKey: TokenKeys.generatePem(),
        scheduler: { pollInterval: "50 millis", lease: "10 seconds" },
        ...overrides,
        settings: { recoveryDelayMs: 2_000, ...overrides.settings }
      }))
  )

/**
 * Kassa in memory (`Kassa.layerMemory`): nothing on disk, its timers sleeping on Effect's clock.
 *
 * @since 0.1.0 @category layers
 */
export const layerMemory = (options: Kassa.MemoryOptions = {}) => Kassa.layerMemory(options)

/** What every test layer provides: core's services, the ledger and the settings. @since 0.1.0 @category models */
export type Services = Kassa.Services | Ledger | KassaSettings

/** Kassa on memory or on a dialect, as `Dialects.backends()` names them. @since 0.1.0 @category layers */
export const layerOf = (backend: Dialect | "memory"): Layer.Layer<Services> =>
  backend === "memory" ? layerMemory() : layer(backend)

const MAX_ROUNDS = 10_000

/**
 * Until nothing is left to do at the current instant: no background work running, no timer due,
 * no webhook notification to fan out or deliver. Each round waits for the background work, then
 * runs the due timers and webhooks itself (taking turns with the loops, so none is missed).
 *
 * Background work sleeping on the clock is waited for: the test acquirer's slow card sleeps 5 s
 * of `TestClock` time, so pay with it and move the clock (`TestClock.adjust` in a fiber of its
 * own) rather than settle. Needs a Kassa layer (`layer`, `layerMemory` or `Kassa.layer*`).
 *
 * @since 0.1.0
 */
export const settle: Effect.Effect<void> = Effect.gen(function*() {
  const backgrounds = Option.toArray(yield* Effect.serviceOption(MemoryBackground)).concat(
    Option.toArray(yield* Effect.serviceOption(SqlTransactions.SqlBackground))
  )
  const schedulers = Option.toArray(yield* Effect.serviceOption(MemoryScheduler)).concat(
    Option.toArray(yield* Effect.serviceOption(SqlTimers.Scheduler))
  )
  const webhooks = yield* Effect.serviceOption(WebhookDispatcher.WebhookDispatcher)
  if (backgrounds.length === 0 && schedulers.length === 0) {
    return yield* Effect.dieMessage("TestKassa.settle needs a Kassa layer (TestKassa.layer, TestKassa.layerMemory)")
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const background of backgrounds) yield* background.awaitIdle
    let done = 0
    for (const scheduler of schedulers) done += yield* scheduler.runDue
    if (Option.isSome(webhooks)) done += (yield* webhooks.value.fanOut) + (yield* webhooks.value.deliverDue)
    let running = 0
    for (const background of backgrounds) running += yield* background.running
    if (done === 0 && running === 0) return
  }
  return yield* Effect.dieMessage(`TestKassa.settle: still busy after ${MAX_ROUNDS} rounds (work that reschedules itself?)`)
})

/**
 * Moves the `TestClock` by `duration`, then settles: every timer that came due meanwhile fired
 * (at the new time), and what it started ran to the end.
 *
 * @since 0.1.0
 */
export const advance = (duration: Duration.DurationInput): Effect.Effect<void> =>
  Effect.zipRight(TestClock.adjust(duration), settle)
