/**
 * The database of the memory adapters: named tables of records, and transactions over them.
 *
 * A transaction keeps its writes in a journal of its own (reads inside it see them first) and
 * applies them when it succeeds; a failed or interrupted one leaves nothing behind. Transactions
 * take turns, as SQLite's writers do: a write outside any transaction is a transaction of its
 * own, so a versioned `update` read and written in one transaction cannot lose, and reads outside
 * a transaction never see another's uncommitted writes. Nested transactions join the outer one.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const Deleted: unique symbol = Symbol("kassa/MemoryStore/Deleted")

/** A transaction in progress: its writes per table, and what runs once they are applied. */
interface Journal {
  readonly writes: Map<TableImpl<unknown>, Map<string, unknown>>
  readonly afterCommit: Array<() => void>
}

/**
 * A table of records by key, read and written through the current transaction.
 *
 * @since 0.1.0 @category models
 */
export interface Table<A> {
  readonly get: (key: string) => Effect.Effect<Option.Option<A>>
  /** Every record, in the order their keys were first written. */
  readonly values: Effect.Effect<ReadonlyArray<A>>
  /** Writes the record, whether or not the key is there. */
  readonly set: (key: string, value: A) => Effect.Effect<void>
  /** Writes a new record; a key already there is a defect, as a primary key refuses it. */
  readonly insert: (key: string, value: A) => Effect.Effect<void>
  readonly delete: (key: string) => Effect.Effect<void>
}

class TableImpl<A> implements Table<A> {
  readonly base = new Map<string, A>()
  constructor(readonly name: string, readonly store: Store) {}

  private read(journal: Journal | undefined, key: string): A | undefined {
    const written = journal?.writes.get(this as TableImpl<unknown>)
    if (written !== undefined && written.has(key)) {
      const value = written.get(key)
      return value === Deleted ? undefined : value as A
    }
    return this.base.get(key)
  }

  get(key: string): Effect.Effect<Option.Option<A>> {
    return Effect.map(FiberRef.get(currentJournal), (journal) => Option.fromNullable(this.read(journal, key)))
  }

  get values(): Effect.Effect<ReadonlyArray<A>> {
    return Effect.map(FiberRef.get(currentJournal), (journal) => {
      const written = journal?.writes.get(this as TableImpl<unknown>)
      if (written === undefined) return [...this.base.values()]
      const out: Array<A> = []
      for (const [key, value] of this.base) {
        const mine = written.has(key) ? written.get(key) : value
        if (mine !== Deleted) out.push(mine as A)
      }
      for (const [key, value] of written) if (!this.base.has(key) && value !== Deleted) out.push(value as A)
      return out
    })
  }

  private write(key: string, value: A | typeof Deleted): Effect.Effect<void> {
    return this.store.transaction(Effect.flatMap(FiberRef.get(currentJournal), (journal) =>
      Effect.sync(() => {
        const table = this as TableImpl<unknown>
        let written = journal!.writes.get(table)
        if (written === undefined) journal!.writes.set(table, written = new Map())
        written.set(key, value)
      })))
  }

  set(key: string, value: A): Effect.Effect<void> {
    return this.write(key, value)
  }

  insert(key: string, value: A): Effect.Effect<void> {
    return this.store.transaction(Effect.flatMap(FiberRef.get(currentJournal), (journal) =>
      this.read(journal, key) === undefined
        ? this.write(key, value)
        : Effect.dieMessage(`${this.name}: duplicate key ${key}`)))
  }

  delete(key: string): Effect.Effect<void> {
    return this.write(key, Deleted)
  }

  apply(written: Map<string, unknown>): void {
    for (const [key, value] of written) {
      if (value === Deleted) this.base.delete(key)
      else this.base.set(key, value as A)
    }
  }
}

const currentJournal = FiberRef.unsafeMake<Journal | undefined>(undefined)

class Store {
  private readonly tables = new Map<string, TableImpl<unknown>>()
  private readonly sequences = new Map<string, number>()
  constructor(private readonly turn: Effect.Semaphore) {}

  table<A>(name: string): Table<A> {
    let table = this.tables.get(name)
    if (table === undefined) this.tables.set(name, table = new TableImpl<unknown>(name, this))
    return table as TableImpl<A>
  }

