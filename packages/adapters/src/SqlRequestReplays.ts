/**
 * Replays the first answer to a repeated request: the same key (the server derives it from the
 * `X-Request-ID`, the caller, method, path and body) within 24 hours answers the first answer's
 * status and body again, without running again.
 *
 * Design, and what it costs:
 * - The key is claimed by the request's own first transaction that writes (`Transactions`): its
 *   row (key, time) is one more held write of that transaction, so on PostgreSQL it goes in the
 *   statement the transaction sends anyway (no statement, no round trip more); on SQLite it is
 *   one more statement on the unit's connection, in-process. Nothing is read before running.
 * - A second request with the key finds it taken when its own transaction claims it: its unique
 *   key fails that transaction, which rolls back with everything it wrote, and the stored answer
 *   is replayed. PostgreSQL makes a concurrent claim wait for the first one's commit.
 * - In this process, a request whose key is in flight does not run: it waits for the first
 *   one's answer (the cache in front of the table; it holds only requests in flight and answers
 *   not yet stored).
 * - The answer is stored once the request has answered, off the request's path: one writer
 *   takes the answers queued within 20 ms into one statement (under load one per many
 *   requests; no fiber per request), which also deletes a bounded number of rows older than 24
 *   hours. An expired row found by a claim is deleted
 *   and the request runs again.
 * - A request that wrote nothing claims nothing: its answer (a refusal, say) is not stored and a
 *   retry runs again, which is safe since the first changed nothing, and answers afresh (a retry
 *   after the merchant fixed the cause succeeds). Such a request reads the table once after
 *   running: a retry refused because the first one ran (a payment on an invoice it paid) is
 *   answered the first one's answer. Only writes made through `write`/`writeAll` in a unit or
 *   transaction count as the request's writes.
 * - The server stores answers sealed, under keys derived from the whole request.
 *
 * Crash story: the claim commits with the request's effect, or neither does, so a request never
 * runs twice. A crash between that commit and the storing of the answer (milliseconds) leaves a
 * claim without an answer (at most the last 20 ms of answers): a retry then runs nothing and is answered that the outcome is unknown
 * (the objects it made can be read).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Fibers from "@kassa/core/Fibers"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Context from "effect/Context"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RealTime from "./internal/realTime.js"
import { type Claim, currentClaim, isDuplicate } from "./internal/requestClaims.js"
import { changing, writeAll } from "./sql/driver/writes.js"
import { shutdownGrace } from "./SqlTransactions.js"
import { withWork } from "./sql/driver/Statements.js"

export type { Claim } from "./internal/requestClaims.js"

/**
 * Whether a request's failure is its claim finding the key taken (see `RequestReplays.stored`).
 *
 * @since 0.1.0
 */
export { isDuplicate }

/** How long an answer is replayed. @since 0.1.0 */
export const replayHours = 24

const WINDOW_MS = replayHours * 3_600_000

/**
 * An answer: its status and its body as the server stores it (sealed), null when it has none.
 *
 * @since 0.1.0 @category models
 */
export interface Answer {
  readonly status: number
  readonly body: string | null
}

/** @since 0.1.0 @category models */
export type Start =
  /** Run the request after `claim(claim)`, then `finish` it. */
  | { readonly _tag: "Run"; readonly claim: Claim }
  | { readonly _tag: "Replay"; readonly answer: Answer }
  /** The key is in flight here: what to do once the first request with it has answered. */
  | { readonly _tag: "Wait"; readonly wait: Effect.Effect<Start> }

/** @since 0.1.0 @category models */
export type Stored =
  | { readonly _tag: "Replay"; readonly answer: Answer }
  /** No row, or one that had expired (it is gone now): run the request again. */
  | { readonly _tag: "Expired" }
  /** The first request ran, but its answer is not stored (it crashed meanwhile, or runs still). */
  | { readonly _tag: "Lost" }

