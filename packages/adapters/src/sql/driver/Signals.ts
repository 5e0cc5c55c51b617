/**
 * Wake-ups for the background loops, so that an idle Kassa issues no statements: a write tells
 * the loops that wait for it (the timer scheduler, the webhook dispatcher's fan-out and delivery)
 * instead of their polling. A signal raised inside a transaction is held until the outermost transaction commits
 * (and dropped if it rolls back), so a loop it wakes sees what was written. Within the process the
 * listeners are called directly; on PostgreSQL the `events` channel also goes to the other
 * processes on the database through `LISTEN/NOTIFY` (one `NOTIFY` in flight at a time, the
 * signals raised meanwhile coalesced into the next). A write can also signal `events` from its own
 * statement (`returningEvents`), heard through `LISTEN` by every process.
 *
 * What a signal cannot cover (a timer set by a process that died, a lease that ended) is left to
 * the loops' slow safety sweep.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { make as randomId } from "../../RandomIds.js"
import * as RealTime from "../../internal/realTime.js"
import type { Local } from "./locals.js"
import { withWork } from "./Statements.js"

/**
 * `timers`: a timer was set (its due time as hint), in this process only: a process fires the
 * timers it sets, the others' sweeps take over when it is gone. `events`: events were appended
 * to the outbox, in every process on the database. `appended`: this process appended events (the
 * search rollups' deltas come with them), in this process only. `deliveries`: notifications were
 * queued other than by the fan-out (an operator's redelivery; their due time as hint), in this
 * process only, like `timers`: its dispatcher sends them.
 *
 * @since 0.1.0 @category models
 */
export type Channel = "timers" | "events" | "appended" | "deliveries"

/** @since 0.1.0 @category models */
export type Listener = (hint: number | undefined) => void

/** @since 0.1.0 @category models */
export interface Signals {
  /** Tells the channel's listeners, after the enclosing transaction commits (at once outside one). */
  readonly notify: (channel: Channel, hint?: number) => Effect.Effect<void>
  /** Calls `listener` for each signal of `channel` while the scope lives. */
  readonly listen: (channel: Channel, listener: Listener) => Effect.Effect<void, never, Scope.Scope>
}

/** The PostgreSQL channel of `events` (shared by every Kassa on the database). */
const PG_CHANNEL = "kassa_events"

/** What a statement's own `NOTIFY` sends: no process's id, so every process (this one too) hears it. */
const FROM_STATEMENT = "written"

/**
 * @internal
 * PostgreSQL: a `RETURNING` clause for a write that signals `events` to every process on the
 * database, this one included, through `LISTEN/NOTIFY`, when (and only when) it wrote a row and
 * its transaction commits: the signal costs no statement of its own, and a write whose condition
 * left nothing to write wakes nobody. (PostgreSQL sends a transaction's equal notifications once.)
 */
export const returningEvents = (sql: SqlClient.SqlClient) => sql`RETURNING (SELECT pg_notify(${PG_CHANNEL}, ${FROM_STATEMENT}))`

/** How long signals raised after one gather into its `NOTIFY`. */
const GATHER = "20 millis"

/** @internal The signals held by the outermost transaction of the fiber, to send once it commits. */
export const heldSignals = FiberRef.unsafeMake<Array<() => void> | undefined>(undefined)

const inTransaction = (context: Context.Context<never>) =>
  Context.getOption(context, SqlClient.TransactionConnection)._tag === "Some"

/**
 * @internal
 * What a transaction of the driver's sets (with its other locals, `locals.ts`) to hold the signals
 * raised in it; it sends them with `sendAll` once it has committed. Cheaper than `committing`'s
 * region of its own around every transaction.
 */
export const holding = (held: Array<() => void>): Local => [heldSignals, held]

/** @internal Sends the signals a transaction held. */
export const sendAll = (held: ReadonlyArray<() => void>): void => {
  for (const send of held) send()
}

/**
 * Runs `effect` (a transaction other than the driver's, which hold their signals themselves) so
 * that the signals raised in it are sent once it has succeeded; inside an enclosing transaction it
 * is that one's to send them.
 *
 * @since 0.1.0 @category combinators
 */
export const committing = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    if (inTransaction(fiber.getFiberRef(FiberRef.currentContext))) return effect
    const held: Array<() => void> = []
    return Effect.tap(
      Effect.locally(effect, heldSignals, held),
      () => Effect.sync(() => sendAll(held))
    )
  })

/**
 * The signals of one database: in-process listeners, and on PostgreSQL (when `PgClient` is
 * there) `LISTEN/NOTIFY` for `events`.
 *
 * @since 0.1.0 @category constructors
 */
export const make: Effect.Effect<Signals, never, Scope.Scope> = Effect.gen(function*() {
  const listeners = new Map<Channel, Set<Listener>>()
  const call = (channel: Channel, hint: number | undefined) => {
    const set = listeners.get(channel)
    if (set !== undefined) for (const listener of set) listener(hint)
  }
  // This process's own notifications come back through LISTEN: its id in the payload skips them.
  const self = randomId(16)
  const pg = yield* Effect.serviceOption(PgClient.PgClient)
  let sendRemote: () => void = () => {}
  if (Option.isSome(pg)) {
    const client = pg.value
    const pending = yield* Queue.sliding<void>(1)
    sendRemote = () => void Queue.unsafeOffer(pending, undefined)
    yield* Queue.take(pending).pipe(
      // at most one NOTIFY per gathering: a busy server's signals go out together
      Effect.zipRight(RealTime.sleep(GATHER)),
      // (not `PgClient.notify`, whose `NOTIFY channel, $1` the server refuses: NOTIFY takes no parameters)
      Effect.zipRight(client`SELECT pg_notify(${PG_CHANNEL}, ${self})`),
      Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY failed; other processes' sweeps take over", cause)),
      Effect.forever,
      withWork("signals"),
      Effect.forkScoped
    )
    yield* client.listen(PG_CHANNEL).pipe(
      Stream.runForEach((payload) => Effect.sync(() => payload !== self && call("events", undefined))),
      Effect.catchAllCause((cause) => Effect.logWarning("LISTEN failed; the loops fall back to their sweeps", cause)),
      Effect.forkScoped
    )
  }
  const send = (channel: Channel, hint: number | undefined) => () => {
    call(channel, hint)
    if (channel === "events") sendRemote()
  }
  return {
    notify: (channel, hint) =>
      Effect.withFiberRuntime((fiber) => {
        const held = fiber.getFiberRef(heldSignals)
        const signal = send(channel, hint)
        if (held !== undefined && inTransaction(fiber.getFiberRef(FiberRef.currentContext))) held.push(signal)
        else signal()
        return Effect.void
      }),
    listen: (channel, listener) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          let set = listeners.get(channel)
          if (set === undefined) listeners.set(channel, set = new Set())
          set.add(listener)
        }),
        () => Effect.sync(() => void listeners.get(channel)?.delete(listener))
      )
  }
})
