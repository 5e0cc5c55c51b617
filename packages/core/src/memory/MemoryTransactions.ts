/**
 * `Transactions` in memory: the store's transactions (a failed one leaves nothing behind), and
 * background work forked outside the caller's transaction and request, for the layer's lifetime.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import { Transactions } from "../ports/Transactions.js"
import * as RequestDeadline from "../RequestDeadline.js"
import { MemoryStore } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<Transactions, never, MemoryStore> = Layer.scoped(
  Transactions,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const inFlight = yield* FiberSet.make<void, never>()
    return {
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
  })
)
