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
    const queue = yield* Queue.unbounded<Entry<A, E>>()
    const retryable = (cause: Cause.Cause<E>) =>
      options.retryAlone === undefined || Option.match(Cause.failureOption(cause), { onNone: () => true, onSome: options.retryAlone })
    const writeEntries = (entries: ReadonlyArray<Entry<A, E>>) =>
      Effect.flatMap(Effect.exit(write(entries.map((entry) => entry.item))), (exit) =>
        Exit.isSuccess(exit) || entries.length === 1 || !retryable(exit.cause)
          ? Effect.sync(() => {
            for (const entry of entries) entry.resume(exit)
          })
          // A batch is all or nothing: one bad call must not fail the others, so each goes alone.
          : Effect.forEach(entries, (entry) => Effect.map(Effect.exit(write([entry.item])), (own) => entry.resume(own)), {
            discard: true
          }))
    const writeBatch = (batch: Chunk.Chunk<Entry<A, E>>) => {
      // A call whose caller gave up while it was queued is not written.
      const entries = Chunk.toReadonlyArray(batch).filter((entry) => !entry.given)
      return entries.length === 0 ? Effect.void : Effect.uninterruptible(writeEntries(entries))
    }
    const linger = options.linger === undefined ? undefined : RealTime.sleep(options.linger)
    // What was taken is written whatever happens next: a shutdown waits for it.
    const more = (first: Chunk.Chunk<Entry<A, E>>) =>
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
        Effect.flatMap(Queue.takeAll(queue), (left) =>
          Effect.sync(() => {
            for (const entry of left) entry.resume(Effect.interrupt)
          }))
      )
    )
    for (let i = 0; i < (options.writers ?? 1); i++) yield* Effect.forkScoped(writer)
    // The caller waits on its own entry: no Deferred, no effectful offer; its interruption marks
    // the entry given up, which the writer skips if it has not taken it yet.
    return (item: A) =>
      Effect.async<void, E>((resume) => {
        const entry: Entry<A, E> = { item, resume, given: false }
        queue.unsafeOffer(entry)
        return Effect.sync(() => {
          entry.given = true
        })
      })
  })

/** A queued call: its item, how to answer its caller, and whether the caller gave up waiting. */
interface Entry<A, E> {
  readonly item: A
  readonly resume: (answer: Effect.Effect<void, E>) => void
  given: boolean
}
