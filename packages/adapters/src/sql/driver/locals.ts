/**
 * @internal
 * A transaction's fiber refs (its connection in the context, its held writes, its statement
 * transformer), set for the transaction and put back after it. `Effect.locally` and
 * `Effect.provideService` open an uninterruptible region each, about a dozen Effect steps and two
 * copies of the fiber's refs; a transaction, already uninterruptible, sets them all in the step
 * it is in, and puts them back in one more, each time in one copy of the fiber's refs.
 */
import * as Fibers from "@kassa/core/Fibers"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Arr from "effect/Array"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Stream from "effect/Stream"

/** @internal A fiber ref and the value it takes. */
export type Local = readonly [FiberRef.FiberRef<any>, unknown]

/**
 * @internal
 * A connection that hands each call to another (`via`): the transaction's, once it is known.
 */
export const forwarding = (
  via: <A>(use: (conn: SqlConnection.Connection) => Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>
): SqlConnection.Connection => ({
  execute: (text, params, transform) => via((c) => c.execute(text, params, transform)),
  executeRaw: (text, params) => via((c) => c.executeRaw(text, params)),
  executeStream: (text, params, transform) => Stream.unwrap(via((c) => Effect.succeed(c.executeStream(text, params, transform)))),
  executeValues: (text, params) => via((c) => c.executeValues(text, params)),
  executeUnprepared: (text, params, transform) => via((c) => c.executeUnprepared(text, params, transform))
})

/**
 * @internal
 * The connection a transaction puts in the fiber's context (where `@effect/sql`'s statements
 * and savepoints look for it): one for every transaction, which runs each call on the connection
 * of the transaction of the fiber that makes it (`of`, from the driver's own fiber refs). The
 * context then no longer changes with the transaction, only with the fiber's context and the
 * depth, and `connection` builds it once for both (`Context.add` copies the context's every
 * service, a hundred of the server's): no fiber sees another's transaction through it.
 */
export interface Routed {
  readonly conn: SqlConnection.Connection
  /** `[conn, depth]` as the transaction's connection, in the fiber's context. */
  readonly connection: (context: Context.Context<never>, depth: number) => Local
}

/** @internal The `Routed` connection of the transactions whose fibers' connection `of` finds. */
export const routed = (of: (fiber: Fiber.RuntimeFiber<unknown, unknown>) => SqlConnection.Connection | undefined): Routed => {
  const conn = forwarding((use) =>
    Effect.withFiberRuntime((fiber) => {
      const own = of(fiber)
      return own === undefined ? Effect.dieMessage("a statement of a transaction ran outside of it") : use(own)
    })
  )
  const built = new Map<number, WeakMap<Context.Context<never>, Context.Context<never>>>()
  return {
    conn,
    connection: (context, depth) => {
      let byContext = built.get(depth)
      if (byContext === undefined) built.set(depth, byContext = new WeakMap())
      let added = byContext.get(context)
      if (added === undefined) {
        added = Context.add(context, SqlClient.TransactionConnection, [conn, depth])
        byContext.set(context, added)
      }
      return [FiberRef.currentContext, added]
    }
  }
}

/**
 * Sets every ref of `locals` on `fiber`, in the one step the caller is in: as `FiberRef.set` does
 * ref by ref, but in one copy of the fiber's refs (each `FiberRef.set` copies them all).
 */
const setOn = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, locals: ReadonlyArray<Local>): Effect.Effect<void> => {
  if (!Arr.isNonEmptyReadonlyArray(locals)) return Effect.void
  const id = fiber.id()
  const entries = Arr.map(locals, ([ref, value]) => [ref, [[id, value]]] as const)
  Fibers.unsafeSetRefs(fiber, FiberRefs.updateManyAs(fiber.getFiberRefs(), { entries }))
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
