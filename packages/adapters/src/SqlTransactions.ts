/**
 * `Transactions` on `SqlClient` and its `SqlDriver`: nested calls join the outer transaction.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as RequestDeadline from "@kassa/core/RequestDeadline"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import { awaitWork } from "./internal/realTime.js"
import { claiming, currentClaim } from "./internal/requestClaims.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import * as Signals from "./sql/driver/Signals.js"
import { heldWrites } from "./sql/driver/writes.js"

/**
 * How long closing the layer waits for background work in flight, in real time whatever clock
 * the work runs on. What is still running then is interrupted: its transaction rolls back and its
 * durable timer resumes it after a restart.
 *
 * @since 0.1.0
 */
export const shutdownGrace = "5 seconds"

/**
 * The background work in flight (`Transactions.background`), for tests that wait for it to end
 * (a `TestClock` cannot see it).
 *
 * @since 0.1.0 @category tags
 */
export class SqlBackground extends Context.Tag("kassa/SqlBackground")<SqlBackground, {
  /** Until no background work is running (work that waits on the clock waits with it). */
  readonly awaitIdle: Effect.Effect<void>
  /** How many pieces of background work are running. */
  readonly running: Effect.Effect<number>
}>() {}

/** What background work starts without: the request's deadline, the caller's held writes, signals and replay claim. */
const callerRefs = [RequestDeadline.current, heldWrites, Signals.heldSignals, currentClaim] as const

/** Each context without its transaction's connection, made once (`Context.omit` copies every service). */
const withoutTransaction = new WeakMap<Context.Context<never>, Context.Context<never>>()

/**
 * Detaches the fiber of background work, which it starts in, from its caller's transaction and
 * request: as `Effect.locally` and `Effect.mapInputContext` would, ref by ref, but in one step
 * and one copy of the fiber's refs, and with nothing to put back (the fiber ends with the work).
 */
const detach = Effect.updateFiberRefs((id, refs) => {
  const context = FiberRefs.getOrDefault(refs, FiberRef.currentContext)
  let free = withoutTransaction.get(context)
  if (free === undefined) {
    free = Context.omit(SqlClient.TransactionConnection)(context) as Context.Context<never>
    withoutTransaction.set(context, free)
  }
  return FiberRefs.updateManyAs(refs, {
    entries: [[FiberRef.currentContext, [[id, free]]], ...callerRefs.map((ref) => [ref, [[id, undefined]]] as const)]
  })
})

/** `Transactions` and `SqlBackground`. @since 0.1.0 @category layers */
export const layer = Layer.scopedContext(
  Effect.gen(function*() {
    const driver = yield* SqlDriver
    const inFlight = yield* FiberSet.make<void, never>()
    yield* Effect.addFinalizer(() => awaitWork(inFlight, shutdownGrace))
    // A request past its deadline commits nothing; once one of its transactions commits, it is kept.
    const beforeCommit = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipLeft(effect, RequestDeadline.beforeCommit)
    // A request's replay key is claimed by its first transaction that writes (`SqlRequestReplays`).
    const claimed = claiming(yield* SqlClient.SqlClient)
    const transactions: Transactions["Type"] = {
      background: <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.zipRight(detach, effect).pipe(
          Effect.catchAllCause((cause) => Effect.logError("background work failed", cause)),
          FiberSet.run(inFlight),
          Effect.asVoid
        ),
      withTransaction: claimed(<A, E, R>(effect: Effect.Effect<A, E, R>) => driver.transaction(beforeCommit(effect)))
    }
    return Context.make(Transactions, transactions).pipe(
      Context.add(SqlBackground, { awaitIdle: FiberSet.awaitEmpty(inFlight), running: FiberSet.size(inFlight) })
    )
  })
)
