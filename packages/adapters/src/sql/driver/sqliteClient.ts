/**
 * @internal
 * The SQLite `SqlClient`: `@effect/sql-sqlite-node`'s client, on a connection the driver owns.
 * That client looks each statement up in an Effect `Cache` with a time to live, several Effect
 * steps and a read of the clock per statement, then runs it in two more; here the connection
 * keeps its prepared statements in a map (the least recently used dropped past `prepared`), and
 * a statement runs in one step. Everything above the connection (statements,
 * transactions, spans when tracing, statement transformers) is `@effect/sql`'s, as before.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import Sqlite from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as FreeReads from "./freeReads.js"
import * as Lock from "./lock.js"
import * as Reserved from "./reserved.js"
import { columnsFixedByText } from "./resultShape.js"

/** @internal */
export interface Options {
  readonly filename: string
  readonly transformQueryNames?: ((name: string) => string) | undefined
  readonly transformResultNames?: ((name: string) => string) | undefined
  /** Prepared statements kept at most (default 200, as `@effect/sql-sqlite-node`'s cache). */
  readonly prepared?: number | undefined
}

/**
 * @internal
 * `prepare` remembered per text, at most `capacity` texts: a text used again moves to the back,
 * and the front one (the least recently used) is dropped for a new one. A text that fails to
 * prepare is not kept.
 */
export const keep = <S>(prepare: (text: string) => S, capacity: number) => {
  const kept = new Map<string, S>()
  return (text: string): S => {
    let statement = kept.get(text)
    if (statement !== undefined) {
      kept.delete(text)
    } else {
      statement = prepare(text)
      if (kept.size >= capacity) kept.delete(kept.keys().next().value!)
    }
    kept.set(text, statement)
    return statement
  }
}

const failed = (cause: unknown, message: string) => Effect.fail(new SqlError({ cause, message }))

type Transform = <A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>

/**
 * A prepared statement, and for a reader whose text fixes its columns (`resultShape`) their names
 * as read and as the client transforms them: such a reader answers its rows as arrays (`raw`),
 * made into rows here, one object each. better-sqlite3 makes each row's names again for every
 * row, and the client's transform makes a second object of each row.
 */
interface Prepared {
  readonly statement: Sqlite.Statement
  names: ReadonlyArray<string> | undefined
  transformed: ReadonlyArray<string> | undefined
}

