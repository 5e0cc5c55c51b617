/**
 * @internal
 * Coalesces writes that independent fibers make at about the same time: each call waits for the
 * batch that carries it. A batch holds every call that arrived while the previous one was being
 * written (at most `maxBatch`; with several `writers`, while all of them were busy), so under
 * light load it is one call and under load one round trip serves many. `write` must be all or
 * nothing (one statement, or one transaction): when a batch fails, each of its calls is written
 * alone, and only a call that fails then fails its caller. A caller interrupted while its call is
 * queued takes the call back; once taken into a batch, the call is written.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as RealTime from "../../internal/realTime.js"

/**
 * @internal
 * The batch's writer runs in the scope: close it after the fibers that call (a scope finalizes in
 * reverse order, so make the batcher before forking them). A batch being written is finished; a
 * call still queued when the scope closes is interrupted.
 */
export const make = <A, E>(
  write: (items: ReadonlyArray<A>) => Effect.Effect<void, E>,
  options: {
    readonly maxBatch: number
    /**
     * How long (real time) a batch waits, once it has a call, for more. For a writer that answers
     * in the same turn of the event loop (SQLite), where nothing arrives while a batch is written.
     */
    readonly linger?: Duration.DurationInput | undefined
    /** Batches written at once (default 1): while all are busy, calls wait together. */
    readonly writers?: number | undefined
    /**
     * Whether a batch that failed so may be written again call by call (default: always). Not
     * when the failure leaves it unknown whether the batch was written (a connection lost while
     * it committed): its calls then fail with it.
     */
    readonly retryAlone?: ((error: E) => boolean) | undefined
  }
): Effect.Effect<(item: A) => Effect.Effect<void, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<void, E>]>()
    const retryable = (cause: Cause.Cause<E>) =>
      options.retryAlone === undefined || Option.match(Cause.failureOption(cause), { onNone: () => true, onSome: options.retryAlone })
    const writeEntries = (entries: ReadonlyArray<readonly [A, Deferred.Deferred<void, E>]>) =>
      Effect.flatMap(Effect.exit(write(entries.map(([item]) => item))), (exit) =>
        Exit.isSuccess(exit) || entries.length === 1 || !retryable(exit.cause)
          ? Effect.forEach(entries, ([, done]) => Deferred.done(done, exit), { discard: true })
          // A batch is all or nothing: one bad call must not fail the others, so each goes alone.
          : Effect.forEach(entries, ([item, done]) => Effect.flatMap(Effect.exit(write([item])), (own) => Deferred.done(done, own)), {
            discard: true
          }))
    const writeBatch = (batch: Chunk.Chunk<readonly [A, Deferred.Deferred<void, E>]>) =>
      // A call whose caller gave up while it was queued is not written.
      Effect.filter(Chunk.toReadonlyArray(batch), ([, done]) => Effect.map(Deferred.isDone(done), (given) => !given)).pipe(
        Effect.flatMap((entries) => entries.length === 0 ? Effect.void : writeEntries(entries)),
        Effect.uninterruptible
      )
    const linger = options.linger === undefined ? undefined : RealTime.sleep(options.linger)
    // What was taken is written whatever happens next: a shutdown waits for it.
    const more = (first: Chunk.Chunk<readonly [A, Deferred.Deferred<void, E>]>) =>
      linger === undefined || Chunk.size(first) >= options.maxBatch
        ? writeBatch(first)
        : Effect.zipRight(linger, Queue.takeUpTo(queue, options.maxBatch - Chunk.size(first))).pipe(
          Effect.flatMap((rest) => writeBatch(Chunk.appendAll(first, rest))),
          Effect.uninterruptible
        )
    const writer = Queue.takeBetween(queue, 1, options.maxBatch).pipe(
      Effect.flatMap(more),
      Effect.forever,
      Effect.onInterrupt(() =>
        Effect.flatMap(Queue.takeAll(queue), (left) => Effect.forEach(left, ([, done]) => Deferred.interrupt(done), { discard: true }))
      )
    )
    for (let i = 0; i < (options.writers ?? 1); i++) yield* Effect.forkScoped(writer)
    return (item: A) =>
      Effect.flatMap(Deferred.make<void, E>(), (done) =>
        Effect.zipRight(
          Queue.offer(queue, [item, done]),
          Effect.onInterrupt(Deferred.await(done), () => Deferred.interrupt(done))
        ))
  })
