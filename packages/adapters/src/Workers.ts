/**
 * The background loops of a running Kassa (timer scheduler, webhook fan-out and delivery), for
 * readiness: a loop that has stopped while its layer lives means the process no longer does
 * its background work.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

/** @since 0.1.0 @category tags */
export class Workers extends Context.Tag("kassa/Workers")<Workers, {
  readonly register: (name: string, fiber: Fiber.RuntimeFiber<unknown, unknown>) => void
  /** The names of the registered loops that have stopped. */
  readonly stopped: () => ReadonlyArray<string>
}>() {}

/** @since 0.1.0 @category layers */
export const layer = Layer.sync(Workers, () => {
  const fibers = new Map<string, Fiber.RuntimeFiber<unknown, unknown>>()
  return {
    register: (name, fiber) => void fibers.set(name, fiber),
    stopped: () => [...fibers].filter(([, fiber]) => fiber.unsafePoll() !== null).map(([name]) => name)
  }
})

/**
 * Forks a loop in the scope and registers it under `name` when `Workers` is present.
 *
 * @since 0.1.0
 */
export const forkScoped = (name: string) => <A, E, R>(loop: Effect.Effect<A, E, R>): Effect.Effect<void, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkScoped(loop)
    const workers = yield* Effect.serviceOption(Workers)
    if (Option.isSome(workers)) workers.value.register(name, fiber)
  })
