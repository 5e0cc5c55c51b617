/**
 * The crash tests' frame: Kassa on a database of its own, a first process that runs its work and
 * dies with it in flight (its scope interrupted: background work gets the storage's shutdown
 * grace, the rest is cut), and a restarted process on the same database that must finish it.
 * Both log nothing: the outcome is what the tests assert.
 */
import { Kassa, TokenKeys } from "@kassa/adapters"
import { type Dialects, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"

/** Lets real time pass (the work runs on the live clock). */
export const sleepReal = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const layerOn = (database: Kassa.Options["database"], dataDir: string) =>
  Kassa.layer({
    database,
    dataDir,
    signingKey: TokenKeys.generatePem(),
    scheduler: { pollInterval: "50 millis", lease: "2 seconds" },
    settings: { recoveryDelayMs: 500 }
  })

type Services = Layer.Layer.Success<ReturnType<typeof layerOn>>

/** `first` in a process that dies, then `second` with its answer in the restarted one. */
export const crashAndRestart = <A, E1, E2>(
  dialect: Dialects.Dialect,
  first: Effect.Effect<A, E1, Services>,
  second: (setup: A) => Effect.Effect<void, E2, Services>
) =>
  Effect.gen(function*() {
    const { database, dataDir } = yield* TestDatabase.acquire(dialect)
    const layer = layerOn(database, dataDir)
    const run = <B, E>(scope: Scope.Scope, effect: Effect.Effect<B, E, Services>) =>
      Effect.flatMap(Layer.buildWithScope(layer, scope), (context) => Effect.provide(effect, context)).pipe(
        Logger.withMinimumLogLevel(LogLevel.None)
      )
    const dying = yield* Scope.make()
    const setup = yield* run(dying, first)
    yield* Scope.close(dying, Exit.interrupt(FiberId.none))
    const restarted = yield* Scope.make()
    yield* run(restarted, second(setup)).pipe(Effect.ensuring(Scope.close(restarted, Exit.void)))
  }).pipe(Effect.scoped)
