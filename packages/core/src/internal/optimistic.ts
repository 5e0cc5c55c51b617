import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Contention from "../Contention.js"
import { BusinessError } from "../Errors.js"

/** @internal A concurrent command changed the aggregate between our read and our write. */
export class VersionConflict extends Data.TaggedError("VersionConflict")<{ readonly what: string }> {}

/**
 * After a lost race the command runs again at once (a stale copy is the common case); races lost
 * after that mean a queue on one aggregate: back off, jittered, on Effect's clock, up to ~10 s in all.
 */
const afterConflict = Schedule.recurs(1).pipe(
  Schedule.andThen(
    Schedule.exponential("2 millis").pipe(
      Schedule.union(Schedule.spaced("100 millis")),
      Schedule.jitteredWith({ min: 0.5, max: 1.5 }),
      Schedule.intersect(Schedule.recurs(100))
    )
  )
)

/**
 * @internal
 * Runs a read-decide-write command again when its optimistic write lost a race, until it wins
 * (retries that read with `knownFirst` read under `Contention.expected`, and queue). Past the generous bound
 * the conflict is a defect: something is hammering one aggregate.
 */
export const retryOnConflict = <A, E, R>(command: Effect.Effect<A, E | VersionConflict, R>): Effect.Effect<A, Exclude<E, VersionConflict>, R> =>
  command.pipe(
    Effect.retry({ schedule: afterConflict, while: (e) => e instanceof VersionConflict }),
    Effect.catchIf((e): e is VersionConflict => e instanceof VersionConflict, (e) => Effect.die(e))
  ) as Effect.Effect<A, Exclude<E, VersionConflict>, R>

/**
 * @internal
 * The aggregate a command's attempts decide on: `known`, the caller's copy, for the first one
 * (a read saved), then fresh reads. A decision on the copy may be stale: the optimistic write
 * catches that, and a refusal or a no-op decided on it must be decided again (`stale`: fail
 * with a `VersionConflict` to retry on a fresh read). Once an attempt has lost a race, the next
 * ones read under `Contention.expected` (storage keeps the row for the transaction), so concurrent
 * commands queue instead of racing again; an uncontended command never pays for the lock. Make one
 * per run of the command.
 */
export const knownFirst = <A, E, R>(known: A | undefined, read: Effect.Effect<A, E, R>) => {
  let attempts = 0
  return Effect.suspend(() => {
    const attempt = attempts++
    if (attempt === 0 && known !== undefined) return Effect.succeed({ value: known, stale: true })
    return Effect.map(attempt === 0 ? read : Contention.expected(read), (value) => ({ value, stale: false }))
  })
}

/** @internal One attempt of a read-decide-write command. */
export interface Attempt<S> {
  /** The aggregate as this attempt read it. */
  readonly current: S
  /** Decided on the caller's copy, which may be stale: a refusal or a no-op must be decided again. */
  readonly stale: boolean
  /** Writes `next` at the version read, its version bumped; a lost race runs the command again. */
  readonly save: (next: S) => Effect.Effect<S, VersionConflict>
  /** Ends an attempt that changes nothing; on a stale copy the command runs again on a fresh read instead. */
  readonly unchanged: Effect.Effect<void, VersionConflict>
}

/** @internal How a command reads and writes its aggregate. */
export interface CommandSpec<S, E, R> {
  /** A fresh read; retries read it under `Contention.expected`. */
  readonly read: Effect.Effect<S, E, R>
  /** The caller's copy, which saves the first attempt its read. */
  readonly known?: S | undefined
  readonly update: (next: S, expectedVersion: number) => Effect.Effect<boolean>
  /** Names the aggregate in a conflict. */
  readonly what: string
}

const isBusinessError = (e: unknown): boolean => e instanceof BusinessError

/**
 * @internal
 * The read-decide-write runner: one transaction that reads the aggregate (the caller's copy
 * first), lets `body` decide and `save`, and runs again when the optimistic write lost a race. A
 * business refusal decided on the caller's copy is decided again on a fresh read.
 */
export const command = <S extends { readonly version: number }, A, E, R, E1, R1>(
  withTransaction: <X, EX, RX>(effect: Effect.Effect<X, EX, RX>) => Effect.Effect<X, EX, RX>,
  spec: CommandSpec<S, E1, R1>,
  body: (attempt: Attempt<S>) => Effect.Effect<A, E | VersionConflict, R>
): Effect.Effect<A, Exclude<E, VersionConflict> | E1, R | R1> =>
  Effect.suspend(() => {
    const read = knownFirst(spec.known, spec.read)
    // made only when a race is lost: an error captures a stack, and most commands win
    const conflict = Effect.suspend(() => Effect.fail(new VersionConflict({ what: spec.what })))
    const transaction = withTransaction(Effect.flatMap(read, ({ stale, value }) => {
      const attempt = body({
        current: value,
        stale,
        save: (next) => {
          const saved = { ...next, version: value.version + 1 }
          return Effect.flatMap(spec.update(saved, value.version), (ok) => (ok ? Effect.succeed(saved) : conflict))
        },
        unchanged: stale ? conflict : Effect.void
      })
      return stale ? Effect.catchIf(attempt, isBusinessError, () => conflict) : attempt
    }))
    // storage may check the version as the transaction's writes go, and answer a lost race then
    return retryOnConflict(Effect.locally(transaction, Contention.retried, true).pipe(
      Effect.catchSomeDefect((defect) => defect instanceof Contention.Conflict ? Option.some(conflict) : Option.none())
    ))
  }) as Effect.Effect<A, Exclude<E, VersionConflict> | E1, R | R1>
