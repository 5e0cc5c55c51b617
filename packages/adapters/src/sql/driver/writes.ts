/**
 * @internal
 * Writes that may be held back (PostgreSQL): repositories' pure writes, whose answers nobody
 * reads, are collected and sent as one statement (data-modifying CTEs), composed from the
 * fragments they were built of.
 *
 * - Inside a transaction they go before its next other statement (a read sees them) and before
 *   `COMMIT`: a transaction's run of writes costs one round trip, and its last run carries its
 *   `COMMIT` along when the pool's clients can (`pipelined.ts`, as they carry its `BEGIN` along
 *   with its first statement).
 * - A transaction opens (`BEGIN`) at its first statement: one whose body only writes never
 *   opens, and its writes go as one statement when it ends, batched with other such units.
 * - In a transaction of a command that runs again on a lost race (core's `Contention.retried`), an
 *   update at a version read is held too, `checked` in the statement it goes in (the writes', or
 *   that of the next read that locks rows, `withHeldWrites`): one that wrote nothing fails it.
 *
 * On SQLite nothing waits: inside a group-commit unit, which holds the one connection, a write
 * runs on that connection at once (`Direct`), without the statement machinery around it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import * as Contention from "@kassa/core/Contention"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Batcher from "./batcher.js"
import * as Locals from "./locals.js"
import { beginKept, COMMIT_AFTER } from "./pipelined.js"
import { rows, rowsApart } from "./reads.js"
import * as Signals from "./Signals.js"
import { currentWork, withWork } from "./Statements.js"

/** @internal A statement as built: its own CTEs (named), and the statement that uses them. */
export interface Built {
  readonly ctes: ReadonlyArray<readonly [name: string, statement: Statement.Fragment]>
  readonly main: Statement.Statement<unknown>
}

/**
 * @internal
 * A write whose answer nobody reads, as its repository built it: what it does (`insert` adds rows,
 * or upserts them: a second write of such a row in one statement fails instead of being lost, so
 * units of such writes may share a statement; `change` updates or deletes), the tables it writes,
 * and its statement, whose own CTEs are named with `name` (names a combined statement keeps apart).
 */
export interface Write {
  readonly kind: "insert" | "change"
  readonly tables: ReadonlyArray<string>
  /**
   * For a write of one table, the rows it writes by key, when it can tell: a held write of other
   * rows of the table may then share its statement.
   */
  readonly rows?: ReadonlyArray<string> | undefined
  /**
   * An update at a version read, whose statement returns a row when it wrote one: the statement
   * it goes in fails (the whole of it) when it wrote none (`checked`).
   */
  readonly checked?: true | undefined
  readonly build: (name: (local: string) => string) => Built
}

/** @internal An insert into `table` (or an upsert). */
export const inserting = (table: string, statement: Statement.Statement<unknown>): Write => ({
  kind: "insert",
  tables: [table],
  build: () => ({ ctes: [], main: statement })
})

/** @internal An update or delete of `table`. */
export const changing = (table: string, statement: Statement.Statement<unknown>): Write => ({
  kind: "change",
  tables: [table],
  build: () => ({ ctes: [], main: statement })
})

/**
 * @internal
 * An update of `table` at a version read (`statement` returns a row when it wrote one), sent with
 * the transaction's other writes: their statement fails, writing nothing, when it wrote none.
 */
export const checked = (table: string, statement: Statement.Statement<unknown>): Write => ({
  kind: "change",
  tables: [table],
  checked: true,
  build: () => ({ ctes: [], main: statement })
})

/** @internal `write`, declared to write only `rows` of its one table (keys, as `kind/subject`). */
export const ofRows = (write: Write, rows: ReadonlyArray<string>): Write => ({ ...write, rows })

