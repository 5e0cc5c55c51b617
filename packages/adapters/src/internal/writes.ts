/**
 * @internal
 * Writes that may be held back: inside `Transactions.atomicWrites` on PostgreSQL, repositories'
 * pure writes are collected and sent as one statement (data-modifying CTEs) when the unit ends.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** @internal The writes held back by the enclosing unit, if any. */
export const heldWrites = FiberRef.unsafeMake<Array<Statement.Statement<unknown>> | undefined>(undefined)

/**
 * @internal
 * Runs a write whose answer nobody reads, or holds it back for the enclosing unit. Each write
 * must be one plain statement (no `WITH … INSERT` of its own: PostgreSQL allows data-modifying
 * CTEs at the top level only).
 */
export const write = (statement: Statement.Statement<unknown>): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(heldWrites), (held) =>
    held === undefined ? Effect.orDie(Effect.asVoid(statement)) : Effect.sync(() => void held.push(statement)))

/** @internal Whether writes are being held back here. */
export const holding: Effect.Effect<boolean> = Effect.map(FiberRef.get(heldWrites), (held) => held !== undefined)

const placeholder = /\$(\d+)/g

/**
 * @internal
 * PostgreSQL: the statements as one, each but the last a data-modifying CTE; parameters
 * renumbered. One statement is atomic without a transaction around it.
 */
export const combine = (statements: ReadonlyArray<Statement.Statement<unknown>>): readonly [string, ReadonlyArray<unknown>] => {
  const parts: Array<string> = []
  const params: Array<unknown> = []
  for (const statement of statements) {
    const [text, values] = statement.compile()
    const offset = params.length
    parts.push(offset === 0 ? text : text.replace(placeholder, (_, n: string) => `$${Number(n) + offset}`))
    params.push(...values)
  }
  const last = parts.pop()!
  return parts.length === 0 ? [last, params] : [`WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(", ")} ${last}`, params]
}

/** @internal Runs `effect` holding its writes back, then sends them at once (PostgreSQL). */
export const holdingWrites = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const held: Array<Statement.Statement<unknown>> = []
    return Effect.locally(effect, heldWrites, held).pipe(Effect.tap(() => Effect.orDie(writeAll(sql, held))))
  })

/**
 * @internal
 * Writes whose answers nobody reads, in order: one statement on PostgreSQL, where they see the
 * same snapshot (so none may depend on another's effect), one after the other elsewhere.
 */
export const writeAll = (
  sql: SqlClient.SqlClient,
  statements: ReadonlyArray<Statement.Statement<unknown>>
): Effect.Effect<void, SqlError> =>
  statements.length === 0 ? Effect.void : sql.onDialectOrElse({
    pg: () => {
      const [text, params] = combine(statements)
      return Effect.asVoid(sql.unsafe(text, params))
    },
    orElse: () => Effect.forEach(statements, (statement) => statement, { discard: true })
  })
