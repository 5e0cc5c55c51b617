/**
 * @internal
 * Writes that may be held back (PostgreSQL): repositories' pure writes, whose answers nobody
 * reads, are collected and sent as one statement (data-modifying CTEs).
 *
 * - Inside `Transactions.atomicWrites` they go when the unit ends: the unit only writes.
 * - Inside a transaction they go before its next other statement (a read sees them) and before
 *   `COMMIT`: a transaction's run of writes costs one round trip.
 *
 * On SQLite nothing waits: inside a group-commit unit, which holds the one connection, a write
 * runs on that connection at once (`Direct`), without the statement machinery around it.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { currentWork, withWork } from "./Statements.js"
import * as Batcher from "./batcher.js"

type Compiled = readonly [text: string, params: ReadonlyArray<unknown>]

/** @internal Writes held back (PostgreSQL's, compiled), and the tables they write. */
export interface Held {
  readonly sql: SqlClient.SqlClient
  /** Sends them, as one statement. */
  readonly send: (statements: ReadonlyArray<Compiled>) => Effect.Effect<void, SqlError>
  readonly statements: Array<Compiled>
  readonly tables: Set<string>
  /** A transaction's: sent before any other statement of the fiber. */
  readonly untilRead: boolean
  /** Whether a write was held here (sent since or not). */
  wrote: boolean
  /** A transaction's: the rows it keeps (read `FOR UPDATE`), as `table/key/version`. */
  readonly locked: Set<string>
}

/**
 * @internal
 * A SQLite unit's connection, which it holds alone: its writes run on it at once, past the
 * statement machinery's span, scope and connection acquirer (most of a small write's cost).
 */
export interface Direct {
  readonly sql: SqlClient.SqlClient
  readonly conn: SqlConnection.Connection
  /** Whether the unit has written on it. */
  wrote: boolean
}

/** @internal The writes held back by the enclosing unit or transaction, if any, or the connection they run on. */
export const heldWrites = FiberRef.unsafeMake<Held | Direct | undefined>(undefined)

const isDirect = (held: Held | Direct): held is Direct => "conn" in held

/** A transaction's held writes (not a unit's, nor a SQLite unit's connection). */
const inTransaction = (held: Held | Direct | undefined): held is Held => held !== undefined && !isDirect(held) && held.untilRead

const execute = (direct: Direct, [text, params]: Compiled): Effect.Effect<void, SqlError> =>
  Effect.asVoid(direct.conn.executeRaw(text, params))

/**
 * A write on a unit's own connection. Traced, it has its span as any statement has; statement
 * transformers (statement counting) see it as any statement.
 */
const runDirect = (direct: Direct, statement: Statement.Statement<unknown>): Effect.Effect<void, SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    direct.wrote = true
    const transform = fiber.getFiberRef(Statement.currentTransformer)
    if (transform._tag === "None" && !fiber.getFiberRef(FiberRef.currentTracerEnabled)) return execute(direct, statement.compile())
    return Effect.useSpan("sql.execute", { kind: "client", captureStackTrace: false }, (span) => {
      const run = (s: Statement.Statement<unknown>) => {
        const compiled = s.compile()
        span.attribute("db.query.text", compiled[0])
        return execute(direct, compiled)
      }
      return transform._tag === "None" ? run(statement) : Effect.flatMap(transform.value(statement, direct.sql, fiber.getFiberRefs(), span), run)
    })
  })

const makeHeld = (
  sql: SqlClient.SqlClient,
  untilRead: boolean,
  send: Held["send"] = (statements) => sendCompiled(sql, statements)
): Held => ({ sql, send, statements: [], tables: new Set(), untilRead, wrote: false, locked: new Set() })

const target = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?([A-Za-z_][A-Za-z0-9_]*)/gi