/** Writes held back (PostgreSQL's), and the tables they write. @since 0.1.0 @category models */
export interface Held {
  readonly sql: SqlClient.SqlClient
  /** The transaction's connection (which opens it when first used, `lazyConnection`). */
  readonly conn: SqlConnection.Connection
  /** Whether the transaction has opened (sent `BEGIN`); a savepoint's enclosing one has. */
  readonly opened: () => boolean
  readonly writes: Array<Write>
  readonly tables: Set<string>
  /** The rows of each held table the held writes write, when every one of them told (`Write.rows`). */
  readonly rows: Map<string, Set<string> | "any">
  /** Whether a write was held here (sent since or not). */
  wrote: boolean
  /**
   * Whether the transaction's command runs again on a `Contention.Conflict` (core's
   * `Contention.retried` as it opened): its versioned updates may then be `checked` writes.
   */
  readonly retried: boolean
  /** How many `checked` writes are held: they wait past no statement that locks rows (see `independent`). */
  checks: number
  /** The rows the transaction keeps (read `FOR UPDATE`), as `table/key/version`. */
  readonly locked: Set<string>
  /**
   * What stores learned of the rows the transaction keeps (read `FOR UPDATE`, and their writes
   * since), by the store's own key: nobody else changes them while it lasts. A savepoint inside
   * it forgets it all.
   */
  readonly memo: Map<string, unknown>
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
  /**
   * What stores learned of the rows the unit wrote (see `Held.memo`), and the savepoint it was
   * learned in (its `TransactionConnection`): a savepoint opened or left since forgets it all.
   */
  memo?: { readonly at: unknown; readonly memo: Map<string, unknown> } | undefined
}

/** @internal The writes held back by the enclosing transaction, if any, or the connection they run on. */
export const heldWrites = FiberRef.unsafeMake<Held | Direct | undefined>(undefined)

const isDirect = (held: Held | Direct): held is Direct => !("writes" in held)

/**
 * @internal
 * The connection the driver's transactions put in the fiber's context: it runs a statement on the
 * connection of the fiber's own transaction (its held writes', or its SQLite unit's).
 */
export const transactionConnection = Locals.routed((fiber) => fiber.getFiberRef(heldWrites)?.conn)

/** A transaction's held writes (not a SQLite unit's connection). */
const inTransaction = (held: Held | Direct | undefined): held is Held => held !== undefined && !isDirect(held)

const ctesOf = (sql: SqlClient.SqlClient, ctes: Built["ctes"]) =>
  sql.join(", ", false)(ctes.map(([name, statement]) => sql`${sql.literal(name)} AS (${statement})`))

/** One write as a statement of its own. */
const alone = (sql: SqlClient.SqlClient, write: Write): Statement.Statement<unknown> => {
  const { ctes, main } = write.build((local) => local)
  return ctes.length === 0 ? main : sql`WITH ${ctesOf(sql, ctes)} ${main}`
}

/**
 * PostgreSQL: the writes as one statement, each but the last a data-modifying CTE (`w0`, `w1`,
 * …), their own CTEs named apart (`w0_head`, …). One statement is atomic without a transaction
 * around it, and its parts see one snapshot.
 */
const combine = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>): Statement.Statement<unknown> => {
  if (writes.some((write) => write.checked)) return combineChecked(sql, writes)
  if (writes.length === 1) return alone(sql, writes[0]!)
  const ctes: Array<readonly [string, Statement.Fragment]> = []
  let last: Statement.Statement<unknown> | undefined
  writes.forEach((write, i) => {
    const built = write.build((local) => `w${i}_${local}`)
    ctes.push(...built.ctes)
    if (i < writes.length - 1) ctes.push([`w${i}`, built.main])
    else last = built.main
  })
  return sql`WITH ${ctesOf(sql, ctes)} ${last!}`
}

/**
 * The writes as one statement whose every write is a CTE, and whose main query divides by the
 * rows each `checked` write returned: the main query runs first, so the checked updates (and
 * their row locks) come before the other writes, and one that wrote nothing fails the statement
 * (division by zero) before they run. A constant 1/0 would fail when planned; a count cannot.
 */
const combineChecked = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>): Statement.Statement<unknown> => {
  const { ctes, guard } = asCtes(sql, writes)
  return sql`WITH ${ctes} SELECT ${guard} AS checked`
}

/**
 * The writes as CTEs (`w0`, `w1`, …), and the guard that runs their `checked` ones: true, or a
 * division by zero when one of them wrote nothing.
 */
const asCtes = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>) => {
  const ctes: Array<readonly [string, Statement.Fragment]> = []
  const counts: Array<Statement.Fragment> = []
  writes.forEach((write, i) => {
    const built = write.build((local) => `w${i}_${local}`)
    ctes.push(...built.ctes, [`w${i}`, built.main])
    if (write.checked) counts.push(sql`(SELECT count(*) FROM ${sql.literal(`w${i}`)})`)
  })
  return { ctes: ctesOf(sql, ctes), guard: sql`1 / (${sql.join(" * ", false)(counts)}) = 1` }
}

