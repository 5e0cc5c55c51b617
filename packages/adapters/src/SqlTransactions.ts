/**
 * `Transactions` on `SqlClient`: nested calls join the outer transaction.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Transactions } from "@kassa/core/ports/Transactions"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { heldWrites, holdingUntilRead, holdingWrites } from "./internal/writes.js"

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Transactions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const transact = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      sql.withTransaction(effect).pipe(Effect.catchTag("SqlError" as any, (e) => Effect.die(e))) as typeof effect
    // A transaction's writes are its own, never held back by an enclosing `atomicWrites`. On
    // PostgreSQL its pure writes go together, before its next other statement or its COMMIT.
    const withTransaction = sql.onDialectOrElse({
      pg: () => <A, E, R>(effect: Effect.Effect<A, E, R>) => holdingUntilRead(sql, transact, effect),
      orElse: () => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(transact(effect), heldWrites, undefined)
    })
    return {
      background: <A, E>(effect: Effect.Effect<A, E>) =>
        effect.pipe(
          Effect.catchAllCause((cause) => Effect.logError("background work failed", cause)),
          Effect.mapInputContext((context: Context.Context<never>) =>
            Context.omit(SqlClient.TransactionConnection)(context) as Context.Context<never>
          ),
          Effect.locally(heldWrites, undefined),
          Effect.forkDaemon,
          Effect.asVoid
        ),
      withTransaction,
      // PostgreSQL: the writes go as one statement (no BEGIN / COMMIT round trips); SQLite,
      // in-process, gains nothing from that and runs a transaction.
      atomicWrites: (effect) =>
        sql.onDialectOrElse({
          pg: () => holdingWrites(sql, effect),
          orElse: () => withTransaction(effect)
        })
    }
  })
)
