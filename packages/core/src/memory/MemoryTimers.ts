/**
 * `Timers` in memory, and the scheduler fiber that fires them on Effect's `Clock`: it sleeps
 * until the earliest timer is due (or one is scheduled), so a `TestClock` moved ahead fires
 * exactly the timers that came due, in order.
 *
 * As on SQL, a due timer is claimed for a lease, then its handler runs in one transaction with
 * the timer's removal; a handler that fails leaves the timer to be retried when the lease ends.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { type Timer, Timers } from "../ports/Timers.js"
import { asJson, key, MemoryStore } from "./MemoryStore.js"

interface StoredTimer {
  readonly kind: string
  readonly subject: string
  readonly dueAt: number
  readonly payload: unknown
  readonly attempts: number
  readonly lockedUntil: number | undefined
}

/**
 * Runs the timers due now; answers how many fired. Passes take turns with the scheduler
 * fiber's, so once `runDue` answers, every timer due now has fired (by this pass or the one
 * before it), its handler committed.
 *
 * @since 0.1.0 @category tags
 */
export class MemoryScheduler extends Context.Tag("kassa/MemoryScheduler")<MemoryScheduler, {
  readonly runDue: Effect.Effect<number>
}>() {}

/** @since 0.1.0 @category models */
export interface Options {
  /** How long a claimed timer stays locked (default 1 minute). */
  readonly lease?: Duration.DurationInput | undefined
  /** Whether the scheduler fiber runs (default true). Without it, call `MemoryScheduler.runDue` yourself. */
  readonly run?: boolean | undefined
}

/** At most this many timers fire in one pass, as on SQL. */
const PER_PASS = 200

/**
 * `Timers` and `MemoryScheduler`; the scheduler fiber runs while the layer lives.
 *
 * @since 0.1.0 @category layers
 */
export const layerMemory = (options: Options = {}): Layer.Layer<Timers | MemoryScheduler, never, MemoryStore> =>
  Layer.scopedContext(Effect.gen(function*() {
    const store = yield* MemoryStore
    const table = store.table<StoredTimer>("timers")
    const handlers = new Map<string, (timer: Timer) => Effect.Effect<void>>()
    const leaseMs = Duration.toMillis(options.lease ?? "1 minute")
    const wake = yield* Queue.sliding<void>(1)
    const signal = store.afterCommit(() => void Queue.unsafeOffer(wake, undefined))

    const set = (t: Timer) =>
      table.set(key(t.kind, t.subject), {
        kind: t.kind,
        subject: t.subject,
        dueAt: t.dueAt.getTime(),
        payload: asJson(t.payload),
        attempts: 0,
        lockedUntil: undefined
      })

    const timers: Timers["Type"] = {
      schedule: (t) => Effect.zipRight(set(t), signal),
      scheduleAll: (ts) =>
        ts.length === 0 ? Effect.void : Effect.zipRight(store.transaction(Effect.forEach(ts, set, { discard: true })), signal),
      cancel: (kind, subject) => table.delete(key(kind, subject)),
      cancelAll: (ts) => store.transaction(Effect.forEach(ts, (t) => table.delete(key(t.kind, t.subject)), { discard: true })),
      register: (kind, handler) => Effect.zipRight(Effect.sync(() => void handlers.set(kind, handler)), signal)
    }

    /** When a timer of a registered kind may fire next. */
    const readyAt = (t: StoredTimer) => Math.max(t.dueAt, t.lockedUntil ?? 0)

    const fireOne = (t: StoredTimer, now: number) =>
      Effect.gen(function*() {
        const handler = handlers.get(t.kind)
        if (handler === undefined) return false
        const name = key(t.kind, t.subject)
        // the claim commits on its own, as the SQL scheduler's UPDATE does
        const claimed = yield* store.transaction(Effect.flatMap(table.get(name), (found) => {
          if (Option.isNone(found)) return Effect.succeed(false)
          const current = found.value
          if (current.dueAt !== t.dueAt || (current.lockedUntil !== undefined && current.lockedUntil > now)) return Effect.succeed(false)
          return Effect.as(table.set(name, { ...current, lockedUntil: now + leaseMs, attempts: current.attempts + 1 }), true)
        }))
        if (!claimed) return false
        const timer: Timer = { kind: t.kind, subject: t.subject, dueAt: new Date(t.dueAt), payload: t.payload }
        yield* store.transaction(Effect.zipRight(
          handler(timer),
          // removed unless moved meanwhile (scheduled again with another due time)
          Effect.flatMap(table.get(name), (found) =>
            Option.isSome(found) && found.value.dueAt === t.dueAt ? table.delete(name) : Effect.void)
        ))
        return true
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning("timer handler failed; it will be retried", cause).pipe(
            Effect.annotateLogs({ kind: t.kind, subject: t.subject }),
            Effect.as(false)
          )
        )
      )

    const pass = yield* Effect.makeSemaphore(1)
    const runDue = pass.withPermits(1)(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const due = (yield* store.detached(table.values))
        .filter((t) => handlers.has(t.kind) && t.dueAt <= now && (t.lockedUntil === undefined || t.lockedUntil <= now))
        .sort((a, b) => a.dueAt - b.dueAt)
        .slice(0, PER_PASS)
      let fired = 0
      for (const t of due) if (yield* store.detached(fireOne(t, now))) fired++
      return fired
    }))

    /** Until the next timer may fire, or something is scheduled. */
    const pause = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const next = (yield* store.detached(table.values)).filter((t) => handlers.has(t.kind)).map(readyAt)
      const sleep = next.length === 0 ? Effect.never : Effect.sleep(Duration.millis(Math.max(0, Math.min(...next) - now)))
      yield* Effect.raceFirst(Queue.take(wake), sleep)
    })

    if (options.run !== false) {
      yield* runDue.pipe(
        Effect.catchAllCause((cause) => Effect.logError("timer scheduler pass failed", cause)),
        Effect.zipRight(pause),
        Effect.forever,
        Effect.forkScoped
      )
    }

    return Context.make(Timers, timers).pipe(Context.add(MemoryScheduler, { runDue }))
  }))