  /** The next number of `name`: like a database sequence, it is not given back by a rollback. */
  next(name: string): number {
    const n = (this.sequences.get(name) ?? 0) + 1
    this.sequences.set(name, n)
    return n
  }

  transaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return Effect.flatMap(FiberRef.get(currentJournal), (outer) => {
      if (outer !== undefined) return effect
      const journal: Journal = { writes: new Map(), afterCommit: [] }
      return Effect.locally(effect, currentJournal, journal).pipe(
        Effect.tap(() =>
          Effect.sync(() => {
            for (const [table, written] of journal.writes) table.apply(written)
            for (const f of journal.afterCommit) f()
          })
        ),
        this.turn.withPermits(1)
      )
    })
  }

  afterCommit(f: () => void): Effect.Effect<void> {
    return Effect.flatMap(FiberRef.get(currentJournal), (journal) =>
      Effect.sync(() => (journal === undefined ? f() : void journal.afterCommit.push(f))))
  }
}

/** @since 0.1.0 @category tags */
export class MemoryStore extends Context.Tag("kassa/MemoryStore")<MemoryStore, {
  /** The table of `name`, made on first use: every adapter asking for one name shares it. */
  readonly table: <A>(name: string) => Table<A>
  /** The next number of the sequence `name` (from 1; not given back by a rollback). */
  readonly next: (name: string) => number
  /** Runs `effect` in one transaction: all of its writes or none (joins a transaction in progress). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Runs `f` once the current transaction has committed (at once outside one). */
  readonly afterCommit: (f: () => void) => Effect.Effect<void>
  /** Whether the current fiber is in a transaction. */
  readonly inTransaction: Effect.Effect<boolean>
  /** The fiber's effect outside any transaction it is in (for work that must not join it). */
  readonly detached: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>() {}

/** An empty store. @since 0.1.0 @category layers */
export const layer: Layer.Layer<MemoryStore> = Layer.effect(
  MemoryStore,
  Effect.map(Effect.makeSemaphore(1), (turn) => {
    const store = new Store(turn)
    return {
      table: (name) => store.table(name),
      next: (name) => store.next(name),
      transaction: (effect) => store.transaction(effect),
      afterCommit: (f) => store.afterCommit(f),
      inTransaction: Effect.map(FiberRef.get(currentJournal), (journal) => journal !== undefined),
      detached: (effect) => Effect.locally(effect, currentJournal, undefined)
    }
  })
)

/**
 * The key of a record named by several parts (parts never contain NUL).
 *
 * @since 0.1.0
 */
export const key = (...parts: ReadonlyArray<string | number>): string => parts.join("\u0000")

/**
 * Writes `next(stored)` under `key` if the stored record's version is still `expectedVersion`;
 * answers whether it did (the optimistic `update` of the repositories).
 *
 * @since 0.1.0
 */
export const updateIfVersion = <A extends { readonly version: number }>(
  store: MemoryStore["Type"],
  table: Table<A>,
  key: string,
  expectedVersion: number,
  next: (stored: A) => A
): Effect.Effect<boolean> =>
  store.transaction(Effect.flatMap(table.get(key), (stored) =>
    Option.isNone(stored) || stored.value.version !== expectedVersion
      ? Effect.succeed(false)
      : Effect.as(table.set(key, next(stored.value)), true)))

/**
 * A value as a JSON column gives it back (dates as strings, no `undefined` members).
 *
 * @since 0.1.0
 */
export const asJson = <A>(value: A): A => JSON.parse(JSON.stringify(value ?? null))

/**
 * `record` without the `keys` whose value is undefined: a SQL adapter reads an absent optional
 * column as a missing field, and the memory adapters answer alike.
 *
 * @since 0.1.0
 */
export const omitUndefined = <A extends object>(record: A, keys: ReadonlyArray<keyof A>): A => {
  let out: A | undefined
  for (const k of keys) {
    if (k in record && record[k] === undefined) {
      out ??= { ...record }
      delete out[k]
    }
  }
  return out ?? record
}

/**
 * `base` with the `keys` of `from` instead of its own (absent in `from`, absent in the result):
 * what an `update` that writes only some columns leaves.
 *
 * @since 0.1.0
 */
export const withFields = <A extends object>(base: A, from: A, keys: ReadonlyArray<keyof A>): A => {
  const out = { ...base }
  for (const k of keys) {
    if (k in from) out[k] = from[k]
    else delete out[k]
  }
  return out
}
