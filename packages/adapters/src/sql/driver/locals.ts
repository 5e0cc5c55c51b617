/**
 * @internal
 * A transaction's fiber refs (its connection in the context, its held writes, its statement
 * transformer), set for the transaction and put back after it. `Effect.locally` and
 * `Effect.provideService` open an uninterruptible region each, about a dozen Effect steps and two
 * copies of the fiber's refs; a transaction, already uninterruptible, sets them all in the step
 * it is in, and puts them back in one more (as `FiberRef.set` does, ref by ref, on the fiber).
 */
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"

/** @internal A fiber ref and the value it takes. */
export type Local = readonly [FiberRef.FiberRef<any>, unknown]

/** @internal `[conn, depth]` as the transaction's connection, in the fiber's context. */
export const connection = (
  context: Context.Context<never>,
  conn: SqlConnection.Connection,
  depth: number
): Local => [FiberRef.currentContext, Context.add(context, SqlClient.TransactionConnection, [conn, depth])]

/** Effect's fiber, with the method `FiberRef.set` calls on it (its public type does not show it). */
interface Settable {
  readonly setFiberRef: <A>(ref: FiberRef.FiberRef<A>, value: A) => void
}

/** Sets every ref of `locals` on `fiber`, in the one step the caller is in (as `FiberRef.set` does, ref by ref). */
const setOn = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, locals: ReadonlyArray<Local>): Effect.Effect<void> => {
  for (const [ref, value] of locals) (fiber as unknown as Settable).setFiberRef(ref, value)
  return Effect.void
}

/**
 * @internal
 * The exit of `effect` run with `locals` (given the fiber's context), the refs' values put back
 * after it. The caller runs it uninterruptibly (`effect` restores interruption where it may be
 * interrupted): nothing then comes between the setting and the putting back.
 */
export const exitWith = <A, E, R>(
  locals: (context: Context.Context<never>) => ReadonlyArray<Local>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Exit.Exit<A, E>, never, R> =>
  Effect.withFiberRuntime((fiber) => {
    const set = locals(fiber.getFiberRef(FiberRef.currentContext))
    const saved = set.map(([ref]): Local => [ref, fiber.getFiberRef(ref)])
    setOn(fiber, set)
    return Effect.zipLeft(Effect.exit(effect), Effect.withFiberRuntime((after) => setOn(after, saved)))
  })