/** PostgreSQL's division_by_zero: only the checks' guard (`asCtes`) divides. */
const checkFailed = (error: SqlError): boolean => (error.cause as { readonly code?: unknown } | undefined)?.code === "22012"

/**
 * The writes' statement, run as the driver runs a read (`rows`): on its connection, past
 * `@effect/sql`'s span and scope, unless the fiber traces or a statement transformer (counting)
 * must see it.
 */
const sendCombined = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>, commit = false): Effect.Effect<void, SqlError> => {
  const combined = combine(sql, writes)
  const statement = commit ? sql`${combined} ${sql.literal(COMMIT_AFTER)}` : combined
  const sent = Effect.asVoid(rows(statement as Statement.Statement<object>))
  return writes.some((write) => write.checked)
    ? Effect.catchIf(sent, checkFailed, () => Effect.die(new Contention.Conflict()))
    : sent
}

/**
 * A write on a unit's own connection, its `SqlError` a defect. Traced, it has its span as any
 * statement has; statement transformers (statement counting) see it as any statement. (Given the
 * fiber, and its answer dropped in the step that makes the error a defect: a SQLite unit's
 * writes are most of its statements.)
 */
const runDirect = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  direct: Direct,
  statement: Statement.Statement<unknown>
): Effect.Effect<void> => {
  direct.wrote = true
  const execute = (s: Statement.Statement<unknown>) => {
    const [text, params] = s.compile()
    return direct.conn.executeRaw(text, params)
  }
  const transform = fiber.getFiberRef(Statement.currentTransformer)
  const sent = transform._tag === "None" && !fiber.getFiberRef(FiberRef.currentTracerEnabled)
    ? execute(statement)
    : Effect.useSpan("sql.execute", { kind: "client", captureStackTrace: false }, (span) => {
      const run = (s: Statement.Statement<unknown>) => {
        span.attribute("db.query.text", s.compile()[0])
        return execute(s)
      }
      return transform._tag === "None" ? run(statement) : Effect.flatMap(transform.value(statement, direct.sql, fiber.getFiberRefs(), span), run)
    })
  return Effect.matchEffect(sent, { onFailure: Effect.die, onSuccess: () => Effect.void })
}

/** Takes the writes `held` holds, to send them. */
const take = (held: Held): ReadonlyArray<Write> => {
  const writes = held.writes.splice(0)
  held.tables.clear()
  held.rows.clear()
  held.checks = 0
  return writes
}

/** Sends what `held` holds (a failed write is a defect, as when sent at once). */
const flush = (held: Held): Effect.Effect<void> =>
  Effect.suspend(() => held.writes.length === 0 ? Effect.void : Effect.orDie(sendCombined(held.sql, take(held))))

/**
 * Sends what `held` holds and commits its transaction in the same round trip (`pipelined.ts`): on
 * failure nothing of it is committed, and the transaction rolls back as after any failure.
 */
const flushCommitting = (held: Held): Effect.Effect<void> => Effect.orDie(sendCombined(held.sql, take(held), true))

/** The held writes a locking read takes along (see `withHeldWrites`). */
export interface Along {
  /** The writes as CTEs, to open the read's `WITH` list with. */
  readonly ctes: Statement.Fragment
  /** A condition to join (`AND`) to the read's first row lock: it runs first, and fails the read when a checked write wrote nothing. */
  readonly guard: Statement.Fragment
}

/**
 * @internal
 * A locking read of `tables` that takes the enclosing PostgreSQL transaction's held writes along
 * when one of them is `checked` (and none writes those tables, which the read would not see):
 * `build` is given them (`Along`), and its guard runs the checked writes before any lock the read
 * takes, in the order separate statements would have taken them. Otherwise `build` is given
 * nothing, and the held writes go before the read as usual.
 */
export const withHeldWrites = <A extends object>(
  sql: SqlClient.SqlClient,
  tables: ReadonlyArray<string>,
  build: (along: Along | undefined) => Statement.Statement<A>
): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.flatMap(FiberRef.get(heldWrites), (held) => {
    if (!inTransaction(held) || held.checks === 0 || tables.some((table) => held.tables.has(table))) return build(undefined)
    const read = build(asCtes(sql, take(held)))
    return Effect.catchIf(read, checkFailed, () => Effect.die(new Contention.Conflict()))
  })

