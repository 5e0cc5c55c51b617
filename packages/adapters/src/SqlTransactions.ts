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

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  Transactions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return {
      background: <A, E>(effect: Effect.Effect<A, E>) =>
        effect.pipe(
          Effect.catchAllCause((cause) => Effect.logError("background work failed", cause)),
          Effect.mapInputContext((context: Context.Context<never>) =>
            Context.omit(SqlClient.TransactionConnection)(context) as Context.Context<never>
          ),
          Effect.forkDaemon,
          Effect.asVoid
        ),
      withTransaction: (effect) =>
        sql.withTransaction(effect).pipe(
          Effect.catchTag("SqlError" as any, (e) => Effect.die(e))
        ) as typeof effect
    }
  })
)