/** The writes a statement makes, by kind and table (an upsert's `DO UPDATE SET` is none). */
const writesOf = (text: string): Array<{ readonly kind: "INSERT" | "UPDATE" | "DELETE"; readonly table: string }> => {
  const writes: Array<{ readonly kind: "INSERT" | "UPDATE" | "DELETE"; readonly table: string }> = []
  for (const m of text.matchAll(target)) {
    if (m[2]!.toUpperCase() === "SET") continue
    writes.push({ kind: m[1]!.slice(0, 6).toUpperCase() as "INSERT" | "UPDATE" | "DELETE", table: m[2]!.toLowerCase() })
  }
  return writes
}

/** The tables a statement writes. */
const tablesOf = (text: string): Array<string> => writesOf(text).map((w) => w.table)

const placeholder = /\$(\d+)/g

/**
 * A statement's own leading CTEs (`h AS (…), e AS (…)`, or "" when it has none) and the rest. Its
 * CTEs join the combined statement's list: data-modifying CTEs may only stand at the top level.
 */
const splitWith = (text: string): readonly [ctes: string, main: string] => {
  if (!/^\s*WITH\s/i.test(text)) return ["", text]
  const start = text.search(/WITH\s/i) + 4
  let i = start
  for (;;) {
    const open = text.indexOf("(", i)
    if (open < 0) throw new Error(`writes: cannot read the CTEs of ${text.slice(0, 80)}`)
    let depth = 1
    let j = open + 1
    for (; depth > 0 && j < text.length; j++) depth += text[j] === "(" ? 1 : text[j] === ")" ? -1 : 0
    if (depth > 0) throw new Error(`writes: unbalanced parentheses in ${text.slice(0, 80)}`)
    const comma = /^\s*,/.exec(text.slice(j))
    if (comma === null) return [text.slice(start, j).trim(), text.slice(j).trim()]
    i = j + comma[0].length
  }
}

/**
 * PostgreSQL: the statements as one, each but the last a data-modifying CTE; parameters
 * renumbered. One statement is atomic without a transaction around it. A statement's own CTEs
 * are hoisted, so their names must differ from the others' (and from `w0`, `w1`, …).
 */
const combine = (statements: ReadonlyArray<Compiled>): Compiled => {
  if (statements.length === 1) return statements[0]!
  const ctes: Array<string> = []
  const params: Array<unknown> = []
  let last = ""
  statements.forEach(([text, values], i) => {
    const offset = params.length
    const [own, main] = splitWith(offset === 0 ? text : text.replace(placeholder, (_, n: string) => `$${Number(n) + offset}`))
    params.push(...values)
    if (own !== "") ctes.push(own)
    if (i < statements.length - 1) ctes.push(`w${i} AS (${main})`)
    else last = main
  })
  return [`WITH ${ctes.join(", ")} ${last}`, params]
}

const sendCompiled = (sql: SqlClient.SqlClient, statements: ReadonlyArray<Compiled>): Effect.Effect<void, SqlError> => {
  const [text, params] = combine(statements)
  return Effect.asVoid(sql.unsafe(text, params))
}

const send = (sql: SqlClient.SqlClient, statements: ReadonlyArray<Statement.Statement<unknown>>): Effect.Effect<void, SqlError> =>
  statements.length === 0 ? Effect.void : sql.onDialectOrElse({
    pg: () => sendCompiled(sql, statements.map((statement) => statement.compile())),
    orElse: () => Effect.forEach(statements, (statement) => statement, { discard: true })
  })

/** Sends what `held` holds (a failed write is a defect, as when sent at once). */
const flush = (held: Held): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (held.statements.length === 0) return Effect.void
    const statements = held.statements.splice(0)
    held.tables.clear()
    return Effect.orDie(held.send(statements))
  })

/** Runs `effect` with its writes held in `held`, and sends them when it succeeds. */
const holdingIn = <A, E, R>(held: Held, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.locally(effect, heldWrites, held).pipe(Effect.tap(() => flush(held)))

/**
 * Holds `statements` back with `held`. Statements held together see one snapshot, so a
 * transaction's write to a table it already holds a write for sends those first: two writes of
 * one row (an aggregate's event head, say) never share a statement. The statements of one call
 * are the caller's to keep independent.
 */
const hold = (held: Held, statements: ReadonlyArray<Statement.Statement<unknown>>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const compiled = statements.map((statement) => statement.compile())
    held.wrote = true
    if (!held.untilRead) {
      held.statements.push(...compiled)
      return Effect.void
    }
    const tables = compiled.flatMap(([text]) => tablesOf(text))
    const push = Effect.sync(() => {
      held.statements.push(...compiled)
      for (const table of tables) held.tables.add(table)
    })
    return tables.some((table) => held.tables.has(table)) ? Effect.zipRight(flush(held), push) : push
  })

