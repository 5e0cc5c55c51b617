import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** @internal A concurrent command changed the aggregate between our read and our write. */
export class VersionConflict extends Data.TaggedError("VersionConflict")<{ readonly what: string }> {}

/**
 * @internal
 * Runs a read-decide-write command again when its optimistic write lost a race. After a few
 * lost races the conflict is a defect: something is hammering one aggregate.
 */
export const retryOnConflict = <A, E, R>(command: Effect.Effect<A, E | VersionConflict, R>): Effect.Effect<A, Exclude<E, VersionConflict>, R> =>
  command.pipe(
    Effect.retry({ times: 8, while: (e) => e instanceof VersionConflict }),
    Effect.catchIf((e): e is VersionConflict => e instanceof VersionConflict, (e) => Effect.die(e))
  ) as Effect.Effect<A, Exclude<E, VersionConflict>, R>

/**
 * @internal
 * The aggregate a command's attempts decide on: `known`, the caller's copy, for the first one
 * (a read saved), then fresh reads. A decision on the copy may be stale: the optimistic write
 * catches that, and a refusal or a no-op decided on it must be decided again (`stale`: fail
 * with a `VersionConflict` to retry on a fresh read). Make one per run of the command.
 */
export const knownFirst = <A, E, R>(known: A | undefined, read: Effect.Effect<A, E, R>) => {
  let hint = known
  return Effect.suspend(() => {
    const copy = hint
    hint = undefined
    return copy === undefined
      ? Effect.map(read, (value) => ({ value, stale: false }))
      : Effect.succeed({ value: copy, stale: true })
  })
}
