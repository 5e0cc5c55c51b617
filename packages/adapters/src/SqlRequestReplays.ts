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
 * - The answer is stored once the request has answered, off the request's path: answers that
 *   arrive together go in one statement (under load one per many requests), which also deletes
 *   a bounded number of rows older than 24 hours. An expired row found by a claim is deleted
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
 * claim without an answer: a retry then runs nothing and is answered that the outcome is unknown
 * (the objects it made can be read).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Batcher from "./sql/driver/batcher.js"
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
  /** Run the request under `claimed(claim)`, then `finish` it. */
  | { readonly _tag: "Run"; readonly claim: Claim }
  | { readonly _tag: "Replay"; readonly answer: Answer }

/** @since 0.1.0 @category models */
export type Stored =
  | { readonly _tag: "Replay"; readonly answer: Answer }
  /** No row, or one that had expired (it is gone now): run the request again. */
  | { readonly _tag: "Expired" }
  /** The first request ran, but its answer is not stored (it crashed meanwhile, or runs still). */
  | { readonly _tag: "Lost" }

/** @since 0.1.0 @category tags */
export class RequestReplays extends Context.Tag("kassa/RequestReplays")<RequestReplays, {
  /** Replays the answer of the request with `key` in flight in this process, or starts this one. */
  readonly start: (key: string) => Effect.Effect<Start>
  /** The request answered `answer` (or nothing): stores it when its claim was written. */
  readonly finish: (claim: Claim, answer: Option.Option<Answer>) => Effect.Effect<void>
  /**
   * The stored answer of `claim`'s key: after another request claimed it (`isDuplicate`), waiting
   * a little for an answer not stored yet; or "now", as it is.
   */
  readonly stored: (claim: Claim, mode: "wait" | "now") => Effect.Effect<Stored>
}>() {}

/**
 * Runs `effect` (a request) with `claim` to be written by its first transaction that writes.
 *
 * @since 0.1.0
 */
export const claimed = (claim: Claim) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, currentClaim, claim)

interface InFlight {
  readonly claim: Claim
  readonly answered: Deferred.Deferred<Option.Option<Answer>>
}

/** Rows older than 24 hours deleted with each batch of answers: more than a batch adds. */
const PRUNED_PER_BATCH = 128
/** How long a claim without an answer is waited for (another process may be storing it). */
const ANSWER_WAIT = { tries: 20, every: "100 millis" } as const

/** @since 0.1.0 @category layers */
export const layer = Layer.scoped(
  RequestReplays,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tx = yield* Transactions
    const inFlight = new Map<string, InFlight>()

    const store = yield* Batcher.make(
      (answers: ReadonlyArray<readonly [key: string, answer: Answer, now: number]>) =>
        tx.withTransaction(writeAll(sql, [
          ...answers.map(([key, { body, status }]) =>
            changing("request_replays", sql`UPDATE request_replays SET status = ${status}, body = ${body} WHERE key = ${key}`)
          ),
          changing(
            "request_replays",
            sql`DELETE FROM request_replays WHERE key IN (
              SELECT key FROM request_replays WHERE created_at <= ${answers[0]![2] - WINDOW_MS}
              ORDER BY created_at LIMIT ${PRUNED_PER_BATCH})`
          )
        ])).pipe(withWork("requestReplays")),
      { maxBatch: 64 }
    )
    const storing = yield* FiberSet.make<void, never>()
    // Closing waits for answers being stored, as for other background work.
    yield* Effect.addFinalizer(() => RealTime.awaitWork(storing, shutdownGrace))

    const start = (key: string): Effect.Effect<Start> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const first = inFlight.get(key)
        if (first !== undefined && now - first.claim.createdAt < WINDOW_MS) {
          const answer = yield* Deferred.await(first.answered)
          if (Option.isSome(answer)) return { _tag: "Replay", answer: answer.value } as const
          // It wrote nothing: this one runs (after the others that waited, one at a time).
          return yield* start(key)
        }
        const claim: Claim = { key, createdAt: now, taken: false }
        inFlight.set(key, { claim, answered: yield* Deferred.make<Option.Option<Answer>>() })
        return { _tag: "Run", claim } as const
      })

    const finish = (claim: Claim, answer: Option.Option<Answer>): Effect.Effect<void> =>
      Effect.suspend(() => {
        const entry = inFlight.get(claim.key)
        if (entry === undefined || entry.claim !== claim) return Effect.void
        const forget = Effect.sync(() => inFlight.get(claim.key) === entry && inFlight.delete(claim.key))
        if (!claim.taken || Option.isNone(answer)) {
          return Effect.zipRight(forget, Deferred.succeed(entry.answered, Option.none()))
        }
        const stored = Clock.currentTimeMillis.pipe(
          Effect.flatMap((now) => store([claim.key, answer.value, now])),
          Effect.catchAllCause((cause) => Effect.logError("storing a request's answer failed", cause)),
          Effect.ensuring(forget),
          Effect.locally(currentClaim, undefined)
        )
        return Effect.zipRight(Deferred.succeed(entry.answered, answer), Effect.asVoid(FiberSet.run(storing, stored)))
      })

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
