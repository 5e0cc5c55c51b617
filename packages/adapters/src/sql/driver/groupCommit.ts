/**
 * @internal
 * Group commit, for a store whose one connection waits for the disk at every COMMIT (SQLite:
 * an fsync of the log, most of a small transaction's time). Transactions that arrive while one
 * runs join its database transaction, one after the other, each but the first inside a savepoint
 * of its own, and one COMMIT makes the group durable.
 *
 * - A unit that fails is rolled back to its savepoint: the others keep their writes. The first,
 *   which has none, fails alone in its group: the group is rolled back and ends.
 * - Every unit's caller waits for the group's COMMIT before it gets its outcome, so nothing
 *   answered can be lost in a crash (a failed first unit's outcome waits for its ROLLBACK only).
 *   A COMMIT that fails fails every unit of the group.
 * - The group commits once a turn of the event loop has passed with no unit waiting, or after
 *   `maxUnits`. While it is open it holds the connection, as one transaction would.
 * - A unit reads what the units before it in the group wrote; since they commit or fail
 *   together, no answer rests on writes that were then lost.
 * - A unit's pure writes (`write`, `writeAll`) run on the group's connection directly.
 * - A unit's signals (`Signals`) are sent once the group has committed, and dropped if the unit
 *   failed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Scope from "effect/Scope"
import { nextTurn } from "../../internal/realTime.js"
import * as Locals from "./locals.js"
import * as Lock from "./lock.js"
import * as Reserved from "./reserved.js"
import * as Signals from "./Signals.js"
import { type Direct, heldWrites, transactionConnection } from "./writes.js"

interface Group {
  readonly conn: SqlConnection.Connection
  /** Gives the connection back (the group's last statement has run). */
  readonly release: (outcome: Exit.Exit<void, SqlError>) => Effect.Effect<void>
  /** The group's outcome once it has ended (its COMMIT's), and the units waiting for it until then. */
  outcome: Exit.Exit<void, SqlError> | undefined
  readonly waiting: Array<(outcome: Exit.Exit<void, SqlError>) => void>
  units: number
  /** A COMMIT is planned for the next turn of the event loop. */
  planned: boolean
}

/** Tells the group's units its outcome. */
const ended = (g: Group, outcome: Exit.Exit<void, SqlError>) => {
  g.outcome = outcome
  for (const resume of g.waiting.splice(0)) resume(outcome)
}

/**
 * The group's outcome, once it has ended (uninterruptibly: a unit waits for its COMMIT). A
 * `Deferred` would cost a dozen steps to make and to await; the unit that ran the COMMIT has it at once.
 */
const committed = (g: Group): Effect.Effect<void, SqlError> =>
  Effect.suspend(() => g.outcome ?? Effect.async<void, SqlError>((resume) => void g.waiting.push(resume)))

const run = (conn: SqlConnection.Connection, statement: string) => Effect.orDie(conn.executeRaw(statement, []))

/**
 * @internal
 * `withTransaction` for `sql`'s single connection, grouping concurrent transactions. Inside a
 * unit, a nested call is an ordinary savepoint of `sql`'s.
 */
