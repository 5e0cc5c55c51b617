/**
 * @internal
 * Reads run on their connection without `@effect/sql`'s per-statement span when nothing would
 * see it: the fiber does not trace and no statement transformer (statement counting, a
 * PostgreSQL transaction's held writes) is set: a span (a no-op one too) and the statement's
 * own scope cost about thirty Effect steps, a polled read's largest share. Anything else, or a
 * statement this module cannot open (another `SqlClient` implementation), runs as `@effect/sql`
 * runs it.
 */
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"

/** What `@effect/sql`'s statements hold besides their interface: the connection and the rows' names. */
interface Opened<A> {
  readonly acquirer: SqlConnection.Connection.Acquirer
  readonly transformRows: (<R extends object>(rows: ReadonlyArray<R>) => ReadonlyArray<R>) | undefined
  readonly compile: Statement.Statement<A>["compile"]
}

/** @internal Whether the driver can run `statement` itself. */
export const opens = <A>(statement: Statement.Statement<A>): statement is Statement.Statement<A> & Opened<A> =>
  Effect.isEffect((statement as Partial<Opened<A>>).acquirer) &&
  ((statement as Partial<Opened<A>>).transformRows === undefined ||
    typeof (statement as Partial<Opened<A>>).transformRows === "function")

/**
 * @internal
 * The rows `statement` reads.
 */
export const rows = <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    if (
      !opens(statement) || fiber.getFiberRef(FiberRef.currentTracerEnabled) ||
      fiber.getFiberRef(Statement.currentTransformer)._tag === "Some"
    ) return statement
    // the client's acquirer: the transaction's connection inside one
    const [text, params] = statement.compile()
    return Effect.scoped(Effect.flatMap(statement.acquirer, (conn) => conn.execute(text, params, statement.transformRows)))
  })