/**
 * @internal
 * Runs a write whose answer nobody reads, or holds it back for the enclosing unit or
 * transaction. A write with CTEs of its own has them hoisted when it goes with others
 * (PostgreSQL allows data-modifying CTEs at the top level only): their names must not be
 * another held write's.
 */
export const write = (statement: Statement.Statement<unknown>): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(heldWrites), (held) =>
    held === undefined
      ? Effect.orDie(Effect.asVoid(statement))
      : isDirect(held)
      ? Effect.orDie(runDirect(held, statement))
      : hold(held, [statement]))

/**
 * @internal
 * Writes whose answers nobody reads, in order: one statement on PostgreSQL, where they see the
 * same snapshot (so none may depend on another's effect), one after the other elsewhere. Held
 * back like `write`'s inside a unit or a transaction.
 */
export const writeAll = (
  sql: SqlClient.SqlClient,
  statements: ReadonlyArray<Statement.Statement<unknown>>
): Effect.Effect<void, SqlError> =>
  Effect.flatMap(FiberRef.get(heldWrites), (held) =>
    held === undefined
      ? send(sql, statements)
      : isDirect(held)
      ? Effect.forEach(statements, (statement) => runDirect(held, statement), { discard: true })
      : hold(held, statements))

/**
 * @internal
 * Whether the enclosing unit or transaction has made a write through `write` or `writeAll`
 * (false outside of one).
 */
export const hasWritten: Effect.Effect<boolean> = Effect.map(FiberRef.get(heldWrites), (held) => held?.wrote === true)

/**
 * @internal
 * The rows the enclosing PostgreSQL transaction keeps (read `FOR UPDATE`), as `table/key/version`;
 * undefined outside of one.
 */
export const transactionLocks: Effect.Effect<Set<string> | undefined> = Effect.map(
  FiberRef.get(heldWrites),
  (held) => inTransaction(held) ? held.locked : undefined
)

/**
 * @internal
 * How writes are held back here: until the unit ends (`atomicWrites`), until the transaction's
 * next other statement, or not at all.
 */
export const holding: Effect.Effect<"unit" | "transaction" | undefined> = Effect.map(
  FiberRef.get(heldWrites),
  (held) => held === undefined || isDirect(held) ? undefined : held.untilRead ? "transaction" : "unit"
)

/**
 * @internal
 * Runs `effect` holding its writes back, then sends them at once (PostgreSQL), with `send` when
 * given (`unitBatcher`'s). Inside a transaction the unit is part of it: its writes wait with the
 * transaction's.
 */
export const holdingWrites = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>,
  send?: Held["send"]
): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(heldWrites), (outer) => {
    return inTransaction(outer) ? effect : holdingIn(makeHeld(sql, false, send), effect)
  })

/** A unit's writes that may share a statement with other units' (see `unitBatcher`). */
const insertsOnly = (statements: ReadonlyArray<Compiled>): boolean => {
  let params = 0
  for (const [text, values] of statements) {
    if (!/^\s*INSERT\b/i.test(text) || writesOf(text).some((w) => w.kind !== "INSERT")) return false
    params += values.length
  }
  return params <= MAX_UNIT_PARAMS
}

/** A batch's parameters stay below PostgreSQL's 65,535 per statement. */
const MAX_UNIT_PARAMS = 1_000
const MAX_BATCH = 32
/** Batches in flight at once: a unit waits for a batch only while this many are being written. */
const WRITERS = 2

/**
 * The server refused the statement (an SQLSTATE): nothing of it was written. Any other failure (a
 * connection lost) leaves that unknown, and a unit sent again could be written twice.
 */
