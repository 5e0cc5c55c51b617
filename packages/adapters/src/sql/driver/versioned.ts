/**
 * @internal
 * Versioned rows (aggregates) under contention. Inside a PostgreSQL transaction, a read made under
 * core's `Contention.expected` keeps its row for the transaction (`FOR UPDATE`), without waiting
 * for the transaction's held writes to other tables. An update of a row so kept, at the version
 * read, cannot lose: its answer is known, so it is held back with the transaction's other writes.
 * Any other update in a transaction of a command that runs again on a lost race (core's
 * `Contention.retried`) is held back too, checked as it is sent (`writes.checked`). Elsewhere
 * (SQLite's one writer, or no transaction) reads lock nothing and updates answer whether the
 * version still matched.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Contention from "@kassa/core/Contention"
import * as Effect from "effect/Effect"
import { rows } from "./reads.js"
import { change, checked, checksDeferred, lockingRows, touchingOnly, transactionLocks, withHeldWrites, writeAll } from "./writes.js"

const lockKey = (table: string, key: string, version: unknown) => `${table}/${key}/${Number(version)}`

/**
 * @internal
 * Reads the row `key` of `table` with `statement`, a `SELECT … WHERE …` given what ends it: a
 * condition (`AND …`) and the locking clause when it locks. A locking read takes the
 * transaction's checked writes along (`withHeldWrites`).
 */
export const find = <A extends object>(
  sql: SqlClient.SqlClient,
  table: string,
  key: string,
  statement: (end: Statement.Fragment) => Statement.Statement<A>
): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    const locks = transactionLocks(fiber)
    return !fiber.getFiberRef(Contention.current) || locks === undefined
      ? rows(statement(sql.literal("")))
      : Effect.tap(
        withHeldWrites(sql, [table], (along) =>
          along === undefined
            ? lockingRows(touchingOnly(table)(statement(sql.literal("FOR UPDATE"))))
            : sql<A>`WITH ${along.ctes} ${statement(sql`AND ${along.guard} FOR UPDATE`)}`),
        (found) => {
          const row = found[0] as { readonly version?: unknown } | undefined
          if (row !== undefined) locks.add(lockKey(table, key, row.version))
        }
      )
  })

/**
 * @internal
 * Updates the row `key` of `table` from `expectedVersion` to `version` with `statement` (given
 * the `RETURNING` clause to end it with, or "" when nobody reads the answer); answers whether
 * the stored version was still `expectedVersion`.
 */
export const update = (
  sql: SqlClient.SqlClient,
  table: string,
  key: string,
  versions: { readonly expected: number; readonly next: number },
  statement: (returning: Statement.Fragment) => Statement.Statement<unknown>
): Effect.Effect<boolean> =>
  Effect.withFiberRuntime((fiber) => {
    const locks = transactionLocks(fiber)
    if (locks !== undefined && locks.delete(lockKey(table, key, versions.expected))) {
      locks.add(lockKey(table, key, versions.next))
      return Effect.as(change(sql, table, statement(sql.literal(""))), true)
    }
    // the command runs again if the version had changed: checked when sent, with the other writes
    if (checksDeferred(fiber)) return Effect.as(writeAll(sql, [checked(table, statement(sql.literal("RETURNING 1")))]), true)
    return statement(sql.literal("RETURNING 1")).pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
  })