/**
 * Holds `writes` back with `held`. Writes held together see one snapshot, so a write to a table
 * the transaction already holds a write for sends those first (unless both tell their rows, and
 * they are other rows): two writes of one row (an aggregate's event head, say) never share a
 * statement. The writes of one call are the caller's to keep independent.
 */
const hold = (held: Held, writes: ReadonlyArray<Write>): Effect.Effect<void> => {
  held.wrote = true
  const push = () => {
    held.writes.push(...writes)
    for (const write of writes) if (write.checked) held.checks++
    for (const write of writes) {
      for (const table of write.tables) {
        held.tables.add(table)
        const rows = rowsOf(write)
        const known = held.rows.get(table)
        if (rows === undefined || known === "any") held.rows.set(table, "any")
        else if (known === undefined) held.rows.set(table, new Set(rows))
        else for (const row of rows) known.add(row)
      }
    }
  }
  if (writes.some((write) => clashes(held, write))) return Effect.zipRight(flush(held), Effect.sync(push))
  // (called as the writes run: held at once when nothing goes first)
  push()
  return Effect.void
}

/** The rows `write` writes, when it tells them (a write of one table). */
const rowsOf = (write: Write) => write.tables.length === 1 ? write.rows : undefined

/** Whether `write` may write a row a held write writes: then it goes in a statement after them. */
const clashes = (held: Held, write: Write): boolean =>
  write.tables.some((table) => {
    if (!held.tables.has(table)) return false
    const known = held.rows.get(table)
    const rows = rowsOf(write)
    return known === undefined || known === "any" || rows === undefined || rows.some((row) => known.has(row))
  })

/**
 * @internal
 * Writes whose answers nobody reads, in order: one statement on PostgreSQL, where they see the
 * same snapshot (so none may depend on another's effect), one after the other elsewhere. Held
 * back inside a transaction.
 */
export const writeAll = (sql: SqlClient.SqlClient, writes: ReadonlyArray<Write>): Effect.Effect<void> =>
  writes.length === 0 ? Effect.void : Effect.withFiberRuntime((fiber) => {
    const held = fiber.getFiberRef(heldWrites)
    if (held === undefined) {
      return Effect.orDie(sql.onDialectOrElse({
        pg: () => sendCombined(sql, writes),
        orElse: () => Effect.forEach(writes, (write) => rows(alone(sql, write) as Statement.Statement<object>), { discard: true })
      }))
    }
    if (!isDirect(held)) return hold(held, writes)
    // (each run as it comes: the first that fails dies, and those after it do not run)
    let sent = runDirect(fiber, held, alone(sql, writes[0]!))
    for (let i = 1; i < writes.length; i++) sent = Effect.zipRight(sent, Effect.suspend(() => runDirect(fiber, held, alone(sql, writes[i]!))))
    return sent
  })

/** @internal An insert (or upsert) into `table` whose answer nobody reads (see `writeAll`). */
export const insert = (sql: SqlClient.SqlClient, table: string, statement: Statement.Statement<unknown>): Effect.Effect<void> =>
  writeAll(sql, [inserting(table, statement)])

/** @internal An update or delete of `table` whose answer nobody reads (see `writeAll`). */
export const change = (sql: SqlClient.SqlClient, table: string, statement: Statement.Statement<unknown>): Effect.Effect<void> =>
  writeAll(sql, [changing(table, statement)])

/**
 * @internal
 * Whether the enclosing transaction has made a write through `writeAll` (false outside of one).
 */
export const hasWritten: Effect.Effect<boolean> = Effect.map(FiberRef.get(heldWrites), (held) => held?.wrote === true)

/**
 * @internal
 * The rows the enclosing PostgreSQL transaction of `fiber` keeps (read `FOR UPDATE`), as
 * `table/key/version`; undefined outside of one. (Read off the fiber: a versioned read or
 * update asks on every call, and an effect for it costs several steps.)
 */
export const transactionLocks = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Set<string> | undefined => {
  const held = fiber.getFiberRef(heldWrites)
  return inTransaction(held) ? held.locked : undefined
}

/**
 * @internal
 * Whether the versioned updates of the enclosing PostgreSQL transaction of `fiber` may be
 * `checked` writes (its command runs again on a `Contention.Conflict`).
 */
