/**
 * When a notification that failed is tried again: after 30 s, 5 min, 15 min, 1 h, then every
 * hour, while less than 24 h have passed since its first attempt. When the next attempt would
 * fall at or past that window, the last attempt has been made and the subject's queue is
 * discarded.
 *
 * The instants count from the first attempt along the schedule (not from when each retry
 * actually ran), so they are a pure function of the first attempt and the number of attempts:
 *
 * | attempt | at (from the first) |
 * |---|---|
 * | 1 | 0 |
 * | 2 | 30 s |
 * | 3 | 5 min 30 s |
 * | 4 | 20 min 30 s |
 * | 5 | 1 h 20 min 30 s |
 * | 6 … 27 | 2 h 20 min 30 s … 23 h 20 min 30 s, hourly |
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/** The waits after the first failures; every later wait is the last one. @since 0.1.0 */
export const DELAYS_MS: ReadonlyArray<number> = [30_000, 5 * 60_000, 15 * 60_000, 60 * 60_000]

/** The window that counts from the first attempt. @since 0.1.0 */
export const WINDOW_MS = 24 * 60 * 60_000

/** The longest wait between attempts. @since 0.1.0 */
export const MAX_DELAY_MS = DELAYS_MS[DELAYS_MS.length - 1]!

/**
 * Milliseconds from the first attempt to attempt number `n` (1-based) along the schedule.
 *
 * @since 0.1.0
 */
export const offsetOfAttempt = (n: number): number => {
  let offset = 0
  for (let i = 1; i < n; i++) offset += DELAYS_MS[Math.min(i - 1, DELAYS_MS.length - 1)]!
  return offset
}

/**
 * The instant of the attempt after `attempts` failed ones that began at `firstAttemptAt`;
 * None when that attempt would not be within 24 h of the first: the last one has been made.
 *
 * @since 0.1.0
 */
export const nextAttemptAt = (firstAttemptAt: Date, attempts: number): Option.Option<Date> => {
  if (!Number.isInteger(attempts) || attempts < 1) return Option.some(firstAttemptAt)
  const offset = offsetOfAttempt(attempts + 1)
  return offset < WINDOW_MS ? Option.some(new Date(firstAttemptAt.getTime() + offset)) : Option.none()
}

/** How many attempts the schedule makes in all. @since 0.1.0 */
export const MAX_ATTEMPTS = (() => {
  let n = 1
  while (offsetOfAttempt(n + 1) < WINDOW_MS) n++
  return n
})()
