/**
 * @internal
 * A transaction's fiber refs (its connection in the context, its held writes, its statement
 * transformer), set for the transaction and put back after it. `Effect.locally` and
 * `Effect.provideService` open an uninterruptible region each, about a dozen Effect steps and two
 * copies of the fiber's refs; a transaction, already uninterruptible, sets them in one step each.
 */
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"

/** @internal A fiber ref and the value it takes. */
export type Local = readonly [FiberRef.FiberRef<any>, unknown]

/** @internal `[conn, depth]` as the transaction's connection, in the fiber's context. */
export const connection = (
  context: Context.Context<never>,
  conn: SqlConnection.Connection,
  depth: number
): Local => [FiberRef.currentContext, Context.add(context, SqlClient.TransactionConnection, [conn, depth])]

const setAll = (locals: ReadonlyArray<Local>): Effect.Effect<void> => {
  let set: Effect.Effect<void> = Effect.void
  for (const [ref, value] of locals) set = Effect.zipRight(set, FiberRef.set(ref, value))
  return set
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
    return Effect.zipRight(setAll(set), Effect.zipLeft(Effect.exit(effect), setAll(saved)))
  })
