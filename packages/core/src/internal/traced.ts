import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/**
 * @internal
 * `Effect.fn(name)` when the calling fiber traces, else `Effect.fnUntraced`. A traced call costs
 * about 10 µs even with the tracer off (it captures a stack and opens a span), and one payment
 * makes dozens of them; the server turns tracing off unless an embedder asks for spans.
 */
export const fn = (name: string): Effect.fn.Untraced =>
  ((body: Function, ...pipeables: Array<unknown>) => {
    const traced = (Effect.fn(name) as Function)(body, ...pipeables)
    const untraced = (Effect.fnUntraced as Function)(body, ...pipeables)
    // the fiber's setting read off the fiber: one step, not an effect for it and another after
    return function(this: unknown, ...args: Array<unknown>) {
      return Effect.withFiberRuntime((fiber) =>
        (fiber.getFiberRef(FiberRef.currentTracerEnabled) ? traced : untraced).apply(this, args)
      )
    }
  }) as Effect.fn.Untraced

/**
 * @internal
 * `Effect.withSpan(name)` when the fiber traces, else `effect` as it is: a span, a no-op one too,
 * costs its effect a score of steps (the span's making, its ending on exit, the context it is
 * put in).
 */
export const span = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(effect, name) : effect)