/** @since 0.1.0 @category tags */
export class RequestReplays extends Context.Tag("kassa/RequestReplays")<RequestReplays, {
  /**
   * Replays the answer of the request with `key` in flight in this process, or starts this one
   * (`now`: the clock's time). Synchronous, as `finish`: every request with an id calls both.
   */
  readonly start: (key: string, now: number) => Start
  /** The request answered `answer` (or nothing): stores it when its claim was written. */
  readonly finish: (claim: Claim, answer: Option.Option<Answer>) => void
  /**
   * The stored answer of `claim`'s key: after another request claimed it (`isDuplicate`), waiting
   * a little for an answer not stored yet; or "now", as it is.
   */
  readonly stored: (claim: Claim, mode: "wait" | "now") => Effect.Effect<Stored>
}>() {}

/**
 * Gives the current fiber (a request's) `claim`, to be written by its first transaction that
 * writes. It stays the fiber's: set it on a fiber that runs the one request.
 *
 * @since 0.1.0
 */
export const claim = (claim: Claim): Effect.Effect<void> => FiberRef.set(currentClaim, claim)

/**
 * `claim`, in the step the caller is in: gives `fiber`, the running fiber (the caller's
 * `Effect.withFiberRuntime` or a continuation of it), `claim`. For a request's path, where
 * `claim` then the request would cost three steps.
 *
 * @since 0.1.0
 */
export const claimOn = (fiber: Fiber.RuntimeFiber<unknown, unknown>, claim: Claim): void =>
  Fibers.unsafeSetRefs(fiber, FiberRefs.updateAs(fiber.getFiberRefs(), { fiberId: fiber.id(), fiberRef: currentClaim, value: claim }))

interface InFlight {
  readonly claim: Claim
  /** Made when a second request with the key arrives: what the first answered. */
  answered?: Deferred.Deferred<Option.Option<Answer>>
  /** Set once the first has answered. */
  answer?: Option.Option<Answer>
}

/** Rows older than 24 hours deleted with each batch of answers: more than a batch adds. */
const PRUNED_PER_BATCH = 128
/** Answers stored in one statement at most. */
const MAX_BATCH = 256
/**
 * How long (real time) the first answer of a batch waits for others: under load a batch then
 * carries many answers (one statement for them all), and a crash loses at most this much.
 */
const LINGER = "20 millis"
/** How long a claim without an answer is waited for (another process may be storing it). */
const ANSWER_WAIT = { tries: 20, every: "100 millis" } as const

