/**
 * @internal
 * Statements run outside of any transaction on a connection of the client's, without the
 * client's acquirer: `@effect/sql`'s looks the fiber's transaction up again (five Effect steps;
 * the driver's read has already), and `@effect/sql-pg`'s connection runs the statement in an
 * interruptible region that cancels it on the server when interrupted, then maps its rows in a
 * step of their own (about fifteen steps, most of a PostgreSQL read's). The rows are the same.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type pg from "pg"

type Transform = <A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>

/**
 * @internal
 * Runs a statement outside of any transaction, as the client's own connection would; `undefined`
 * when it cannot now (the client's acquirer runs it then).
 */
export type Run = (
  text: string,
  params: ReadonlyArray<unknown>,
  transformRows: Transform | undefined
) => Effect.Effect<ReadonlyArray<any>, SqlError> | undefined

const runs = new WeakMap<object, Run>()

/** @internal Registers how `client`'s statements run outside of a transaction. */
export const register = (client: SqlClient.SqlClient, run: Run): void => {
  runs.set((client`SELECT 1` as unknown as { readonly acquirer: object }).acquirer, run)
}

/** @internal How the statements of the client whose acquirer is `acquirer` run outside of a transaction, if registered. */
export const runOf = (acquirer: object): Run | undefined => runs.get(acquirer)

const SELECT = /^\s*SELECT\b/i

/**
 * @internal
 * A `pg` pool's statements, as `@effect/sql-pg`'s connection runs them, without its interruptible
 * region. Only a `SELECT` runs so: it does not wait for locks outside of a transaction, so an
 * interrupted one runs to its end on the server (its answer left unread, its connection given
 * back then) where `@effect/sql-pg` would cancel it; any other statement is left to the client.
 */
export const pgRun = (pool: pg.Pool): Run => (text, params, transformRows) =>
  !SELECT.test(text) ? undefined : Effect.async<ReadonlyArray<any>, SqlError>((resume) => {
    pool.connect((cause, client) => {
      if (cause || client === undefined) {
        return resume(Effect.fail(new SqlError({ cause: cause ?? new Error("No client returned"), message: "Failed to acquire connection" })))
      }
      let done = false
      const release = (error?: Error) => {
        if (done) return false
        done = true
        client.off("error", onError)
        client.release(error)
        return true
      }
      const onError = (error: Error) => {
        if (release(error)) resume(Effect.fail(new SqlError({ cause: error, message: "Connection error" })))
      }
      client.once("error", onError)
      client.query(text, params as Array<unknown>, (error: Error | null, result: pg.QueryResult | Array<pg.QueryResult>) => {
        if (!release()) return
        if (error) return resume(Effect.fail(new SqlError({ cause: error, message: "Failed to execute statement" })))
        // (several statements in one text answer one result each)
        const rows = Array.isArray(result) ? result.map((r) => r.rows ?? []) : result.rows ?? []
        let transformed: ReadonlyArray<any>
        try {
          transformed = transformRows === undefined ? rows : transformRows(rows)
        } catch (defect) {
          return resume(Effect.die(defect))
        }
        resume(Effect.succeed(transformed))
      })
    })
  })