const rejected = (error: SqlError): boolean => {
  const code = (error.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)
}

interface Unit {
  readonly statements: ReadonlyArray<Compiled>
  readonly work: string
}

/**
 * @internal
 * PostgreSQL: units of writes (`atomicWrites`) that arrive together go as one statement, one
 * round trip and one commit for all (`Batcher`: the units that arrived while `WRITERS` batches
 * were being written). A statement is all or nothing, so a unit that fails fails the batch, whose
 * units are then sent one by one: only that one fails. When the batch's outcome is unknown (no
 * answer from the server), every unit fails with it and none is sent again.
 *
 * The units of one statement see one snapshot: two writes of one row in different units would
 * not see each other. So only units that only insert are batched (an insert of a row another unit
 * inserts fails, and so does an upsert of it), each with its own parameters below
 * `MAX_UNIT_PARAMS`; any other unit is sent alone.
 */
export const unitBatcher = (sql: SqlClient.SqlClient): Effect.Effect<Held["send"], never, Scope.Scope> =>
  Effect.map(
    Batcher.make(
      (units: ReadonlyArray<Unit>) => withWork(units[0]!.work)(sendCompiled(sql, units.flatMap((unit) => unit.statements))),
      { maxBatch: MAX_BATCH, writers: WRITERS, retryAlone: rejected }
    ),
    (batched) => (statements) =>
      insertsOnly(statements)
        ? Effect.flatMap(FiberRef.get(currentWork), (work) => batched({ statements, work }))
        : sendCompiled(sql, statements)
  )

/** Statements declared to touch only some tables, and those tables. */
const confined = new WeakMap<Statement.Statement<unknown>, ReadonlyArray<string>>()

/**
 * @internal
 * Declares that the statements it is given read (and write) only `tables`, none of them written
 * by a trigger of another table: a transaction's held writes to other tables may then wait past
 * them.
 */
export const touchingOnly = (...tables: ReadonlyArray<string>) => <S extends Statement.Statement<any>>(statement: S): S => {
  confined.set(statement, tables)
  return statement
}

/** Whether `statement` may run before the writes `held` holds. */
const independent = (statement: Statement.Statement<unknown>, held: Held): boolean => {
  const tables = confined.get(statement)
  return tables !== undefined && !tables.some((table) => held.tables.has(table))
}

const flushing = Symbol.for("kassa/writes/flushing")

/**
 * A statement transformer that sends a transaction's held writes before the statement, then
 * hands it to the transformer that was there (statement counting).
 */
const flushBefore = (prior: Option.Option<Statement.Statement.Transformer>): Statement.Statement.Transformer => {
  const next: Statement.Statement.Transformer = Option.isSome(prior)
    ? prior.value
    : (statement) => Effect.succeed(statement)
  const transformer: Statement.Statement.Transformer = (statement, sql, refs, span) => {
    const held = FiberRefs.getOrDefault(refs, heldWrites)
    return inTransaction(held) && held.statements.length > 0 && !independent(statement, held)
      ? Effect.zipRight(flush(held), Effect.suspend(() => next(statement, sql, refs, span)))
      : next(statement, sql, refs, span)
  }
  return Object.assign(transformer, { [flushing]: true })
}

/**
 * @internal
 * Runs a transaction's body (`effect`, run by `transact` between `BEGIN` and `COMMIT`) holding
 * its writes back until its next other statement or its end (PostgreSQL).
 */
export const holdingUntilRead = <A, E, R>(
  sql: SqlClient.SqlClient,
  transact: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    Effect.zip(FiberRef.get(heldWrites), FiberRef.get(Statement.currentTransformer)),
    ([outer, prior]) => {
      const body = transact(Effect.suspend(() => holdingIn(makeHeld(sql, true), effect)))
      // A nested transaction starts with a savepoint, which is no statement: the outer one's
      // writes go first, so that the inner one reads them.
      const started = inTransaction(outer) ? Effect.zipRight(flush(outer), body) : body
      return Option.isSome(prior) && flushing in prior.value
        ? started
        : Statement.withTransformer(started, flushBefore(prior))
    }
  )