/** @since 0.1.0 @category layers */
export const layer = Layer.scoped(
  RequestReplays,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tx = yield* Transactions
    const inFlight = new Map<string, InFlight>()

    // Answers go to the store off the requests' paths: an array and one writer, woken when the
    // array gets its first answer (a request adds one without an Effect step).
    type Pending = readonly [entry: InFlight, answer: Answer, now: number]
    let pending: Array<Pending> = []
    let wake = Deferred.unsafeMake<void>(FiberId.none)
    const takeUpTo = (n: number): Array<Pending> => {
      const taken = pending.length <= n ? pending : pending.slice(0, n)
      pending = pending.length <= n ? [] : pending.slice(n)
      return taken
    }
    const write = (batch: ReadonlyArray<readonly [InFlight, Answer, number]>) =>
      tx.withTransaction(writeAll(sql, [
        // one statement for the batch (VALUES columns are column1.. on both dialects); an answer goes
        // only to its own claim's row: a key that expired and was claimed again in the meantime has
        // a row of the later claim, which an earlier answer still queued must not take
        changing(
          "request_replays",
          sql`UPDATE request_replays SET status = v.column2, body = v.column3 FROM (VALUES ${
            sql.csv(batch.map(([{ claim }, { body, status }]) =>
              sql`(${claim.key}, CAST(${status} AS INTEGER), CAST(${body} AS TEXT), CAST(${claim.createdAt} AS BIGINT))`
            ))
          }) AS v WHERE request_replays.key = v.column1 AND request_replays.created_at = v.column4`
        ),
        changing(
          "request_replays",
          sql`DELETE FROM request_replays WHERE key IN (
            SELECT key FROM request_replays WHERE created_at <= ${batch[0]![2] - WINDOW_MS}
            ORDER BY created_at LIMIT ${PRUNED_PER_BATCH})`
        )
      ])).pipe(
        withWork("requestReplays"),
        Effect.catchAllCause((cause) => Effect.logError("storing requests' answers failed", cause)),
        // once stored, a repeated request finds the answer in the table
        Effect.ensuring(Effect.sync(() => {
          for (const [entry] of batch) if (inFlight.get(entry.claim.key) === entry) inFlight.delete(entry.claim.key)
        })),
        Effect.locally(currentClaim, undefined)
      )
    const writeAllPending = Effect.suspend(() =>
      Effect.forEach(Chunk.chunksOf(Chunk.unsafeFromArray(takeUpTo(Infinity)), MAX_BATCH), (batch) => write(Chunk.toReadonlyArray(batch)), {
        discard: true
      })
    ).pipe(Effect.uninterruptible)
    // What was taken is written whatever happens next: closing waits for it.
    yield* Effect.suspend(() => pending.length > 0 ? Effect.void : Deferred.await(wake)).pipe(
      Effect.zipRight(
        RealTime.sleep(LINGER).pipe(
          Effect.zipRight(Effect.suspend(() => {
            wake = Deferred.unsafeMake<void>(FiberId.none)
            return write(takeUpTo(MAX_BATCH))
          })),
          Effect.uninterruptible
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    // Closing stores what is still queued (added after the writer: it runs before its interruption).
    yield* Effect.addFinalizer(() => writeAllPending.pipe(Effect.timeout(shutdownGrace), Effect.ignore))

    const start = (key: string, now: number): Start => {
      const first = inFlight.get(key)
      if (first === undefined || now - first.claim.createdAt >= WINDOW_MS) {
        const claim: Claim = { key, createdAt: now, taken: false }
        inFlight.set(key, { claim })
        return { _tag: "Run", claim }
      }
      const replayOrRun = (answer: Option.Option<Answer>): Start => {
        if (Option.isSome(answer)) return { _tag: "Replay", answer: answer.value }
        // It wrote nothing: this one runs (after the others that waited, one at a time).
        if (inFlight.get(key) === first) inFlight.delete(key)
        return start(key, now)
      }
      if (first.answer !== undefined) return replayOrRun(first.answer)
      return { _tag: "Wait", wait: Effect.map(Deferred.await(first.answered ??= Deferred.unsafeMake(FiberId.none)), replayOrRun) }
    }

    const finish = (claim: Claim, answer: Option.Option<Answer>): void => {
      const entry = inFlight.get(claim.key)
      if (entry === undefined || entry.claim !== claim) return
      const kept = claim.taken && Option.isSome(answer)
      entry.answer = kept ? answer : Option.none()
      if (!kept) inFlight.delete(claim.key)
      if (entry.answered !== undefined) Deferred.unsafeDone(entry.answered, Exit.succeed(entry.answer))
      if (kept) {
        pending.push([entry, answer.value, claim.createdAt])
        if (pending.length === 1) Deferred.unsafeDone(wake, Exit.void)
      }
    }

    const read = (key: string) =>
      sql<{ readonly createdAt: number | string; readonly status: number | null; readonly body: string | null }>`
        SELECT created_at, status, body FROM request_replays WHERE key = ${key}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )

    const stored = (claim: Claim, mode: "wait" | "now"): Effect.Effect<Stored> =>
      Effect.gen(function*() {
        for (let i = 0; i < (mode === "wait" ? ANSWER_WAIT.tries : 1); i++) {
          const row = yield* read(claim.key)
          if (Option.isNone(row)) return { _tag: "Expired" } as const
          const createdAt = Number(row.value.createdAt)
          if (createdAt <= claim.createdAt - WINDOW_MS) {
            yield* sql`DELETE FROM request_replays WHERE key = ${claim.key} AND created_at = ${createdAt}`.pipe(Effect.orDie)
            return { _tag: "Expired" } as const
          }
          if (row.value.status !== null) {
            return { _tag: "Replay", answer: { status: row.value.status, body: row.value.body } } as const
          }
          if (mode === "wait") yield* RealTime.sleep(ANSWER_WAIT.every)
        }
        return { _tag: "Lost" } as const
      })

    return { start, finish, stored }
  })
)
