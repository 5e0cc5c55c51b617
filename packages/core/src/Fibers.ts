/**
 * A running fiber's refs set in the step of Effect's run loop the caller is in.
 * `Effect.updateFiberRefs` takes a step of its own, and a `FiberRef.set` per ref copies the fiber's
 * whole map of refs each time; code on a request's path that already holds its fiber
 * (`Effect.withFiberRuntime`) sets them all in one copy.
 *
 * @since 0.1.0
 */
import type * as Fiber from "effect/Fiber"
import type * as FiberRefs from "effect/FiberRefs"

/** Effect's fiber, with the method `Effect.updateFiberRefs` calls on it (its public type does not show it). */
interface Settable {
  readonly setFiberRefs: (refs: FiberRefs.FiberRefs) => void
}

/**
 * Replaces `fiber`'s refs with `refs` (made from `fiber.getFiberRefs()`, with `fiber.id()` as
 * the fiber that set them). `fiber` must be the running fiber.
 *
 * @since 0.1.0
 */
export const unsafeSetRefs = (fiber: Fiber.RuntimeFiber<unknown, unknown>, refs: FiberRefs.FiberRefs): void =>
  (fiber as unknown as Settable).setFiberRefs(refs)
