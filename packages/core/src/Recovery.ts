/**
 * The recovery timers' schedule: background work an acquirer interrupted is retried after
 * `recoveryDelayMs`, the wait doubling after each further attempt up to `recoveryMaxDelayMs`, and
 * never past the work's own end (a payment's processing deadline, a refund's retry window, a
 * binding's deadline), where the work ends instead.
 *
 * The timers stay durable: the attempt count travels in the timer's payload, stored with it, so a
 * restarted process resumes the schedule where it was (no retry lost or doubled).
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { Timer } from "./ports/Timers.js"

/** @since 0.1.0 @category models */
export interface Backoff {
  readonly recoveryDelayMs: number
  readonly recoveryMaxDelayMs: number
}

/** Exponential from the first delay, doubling, capped (the union waits the shorter of the two). @since 0.1.0 */
export const schedule = (settings: Backoff): Schedule.Schedule<Duration.Duration> =>
  Schedule.delays(Schedule.union(
    Schedule.exponential(Duration.millis(settings.recoveryDelayMs), 2),
    Schedule.spaced(Duration.millis(Math.max(settings.recoveryDelayMs, settings.recoveryMaxDelayMs)))
  ))

/** The waits before the first `count` retries. @since 0.1.0 */
export const delays = (settings: Backoff, count: number): Effect.Effect<ReadonlyArray<number>> =>
  count <= 0
    ? Effect.succeed([])
    : Effect.map(
      Schedule.run(schedule(settings), 0, Array.from({ length: count }, () => undefined)),
      (out) => Chunk.toReadonlyArray(out).map(Duration.toMillis)
    )

/** The wait after the retry numbered `attempt` (0 for the first). @since 0.1.0 */
export const delayOf = (settings: Backoff, attempt: number): Effect.Effect<number> =>
  Effect.map(delays(settings, attempt + 1), (all) => all[all.length - 1]!)

/** The retries a recovery timer already made, from its payload (none for a fresh one). @since 0.1.0 */
export const attemptOf = (timer: Pick<Timer, "payload">): number => {
  const p = timer.payload
  if (typeof p === "object" && p !== null && "attempt" in p) {
    const n = (p as { readonly attempt: unknown }).attempt
    if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n
  }
  return 0
}

/**
 * The timer moved to the next retry: due after the backoff of this attempt, or at `endsAt` if
 * that comes first, with the count of attempts made. An end already reached does not make it due
 * at once again (the work ends it now; should that fail, the backoff still spaces the retries).
 *
 * @since 0.1.0
 */
export const next = (settings: Backoff, timer: Timer, now: number, endsAt?: number): Effect.Effect<Timer> =>
  Effect.map(delayOf(settings, attemptOf(timer)), (delay) => {
    return { ...timer, dueAt: new Date(dueBy(now + delay, now, endsAt)), payload: { attempt: attemptOf(timer) + 1 } }
  })

/** `due`, or `endsAt` if it comes first and is still ahead of `now`. @since 0.1.0 */
export const dueBy = (due: number, now: number, endsAt?: number): number =>
  endsAt !== undefined && endsAt > now ? Math.min(due, endsAt) : due