export const checksDeferred = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean => {
  const held = fiber.getFiberRef(heldWrites)
  return inTransaction(held) && held.retried
}

/**
 * @internal
 * What stores learned of the rows the enclosing PostgreSQL transaction keeps (see `Held.memo`);
 * undefined outside of one.
 */
export const transactionMemo: Effect.Effect<Map<string, unknown> | undefined> = Effect.withFiberRuntime((fiber) => {
  const held = fiber.getFiberRef(heldWrites)
  if (held === undefined) return Effect.succeed(undefined)
  if (!isDirect(held)) return Effect.succeed(held.memo)
  // SQLite: the unit holds its connection alone; a savepoint rolled back may undo what a memo
  // learned in it, so a memo is the savepoint's (each one puts a transaction connection of its own
  // in the context)
  const at = Context.getOption(fiber.getFiberRef(FiberRef.currentContext), SqlClient.TransactionConnection)
  const savepoint = at._tag === "Some" ? at.value : undefined
  if (savepoint === undefined) return Effect.succeed(undefined)
  if (held.memo === undefined || held.memo.at !== savepoint) held.memo = { at: savepoint, memo: new Map() }
  return Effect.succeed(held.memo.memo)
})

/** A unit's writes that may share a statement with other units' (see `unitBatcher`). */
const insertsOnly = (writes: ReadonlyArray<Write>): boolean => writes.every((write) => write.kind === "insert")

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
  readonly writes: ReadonlyArray<Write>
  readonly work: string
}

/** @internal Sends the writes of a transaction that never opened (one that only wrote). */
export type SendUnit = (writes: ReadonlyArray<Write>) => Effect.Effect<void, SqlError>

/**
 * @internal
 * PostgreSQL: units of writes (transactions that only wrote) that arrive together go as one
 * statement, one round trip and one commit for all (`Batcher`: the units that arrived while
 * `WRITERS` batches were being written). A statement is all or nothing, so a unit that fails
 * fails the batch, whose units are then sent one by one: only that one fails. When the batch's
 * outcome is unknown (no answer from the server), every unit fails with it and none is sent again.
 *
 * The units of one statement see one snapshot: two writes of one row in different units would
 * not see each other. So only units that only insert are batched (an insert of a row another unit
 * inserts fails, and so does an upsert of it); any other unit is sent alone.
 */
export const unitBatcher = (sql: SqlClient.SqlClient): Effect.Effect<SendUnit, never, Scope.Scope> =>
  Effect.map(
    Batcher.make(
      (units: ReadonlyArray<Unit>) => withWork(units[0]!.work)(sendCombined(sql, units.flatMap((unit) => unit.writes))),
      { maxBatch: MAX_BATCH, writers: WRITERS, retryAlone: rejected }
    ),
    (batched) => (writes) =>
      insertsOnly(writes)
        ? Effect.withFiberRuntime((fiber) => batched({ writes, work: fiber.getFiberRef(currentWork) }))
        : sendCombined(sql, writes)
  )

/** Statements declared to touch only some tables, and those tables. */
const confined = new WeakMap<Statement.Statement<unknown>, ReadonlyArray<string>>()

/**
 * @internal
 * Declares that the statements it is given read (and write) only `tables`, none of them written
 * by a trigger of another table: a transaction's held writes to other tables may then wait past
 * them.
 */
export const touchingOnly = (...tables: ReadonlyArray<string>) => <S extends Statement.Statement<object>>(statement: S): S => {
  confined.set(statement, tables)
  return statement
}

/**
 * @internal
 * Runs `statement`, a plain read (no `FOR UPDATE`) of the tables `touchingOnly` gave it, on a
 * connection of the pool when the fiber's PostgreSQL transaction has not opened and holds no write
 * of those tables: at READ COMMITTED it reads there what it would read inside, and a transaction
 * whose other statements only write then never opens (no `BEGIN`, no `COMMIT`: its writes go as
 * one statement). Anywhere else it runs as it is; either way as the driver runs a read (`rows`).
 */
export const readApart = <A extends object>(statement: Statement.Statement<A>): Effect.Effect<ReadonlyArray<A>, SqlError> =>
  Effect.withFiberRuntime((fiber) => {
    const held = fiber.getFiberRef(heldWrites)
    return inTransaction(held) && !held.opened() && independent(statement, held)
      ? rowsApart(statement)
      : rows(statement)
  })

