/**
 * Durable timers: work due at a moment (due dates, processing deadlines, hold expiry, webhook
 * retries) stored in the database so a restart loses nothing. A scheduler fiber fires them.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** @since 0.1.0 @category models */
export interface Timer {
  readonly kind: string
  readonly subject: string
  readonly dueAt: Date
  readonly payload: unknown
}

/** @since 0.1.0 @category tags */
export class Timers extends Context.Tag("kassa/Timers")<Timers, {
  /** Sets (or moves) the timer of `kind` for `subject`. */
  readonly schedule: (timer: Timer) => Effect.Effect<void>
  /** Sets (or moves) several timers at once; of two for one kind and subject, the later wins. */
  readonly scheduleAll: (timers: ReadonlyArray<Timer>) => Effect.Effect<void>
  readonly cancel: (kind: string, subject: string) => Effect.Effect<void>
  /** Removes several timers at once. */
  readonly cancelAll: (timers: ReadonlyArray<Pick<Timer, "kind" | "subject">>) => Effect.Effect<void>
  /**
   * Names the work to run when a timer of `kind` fires. The handler runs in a transaction with
   * the timer's removal; it must tolerate running twice (a crash after it committed its work
   * but before the timer row was removed cannot happen, but a retry after a failure can).
   */
  readonly register: (kind: string, handler: (timer: Timer) => Effect.Effect<void>) => Effect.Effect<void>
}>() {}