export const make = (
  sql: SqlClient.SqlClient,
  options: { readonly maxUnits: number }
): Effect.Effect<<A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>> =>
  Effect.gen(function*() {
    const mutex = Lock.make()
    const reserve = Reserved.of(sql)
    /** The connection, held until the group's end: reserved by hand when the client tells how, else in a scope. */
    const reserved: Effect.Effect<Pick<Group, "conn" | "release">> = reserve !== undefined
      ? Effect.orDie(Effect.map(reserve, ({ conn, release }) => ({ conn, release: () => release })))
      : Effect.flatMap(Scope.make(), (scope) =>
        Effect.orDie(Scope.extend(sql.reserve, scope)).pipe(
          Effect.map((conn) => ({ conn, release: (outcome: Exit.Exit<void, SqlError>) => Scope.close(scope, outcome) })),
          Effect.tapErrorCause((cause) => Scope.close(scope, Exit.failCause(cause)))
        ))
    let waiting = 0
    let group: Group | undefined

    const open = Effect.gen(function*() {
      // A turn of the event loop before the group takes the connection: statements waiting for it
      // run between two groups (with Effect's semaphore, whose waiters a taker barged in before,
      // groups that followed one another starved them; `Lock` hands it to them in turn).
      yield* nextTurn
      const { conn, release } = yield* reserved
      yield* Effect.tapErrorCause(run(conn, "BEGIN"), (cause) => release(Exit.failCause(cause)))
      return { conn, release, outcome: undefined, waiting: [], units: 0, planned: false }
    })

    /** Ends the open group (under the mutex): its COMMIT, or a ROLLBACK when that fails or `failed`. */
    const end = (failed?: Cause.Cause<never>) =>
      Effect.suspend(() => {
        const g = group
        if (g === undefined) return Effect.void
        group = undefined
        return (failed === undefined ? Effect.exit(g.conn.executeRaw("COMMIT", [])) : Effect.succeed(Exit.failCause(failed))).pipe(
          Effect.tap((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.ignore(g.conn.executeRaw("ROLLBACK", [])))),
          Effect.flatMap((exit) => {
            const outcome = Exit.asVoid(exit)
            return Effect.zipRight(g.release(outcome), Effect.sync(() => ended(g, outcome)))
          })
        )
      })

    /**
     * `effect` under the mutex, for a caller already uninterruptible (a unit): `withPermits`
     * without its own uninterruptible regions.
     */
    const locked = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.zipRight(mutex.take, Effect.flatMap(Effect.exit(effect), (exit) => Effect.zipRight(mutex.release, exit)))

    /** A waiter that gave up may have been the one the group was left open for. */
    const settle = locked(Effect.suspend(() => (waiting === 0 ? end() : Effect.void)))

    /**
     * The COMMIT of a group whose unit ended with none waiting, once the event loop has turned:
     * SQLite answers in the same turn, so the transactions of requests that arrive meanwhile
     * would otherwise never find a group open.
     */
    const endLater = (g: Group) =>
      locked(Effect.suspend(() => {
        g.planned = false
        return group === g && waiting === 0 ? end() : Effect.void
      }))

    /**
     * The unit in its savepoint, under the mutex; a failure of the savepoint's own statements is a
     * defect. The group's first unit (`first`) needs none: the group holds only its writes, and
     * when it fails the group is rolled back (`unit`).
     */
    const inSavepoint = <A, E, R>(
      g: Group,
      effect: Effect.Effect<A, E, R>,
      restore: <X, Y, Z>(e: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
      signals: Array<() => void>,
      first: boolean
    ) => {
      const direct: Direct = { sql, conn: g.conn, wrote: false }
      // Each unit has its own `Direct` (whether it wrote is its own) and its own signals.
      const inside = Locals.exitWith(
        (context) => [transactionConnection.connection(context, 1), [heldWrites, direct], Signals.holding(signals)],
        restore(effect)
      )
      if (first) return inside
      return run(g.conn, "SAVEPOINT kassa_unit").pipe(
        Effect.zipRight(inside),
        Effect.tap((exit) =>
          Exit.isSuccess(exit)
            ? run(g.conn, "RELEASE kassa_unit")
            : Effect.zipRight(run(g.conn, "ROLLBACK TO kassa_unit"), run(g.conn, "RELEASE kassa_unit"))
        )
      )
    }

    // (uninterruptible but where it waits for the mutex and runs `effect`: what it does around them
    // needs no region of its own)
    const unit = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          waiting++
          const entered = yield* Effect.exit(restore(mutex.take))
          waiting--
          if (Exit.isFailure(entered)) return yield* Effect.zipRight(settle, Effect.failCause(entered.cause))
          const g = yield* (group === undefined ? Effect.tap(open, (g) => (group = g)) : Effect.succeed(group)).pipe(
            Effect.tapErrorCause(() => mutex.release)
          )
          const first = g.units++ === 0
          const signals: Array<() => void> = []
          const done = yield* Effect.exit(inSavepoint(g, effect, restore, signals, first))
          // The first unit failed: its group, which holds only its writes, is rolled back and ends
          // (its outcome is its own, and waits for no COMMIT).
          if (first && Exit.isSuccess(done) && Exit.isFailure(done.value)) {
            yield* end(Cause.empty)
            yield* mutex.release
            return yield* done.value
          }
          // The group's own statements failed: nothing in it can be trusted to commit.
          let plans = false
          if (Exit.isFailure(done)) yield* end(done.cause)
          else if (g.units >= options.maxUnits) yield* end()
          else if (waiting === 0 && !g.planned) plans = g.planned = true
          yield* mutex.release
          // The unit that plans the COMMIT runs it itself (it waits for it anyway, uninterruptibly):
          // a fiber forked for it would cost a copy of the fiber's refs per group.
          if (plans) yield* Effect.zipRight(nextTurn, endLater(g))
          yield* Effect.orDie(committed(g))
          if (Exit.isFailure(done)) return yield* Effect.failCause(done.cause)
          // the unit's own outcome: its signals go only if it kept its writes
          if (Exit.isSuccess(done.value)) Signals.sendAll(signals)
          return yield* done.value
        })
      )

    return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.withFiberRuntime((fiber) =>
        Context.getOption(fiber.getFiberRef(FiberRef.currentContext), SqlClient.TransactionConnection)._tag === "Some"
          ? Effect.orDie(sql.withTransaction(effect))
          : unit(effect)
      )
  })
