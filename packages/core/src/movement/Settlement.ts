/**
 * How a movement's money moves, written once for deposits, reverts, adjustments and transfers:
 * `holdChecked` holds its plan and tells whether the debited account can still cover every
 * held debit; `settle` applies the machine's decision to the stored movement and, in the same
 * transaction, commits or rolls back its plan; `processing` runs the settling step in the
 * background at once and from a durable timer after a crash.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Optimistic from "../internal/optimistic.js"
import type { Ledger, Posting } from "../ports/Ledger.js"
import * as Recovery from "../Recovery.js"
import type { Timers } from "../ports/Timers.js"
import type { Transactions } from "../ports/Transactions.js"
import type { Settings } from "../Settings.js"
import { decide, type MovementCommand, type MovementState } from "./Movement.js"

/** @since 0.1.0 @category models */
export interface Stored extends MovementState {
  readonly version: number
}

/**
 * Holds `postings` as the plan's first batch; answers whether `debited` can still cover every
 * debit held on it (its min-available is not below zero). Runs inside the caller's transaction,
 * whose ledger rows serialise concurrent holds on one account.
 *
 * @since 0.1.0
 */
export const holdChecked = (ledger: Ledger["Type"], plan: string, postings: ReadonlyArray<Posting>, debited: number) =>
  Effect.gen(function*() {
    yield* ledger.hold(plan, { id: 1, postings })
    const balance = yield* ledger.balance(debited)
    return Option.isSome(balance) && balance.value.minAvailable >= 0
  })

/** @since 0.1.0 @category models */
export interface SettleSpec<S extends Stored, E, R> {
  readonly read: Effect.Effect<S, E, R>
  readonly update: (next: S, expectedVersion: number) => Effect.Effect<boolean>
  readonly what: string
  readonly plan: string
  /** More work of the same transaction once the status moved (a deposit's revert total, say). */
  readonly moved?: ((settled: S) => Effect.Effect<void, Optimistic.VersionConflict, R>) | undefined
}

/**
 * Applies `command` to the stored movement: when its status moves, the plan is committed or
 * rolled back with it; a settled movement stays as it is.
 *
 * @since 0.1.0
 */
export const settle = <S extends Stored, E, R>(
  tx: Transactions["Type"],
  ledger: Ledger["Type"],
  spec: SettleSpec<S, E, R>,
  command: MovementCommand
) =>
  Optimistic.command(tx.withTransaction, { read: spec.read, update: spec.update, what: spec.what }, ({ current, save, unchanged }) =>
    Effect.gen(function*() {
      const decision = decide(current, command)
      if (decision.plan === undefined) {
        yield* unchanged
        return current
      }
      const saved = yield* save({ ...current, status: decision.state.status, failure: decision.state.failure })
      yield* (decision.plan === "commit" ? ledger.commit(spec.plan) : ledger.rollback(spec.plan))
      if (spec.moved !== undefined) yield* spec.moved(saved)
      return saved
    }))

/**
 * The background step of a kind of movement: `kick` runs `step(subject)` detached once the
 * creating transaction committed; the timer `kind`, set with `schedule` inside it, runs it
 * again after `recoveryDelayMs` if a crash lost it, then with the recovery backoff (`Recovery`).
 *
 * @since 0.1.0
 */
export const processing = (
  deps: { readonly timers: Timers["Type"]; readonly tx: Transactions["Type"]; readonly settings: Settings },
  kind: string,
  step: (subject: string) => Effect.Effect<void, unknown>
) =>
  Effect.gen(function*() {
    const { settings, timers, tx } = deps
    const run = (subject: string) =>
      step(subject).pipe(
        Effect.zipRight(timers.cancel(kind, subject)),
        Effect.catchAll((e) => Effect.logWarning(`${kind} refused`, e))
      )
    yield* timers.register(kind, (timer) =>
      Effect.gen(function*() {
        yield* timers.schedule(yield* Recovery.next(settings, timer, yield* Clock.currentTimeMillis))
        yield* tx.background(run(timer.subject))
      }))
    return {
      schedule: (subject: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          timers.schedule({ kind, subject, dueAt: new Date(now + settings.recoveryDelayMs), payload: null })),
      kick: (subject: string) => tx.background(run(subject))
    } as const
  })
