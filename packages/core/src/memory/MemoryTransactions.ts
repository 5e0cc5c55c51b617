/**
 * `Transactions` in memory: the store's transactions (a failed one leaves nothing behind), and
 * background work forked outside the caller's transaction and request, for the layer's lifetime.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import { Transactions } from "../ports/Transactions.js"
import * as RequestDeadline from "../RequestDeadline.js"
import { MemoryStore } from "./MemoryStore.js"

/**
 * The background work in flight, for tests that wait for it to end (a `TestClock` cannot see it).
 *
 * @since 0.1.0 @category tags
 */
export class MemoryBackground extends Context.Tag("kassa/MemoryBackground")<MemoryBackground, {
  /** Until no background work is running (work that waits on the clock waits with it). */
  readonly awaitIdle: Effect.Effect<void>
  /** How many pieces of background work are running. */
  readonly running: Effect.Effect<number>
}>() {}

/** `Transactions` and `MemoryBackground`. @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Transactions | MemoryBackground, never, MemoryStore> = Layer.scopedContext(
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const inFlight = yield* FiberSet.make<void, never>()
    const transactions: Transactions["Type"] = {
      withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(store.inTransaction, (joining) =>
          joining
            ? effect
            // a request past its deadline commits nothing
            : store.transaction(Effect.zipLeft(effect, RequestDeadline.beforeCommit))),
      background: <A, E>(effect: Effect.Effect<A, E>) =>
        effect.pipe(
          Effect.asVoid,
          Effect.catchAllCause((cause) => Effect.logError("background work failed", cause)),
          RequestDeadline.detached,
          store.detached,
          FiberSet.run(inFlight),
          Effect.asVoid
        )
    }
    return Context.make(Transactions, transactions).pipe(
      Context.add(MemoryBackground, { awaitIdle: FiberSet.awaitEmpty(inFlight), running: FiberSet.size(inFlight) })
    )
  })
)