/** Statements declared to lock the rows they read. */
const locking = new WeakSet<Statement.Statement<unknown>>()

/**
 * @internal
 * Declares that `statement` locks the rows it reads (`FOR UPDATE`): a transaction's `checked`
 * writes go before it.
 */
export const lockingRows = <S extends Statement.Statement<object>>(statement: S): S => {
  locking.add(statement)
  return statement
}

/**
 * Whether `statement` may run before the writes `held` holds. A `checked` write waits past no
 * statement that locks rows: its own row's lock would come after those, out of the order other
 * transactions take them in.
 */
const independent = (statement: Statement.Statement<unknown>, held: Held): boolean => {
  const tables = confined.get(statement)
  return tables !== undefined && !tables.some((table) => held.tables.has(table)) &&
    (held.checks === 0 || !locking.has(statement))
}

const flushing = Symbol.for("kassa/writes/flushing")

/** The `flushBefore` transformers with no other transformer behind them (no statement counting). */
const flushesOnly = new WeakSet<Statement.Statement.Transformer>()

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
    return inTransaction(held) && held.writes.length > 0 && !independent(statement, held)
      ? Effect.zipRight(flush(held), Effect.suspend(() => next(statement, sql, refs, span)))
      : next(statement, sql, refs, span)
  }
  if (Option.isNone(prior)) flushesOnly.add(transformer)
  return Object.assign(transformer, { [flushing]: true })
}

/**
 * @internal
 * For a read the driver runs on its connection itself (`reads.ts`): what `transformer` would do
 * before `statement` when it is only a PostgreSQL transaction's (send the held writes the read may
 * not pass, or nothing); `undefined` for any other transformer, which the statement must meet.
 */
export const beforeRead = (
  transformer: Statement.Statement.Transformer,
  statement: Statement.Statement<unknown>,
  refs: FiberRefs.FiberRefs
): Effect.Effect<void> | undefined => {
  if (!flushesOnly.has(transformer)) return undefined
  const held = FiberRefs.getOrDefault(refs, heldWrites)
  return inTransaction(held) && held.writes.length > 0 && !independent(statement, held) ? flush(held) : Effect.void
}

/** `flushBefore` over the statement transformer there (`prior`), unless that one already flushes. */
const flushingOver = (prior: Option.Option<Statement.Statement.Transformer>): Option.Option<Statement.Statement.Transformer> =>
  Option.isSome(prior) && flushing in prior.value ? prior : Option.some(flushBefore(prior))

/** `effect` with `flushingOver(prior)` as the statement transformer. */
const withFlushBefore = (prior: Option.Option<Statement.Statement.Transformer>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const transformer = flushingOver(prior)
  return transformer === prior ? effect : Effect.locally(effect, Statement.currentTransformer, transformer)
}

const makeHeld = (sql: SqlClient.SqlClient, conn: SqlConnection.Connection, retried: boolean, opened: () => boolean): Held => ({
  sql,
  conn,
  opened,
  writes: [],
  tables: new Set(),
  rows: new Map(),
  wrote: false,
  retried,
  checks: 0,
  locked: new Set(),
  memo: new Map()
})

const always = () => true

/**
 * A connection that opens its transaction when first used: it takes a connection of the pool
 * and sends `BEGIN` then. `opened` answers the connection if it has. Statements that ask for it
 * while it opens wait for that opening (its outcome, a failure too, is every caller's); once open,
 * it is handed out without a step of its own (`Effect.cached` would take a semaphore, read the
 * clock and provide its context again at every statement).
 */
