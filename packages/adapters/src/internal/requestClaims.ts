/**
 * @internal
 * A request's claim on its replay key (see `SqlRequestReplays`), written with the request's first
 * unit or transaction that writes: the key's row commits with the request's effect or not at all.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { heldWrites, write } from "./writes.js"

/** @internal The key a request claims, when, and whether a write of it is under way or done. */
export interface Claim {
  readonly key: string
  readonly createdAt: number
  taken: boolean
}

/** @internal The current request's claim, until one of its transactions has written it. */
export const currentClaim = FiberRef.unsafeMake<Claim | undefined>(undefined)

/**
 * @internal
 * `run` (a `withTransaction` or `atomicWrites`) with the fiber's pending claim written at the end
 * of its body, among its writes: on PostgreSQL it joins the held writes of the last statement, on
 * SQLite it runs on the unit's connection. Only an outermost transaction that wrote claims; one
 * that fails gives the claim back to the request's next transaction.
 */
export const claiming = (sql: SqlClient.SqlClient) =>
(run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) => {
    const claim = fiber.getFiberRef(currentClaim)
    if (claim === undefined || claim.taken || fiber.getFiberRef(heldWrites) !== undefined) return run(effect)
    const claimIfWritten = (a: A) =>
      Effect.withFiberRuntime<A>((inner) => {
        if (inner.getFiberRef(heldWrites)?.wrote !== true || claim.taken) return Effect.succeed(a)
        claim.taken = true
        return Effect.as(write(sql`INSERT INTO request_replays (key, created_at) VALUES (${claim.key}, ${claim.createdAt})`), a)
      })
    return run(Effect.flatMap(effect, claimIfWritten)).pipe(
      Effect.onError(() => Effect.sync(() => (claim.taken = false)))
    )
  })

const onReplayKey = (error: SqlError): boolean => {
  const cause = error.cause as { readonly constraint?: unknown; readonly message?: unknown } | undefined
  return cause?.constraint === "request_replays_pkey" ||
    (typeof cause?.message === "string" && cause.message.includes("request_replays.key"))
}

/**
 * @internal
 * Whether `cause` is a claim that found its key taken: another request with the same key ran
 * (or runs) first, and this one's transaction rolled back.
 */
export const isDuplicate = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.defects(cause), ...Cause.failures(cause)].some((e) => e instanceof SqlError && onReplayKey(e))