const connect = (options: Options, clientTransform: Transform | undefined) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const db = new Sqlite(options.filename)
      db.pragma("journal_mode = WAL")
      return db
    }),
    (db) => Effect.sync(() => db.close())
  ).pipe(Effect.map((db): Connection => {
    const name = (names: ReadonlyArray<string>, transform: ((name: string) => string) | undefined) =>
      transform === undefined ? names : names.map(transform)
    const named = (entry: Prepared) => {
      entry.names = entry.statement.columns().map((c) => c.name)
      entry.transformed = name(entry.names, options.transformResultNames)
    }
    const prepare = (text: string): Prepared => {
      const statement = db.prepare(text)
      const entry: Prepared = { statement, names: undefined, transformed: undefined }
      if (statement.reader && columnsFixedByText(text)) {
        statement.raw(true)
        named(entry)
      }
      return entry
    }
    const prepared = keep(prepare, options.prepared ?? 200)

    /** A raw reader's rows, as objects named `names`. */
    const objects = (entry: Prepared, values: ReadonlyArray<ReadonlyArray<unknown>>, transformed: boolean) => {
      // (a column added or dropped under a statement SQLite prepared again: named again)
      if (values.length > 0 && values[0]!.length !== entry.names!.length) named(entry)
      const names = transformed ? entry.transformed! : entry.names!
      const rows: Array<Record<string, unknown>> = new Array(values.length)
      for (let i = 0; i < values.length; i++) {
        const value = values[i]!
        const row: Record<string, unknown> = {}
        for (let j = 0; j < names.length; j++) row[names[j]!] = value[j]
        rows[i] = row
      }
      return rows
    }

    /** The statement's rows (or, `raw`, a write's result), in one step. */
    const run = (
      text: string,
      params: ReadonlyArray<unknown>,
      raw: boolean,
      transformRows?: Transform | undefined,
      entryOf: (text: string) => Prepared = prepared
    ) =>
      Effect.withFiberRuntime<ReadonlyArray<any>, SqlError>((fiber) => {
        let entry: Prepared
        try {
          entry = entryOf(text)
        } catch (cause) {
          return failed(cause, "Failed to prepare statement ")
        }
        const statement = entry.statement
        try {
          if (Context.get(fiber.currentContext, SqlClient.SafeIntegers)) statement.safeIntegers(true)
          if (statement.reader) {
            if (entry.names !== undefined) {
              const values = statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
              if (transformRows === undefined) return Effect.succeed(objects(entry, values, false))
              // the client's transform only renames a row's columns: its values are never objects here
              if (transformRows === clientTransform) return Effect.succeed(objects(entry, values, true))
              return Effect.succeed(transformRows(objects(entry, values, false)))
            }
            const rows = statement.all(...params) as ReadonlyArray<object>
            return Effect.succeed(transformRows === undefined ? rows : transformRows(rows))
          }
          const result = statement.run(...params)
          return Effect.succeed(raw ? result as unknown as ReadonlyArray<any> : [])
        } catch (cause) {
          return failed(cause, "Failed to execute statement")
        }
      })

    return {
      execute: (text, params, transformRows) => run(text, params, false, transformRows),
      executeRaw: (text, params) => run(text, params, true),
      executeValues: (text, params) =>
        Effect.suspend(() => {
          let statement: Sqlite.Statement
          let rawAlready: boolean
          try {
            const entry = prepared(text)
            statement = entry.statement
            rawAlready = entry.names !== undefined
          } catch (cause) {
            return failed(cause, "Failed to prepare statement ")
          }
          try {
            if (!statement.reader) {
              statement.run(...params)
              return Effect.succeed([])
            }
            if (!rawAlready) statement.raw(true)
            return Effect.succeed(statement.all(...params) as ReadonlyArray<ReadonlyArray<unknown>>)
          } catch (cause) {
            return failed(cause, "Failed to execute statement")
          } finally {
            if (statement.reader && !rawAlready) statement.raw(false)
          }
        }),
      executeUnprepared: (text, params, transformRows) => run(text, params ?? [], false, transformRows, prepare),
      // the rows read at once, then streamed: a statement holds the one connection while it runs
      executeStream: (text, params, transformRows) => Stream.fromIterableEffect(run(text, params, false, transformRows))
    }
  }))

/**
 * @internal
 * The client on one connection, as `@effect/sql-sqlite-node`'s: a statement outside a
 * transaction waits for it, and a transaction holds it until it ends.
 */
export const make = (options: Options) =>
  Effect.gen(function*() {
    const transformRows = options.transformResultNames === undefined
      ? undefined
      : Statement.defaultTransforms(options.transformResultNames).array
    const connection = yield* connect(options, transformRows)
    const lock = Lock.make()
    // Whether a transaction holds the connection: set once it has the lock, before its BEGIN,
    // and cleared as it gives the lock back, after its COMMIT or ROLLBACK. A statement outside a
    // transaction waits for the lock only then.
    let held = false
    const free = Effect.succeed(connection)
    const afterTransaction = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(restore(lock.take), Effect.as(lock.release, connection))
    )
    const release = Effect.suspend(() => {
      held = false
      return lock.release
    })
    const taken = Effect.sync(() => {
      held = true
      return connection
    })
    const client = yield* SqlClient.make({
      acquirer: Effect.suspend(() => held ? afterTransaction : free),
      // (`Scope.addFinalizer`: `Effect.addFinalizer` would run the release with the acquiring
      // fiber's refs, diffing and patching them all, and leave the closing fiber a copy of its context)
      transactionAcquirer: Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(lock.take),
          Effect.flatMap(Effect.scope, (scope) => {
            held = true
            return Effect.as(Scope.addFinalizer(scope, release), connection)
          })
        )
      ),
      compiler: Statement.makeCompilerSqlite(options.transformQueryNames),
      spanAttributes: [["db.system.name", "sqlite"]],
      transformRows
    })
    const reservation: Reserved.Reservation = { conn: connection, release }
    Reserved.register(client, Effect.zipRight(lock.take, Effect.as(taken, reservation)))
    FreeReads.register(client, (text, params, transformRows) => held ? undefined : connection.execute(text, params, transformRows))
    return client
  })

/** @internal The client as the `SqlClient`. */
export const layer = (options: Options): Layer.Layer<SqlClient.SqlClient> =>
  Layer.scoped(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
