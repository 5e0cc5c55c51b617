import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Contention from "../Contention.js"

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