const lazyConnection = (sql: SqlClient.SqlClient) => {
  let opened: SqlConnection.Connection | undefined
  // whether its client sends a COMMIT after a statement that asks (`pipelined.ts`)
  let pipelines = false
  let opening: Deferred.Deferred<SqlConnection.Connection, SqlError> | undefined
  // (made as the transaction opens: one that never opens makes and closes none)
  let scope: Scope.CloseableScope | undefined
  const conn: Effect.Effect<SqlConnection.Connection, SqlError> = Effect.suspend(() => {
    if (opened !== undefined) return Effect.succeed(opened)
    if (opening !== undefined) return Deferred.await(opening)
    const done = (opening = Deferred.unsafeMake<SqlConnection.Connection, SqlError>(FiberId.none))
    const reserved = Effect.flatMap(Scope.make(), (made) => Scope.extend(sql.reserve, scope = made))
    return Effect.tap(reserved, (c) =>
      Effect.map(c.executeUnprepared("BEGIN", [], undefined), (answer) => {
        pipelines = answer === beginKept
      })).pipe(
      Effect.onExit((exit) => {
        if (Exit.isSuccess(exit)) opened = exit.value
        return Deferred.done(done, exit)
      })
    )
  })
  /** Closes the connection's scope (its connection given back); undefined if none was made. */
  const close = (exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> | undefined => scope === undefined ? undefined : Scope.close(scope, exit)
  return { lazy: Locals.forwarding((use) => Effect.flatMap(conn, use)), opened: () => opened, pipelines: () => pipelines, close }
}

/**
 * @internal
 * PostgreSQL's `withTransaction`: runs `effect` holding its writes back until its next other
 * statement or its end. The transaction opens at its first statement; one that only wrote never
 * opens, and its writes go as one statement with `sendUnit`. A nested call is a savepoint of the
 * enclosing transaction (which then opens), whose held writes go first so that it reads them.
 */
export const transaction = (sql: SqlClient.SqlClient, sendUnit: SendUnit) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.withFiberRuntime<A, E | SqlError, R>((fiber) => {
    const outer = fiber.getFiberRef(heldWrites)
    const prior = fiber.getFiberRef(Statement.currentTransformer)
    const enclosing = Context.getOption(fiber.getFiberRef(FiberRef.currentContext), SqlClient.TransactionConnection)
    if (enclosing._tag === "Some") {
      const conn = outer?.conn ?? enclosing.value[0]
      const inner = sql.withTransaction(Effect.suspend(() => {
        const held = makeHeld(sql, conn, false, always)
        return Effect.locally(Effect.tap(effect, () => flush(held)), heldWrites, held)
      }))
      return withFlushBefore(prior)(
        inTransaction(outer) ? Effect.zipRight(flush(outer), Effect.ensuring(inner, Effect.sync(() => outer.memo.clear()))) : inner
      )
    }
    const run = Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const { close, lazy, opened, pipelines } = lazyConnection(sql)
        // its held writes went with its COMMIT
        let committed = false
        const held = makeHeld(sql, lazy, fiber.getFiberRef(Contention.retried), () => opened() !== undefined)
        const signals: Array<() => void> = []
        return Locals.exitWith(
          (context) => [
            transactionConnection.connection(context, 0),
            [heldWrites, held],
            [Statement.currentTransformer, flushingOver(prior)],
            // (a transaction opened inside is not the command's)
            [Contention.retried, false],
            Signals.holding(signals)
          ],
          // once open, the held writes go inside it (with its COMMIT when its client can send
          // that along); else they are the unit's, sent below
          Effect.tap(restore(effect), () => {
            if (opened() === undefined) return Effect.void
            if (!pipelines() || held.writes.length === 0) return flush(held)
            return Effect.zipRight(flushCommitting(held), Effect.sync(() => { committed = true }))
          })
        ).pipe(
          Effect.flatMap((exit) => {
            const conn = opened()
            const end: Effect.Effect<void, SqlError> = committed
              ? Effect.void
              : conn !== undefined
              ? Effect.orDie(conn.executeUnprepared(Exit.isSuccess(exit) ? "COMMIT" : "ROLLBACK", [], undefined))
              : Exit.isSuccess(exit) && held.writes.length > 0
              ? sendUnit(held.writes.splice(0))
              : Effect.void
            return Effect.flatMap(Effect.exit(restore(end)), (ended): Effect.Effect<A, E | SqlError> => {
              if (Exit.isFailure(ended)) return Effect.zipRight(close(ended) ?? Effect.void, Effect.failCause(ended.cause))
              const after = () => {
                if (Exit.isSuccess(exit)) Signals.sendAll(signals)
                return exit
              }
              // (a connection reserved whose BEGIN failed is given back too)
              const closing = close(exit)
              return closing === undefined ? after() : Effect.flatMap(closing, after)
            })
          })
        )
      })
    )
    // a span costs a scope and a copy of the context even when the fiber does not trace
    return fiber.getFiberRef(FiberRef.currentTracerEnabled)
      ? Effect.withSpan(run, "sql.transaction", { kind: "client", captureStackTrace: false })
      : run
  })
