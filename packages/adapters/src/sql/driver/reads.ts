/**
 * @internal
 * Reads (and the statements of writes whose answers nobody reads, `writes.ts`) run on their
 * connection without `@effect/sql`'s per-statement span when nothing would see it: the fiber
 * does not trace and no statement transformer is set but a PostgreSQL transaction's (whose held
 * writes the read sends first when it may not pass them, as that transformer would): a span (a
 * no-op one too) and the statement's own scope cost about thirty Effect steps, a polled read's
 * largest share. Anything else (statement counting, tracing), or a statement this module cannot
 * open (another `SqlClient` implementation), runs as `@effect/sql` runs it. Outside of a
 * transaction a client's own way of running it (`freeReads.ts`), when it has one, takes the
 * connection in place of the client's acquirer.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import { runOf } from "./freeReads.js"
import { beforeRead, heldWrites, transactionConnection } from "./writes.js"

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

type Connect = Effect.Effect<SqlConnection.Connection, SqlError>

/**
 * Whether a client's acquirer hands out its connection without a scope: neither client's does
 * (SQLite's waits for the transaction's permit, PostgreSQL's is the pool), though its type asks
 * for one, and a scope made and closed around every read (with a copy of the fiber's whole
 * context) is a tenth of a read's Effect steps. Learnt from the first read: run without any
 * service, an acquirer that needs its scope dies, and is then given one from then on.
 */
const scopeless = new WeakMap<SqlConnection.Connection.Acquirer, boolean>()

const connected = <A>(
  acquirer: SqlConnection.Connection.Acquirer,
  use: (conn: SqlConnection.Connection) => Effect.Effect<A, SqlError>
): Effect.Effect<A, SqlError> => {
  const known = scopeless.get(acquirer)
  if (known === true) return Effect.flatMap(acquirer as Connect, use)
  if (known === false) return Effect.scoped(Effect.flatMap(acquirer, use))
  return Effect.flatMap(Effect.exit(Effect.provide(acquirer, Context.empty()) as Connect), (exit) => {
    if (Exit.isSuccess(exit)) {
      scopeless.set(acquirer, true)
      return use(exit.value)
    }
    // only a defect (the missing scope) tells; a failure of its own or an interruption is the read's
    if (exit.cause._tag !== "Die") return Effect.failCause(exit.cause)
    scopeless.set(acquirer, false)
    return Effect.scoped(Effect.flatMap(acquirer, use))
  })
}

const outsideTransaction = Context.omit(SqlClient.TransactionConnection)

/**
 * The rows `statement` reads: on the fiber's transaction's connection, if any, unless `apart`
 * (then on one of the client's, as outside of it).
 */
const read = <A extends object>(statement: Statement.Statement<A>, apart: boolean): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    if (!opens(statement) || fiber.getFiberRef(FiberRef.currentTracerEnabled)) {
      return apart ? Effect.mapInputContext(statement, outsideTransaction) : statement
    }
    const transformer = fiber.getFiberRef(Statement.currentTransformer)
    const before = transformer._tag === "None" ? Effect.void : beforeRead(transformer.value, statement, fiber.getFiberRefs())
    if (before === undefined) return statement
    const [text, params] = statement.compile()
    // inside a transaction its connection, with no scope of its own; else the client's acquirer
    const held = apart
      ? Option.none()
      : Context.getOption(fiber.getFiberRef(FiberRef.currentContext), SqlClient.TransactionConnection)
    // (the driver's transactions' connection finds the fiber's, in a step of its own: found here)
    const conn = held._tag === "None"
      ? undefined
      : held.value[0] === transactionConnection.conn
      ? fiber.getFiberRef(heldWrites)?.conn ?? held.value[0]
      : held.value[0]
    const run = conn !== undefined
      ? conn.execute(text, params, statement.transformRows)
      : runOf(statement.acquirer)?.(text, params, statement.transformRows) ??
        connected(statement.acquirer, (conn) => conn.execute(text, params, statement.transformRows))
    return before === Effect.void ? run : Effect.zipRight(before, run)
  })

/**
 * @internal
 * The rows `statement` reads.
 */
export const rows = <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  read(statement, false)

/** @internal The rows `statement` reads on one of the client's connections, as outside of a transaction. */
export const rowsApart = <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  read(statement, true)
