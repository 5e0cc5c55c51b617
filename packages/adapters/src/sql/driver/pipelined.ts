/**
 * @internal
 * PostgreSQL's `BEGIN` and `COMMIT` without round trips of their own. `pg` sends a query only once
 * the one before it is answered, so a transaction paid one round trip to open and one to commit
 * beside its statements. The extended protocol runs every message up to a `Sync` in order, and
 * after an error skips the rest up to it: a pool's clients here send
 * - a transaction's `BEGIN` with its first statement (the `BEGIN` is answered at once and kept on
 *   the client until that statement goes): a failed statement leaves the transaction open and
 *   aborted, and its `ROLLBACK` follows as before;
 * - a statement that ends with `andCommit`'s comment, then `COMMIT`, in one round trip: when the
 *   statement fails the `COMMIT` never runs (the caller rolls back), and when the `COMMIT` fails
 *   (a deferred constraint), the statement's run fails with its error.
 * The statement's answer is its own: the `BEGIN`'s and `COMMIT`'s command tags are dropped.
 *
 * A `BEGIN` kept on a client given back to the pool unsent (its transaction ended without a
 * statement) is forgotten: nothing of it reached the server. A first statement that `pg` would
 * parse by name for the first time on that connection goes after a `BEGIN` of its own (`pg`
 * notes a statement parsed by the first parse it hears of, which would be the `BEGIN`'s).
 */
import pg from "pg"

/** @internal The comment that has a statement's run commit its transaction in the same round trip. */
export const COMMIT_AFTER = "/* and COMMIT */"

type Callback = (error: Error | null | undefined, result: unknown) => void
type Query = (...args: Array<unknown>) => unknown

interface Wire {
  parse(config: { readonly text: string }): void
  bind(config: object): void
  execute(config: { readonly portal?: string; readonly rows?: number }): void
  sync(): void
  readonly parsedStatements: Record<string, string>
  readonly submittedNamedStatements: Record<string, string>
}

/** The parts of `pg`'s `Query` this module steers (not in its types). */
interface QueryParts {
  text?: string
  name?: string
  portal?: string
  rows?: number
  callback?: Callback
  requiresPreparation(): boolean
  prepare(connection: Wire): void
  _getRows(connection: Wire, rows: number | undefined): void
  handleCommandComplete(msg: { readonly text: string }, connection: Wire): void
  handleError(error: Error, connection: Wire): void
}

/**
 * @internal
 * The rows a kept `BEGIN` answers (this very array): a transaction that gets them may end with
 * `COMMIT_AFTER` (its client sends the `COMMIT`).
 */
export const beginKept: ReadonlyArray<never> = Object.freeze([])

const unsentResult = { command: null, rowCount: null, rows: beginKept, fields: [] }

/** Puts `text` (a `BEGIN` or a `COMMIT`) in the pipeline as an unnamed statement. */
const sendAlone = (connection: Wire, text: string) => {
  connection.parse({ text })
  connection.bind({})
  connection.execute({})
}

/**
 * `query`, sent with a `BEGIN` before it (`begin`) and, when its text ends with `COMMIT_AFTER`,
 * a `COMMIT` after it. Undefined when it cannot go that way (a statement parsed by name for the
 * first time, after a `BEGIN`).
 */
const pipelined = (query: QueryParts, begin: boolean, wire: Wire): QueryParts | undefined => {
  const commit = typeof query.text === "string" && query.text.endsWith(COMMIT_AFTER)
  if (!begin && !commit) return query
  const complete = query.handleCommandComplete
  query.handleCommandComplete = function(this: QueryParts, msg, connection) {
    if (msg.text === "BEGIN" || msg.text === "COMMIT") return
    complete.call(this, msg, connection)
  }
  if (!query.requiresPreparation()) {
    query.text = `${begin ? "BEGIN; " : ""}${query.text}${commit ? "; COMMIT" : ""}`
    return query
  }
  if (begin && query.name !== undefined && query.name !== "" &&
    wire.parsedStatements[query.name] === undefined && wire.submittedNamedStatements[query.name] === undefined) {
    return undefined
  }
  const prepare = query.prepare
  query.prepare = function(this: QueryParts, connection) {
    if (begin) sendAlone(connection, "BEGIN")
    prepare.call(this, connection)
  }
  if (commit) {
    const getRows = query._getRows
    query._getRows = function(this: QueryParts, connection, rows) {
      if (rows) return getRows.call(this, connection, rows)
      connection.execute({ portal: this.portal ?? "" })
      sendAlone(connection, "COMMIT")
      connection.sync()
    }
  }
  return query
}

/** @internal Has every client `pool` connects from now on send `BEGIN` and `COMMIT` along with statements. */
export const pipelineTransactions = (pool: pg.Pool): void => {
  const kept = new WeakSet<pg.PoolClient>()
  pool.on("release", (_error: unknown, client: pg.PoolClient) => {
    kept.delete(client)
  })
  pool.on("connect", (client) => {
    const patched = client as unknown as { query: Query; connection: Wire }
    const query = client.query.bind(client) as Query
    patched.query = (...args) => {
      const [text, values, callback] = args
      const plain = args.length === 3 && typeof text === "string" && Array.isArray(values) && typeof callback === "function"
      if (plain && text === "BEGIN" && values.length === 0) {
        if (!kept.has(client as pg.PoolClient)) {
          kept.add(client as pg.PoolClient)
          queueMicrotask(() => (callback as Callback)(null, unsentResult))
          return undefined
        }
      }
      const begin = kept.delete(client as pg.PoolClient)
      // a transaction that sent nothing has nothing to end
      if (begin && plain && (text === "COMMIT" || text === "ROLLBACK") && values.length === 0) {
        queueMicrotask(() => (callback as Callback)(null, unsentResult))
        return undefined
      }
      const given = args.length === 1 && args[0] instanceof pg.Query
        ? args[0] as unknown as QueryParts
        : plain
        ? new pg.Query(text, values, callback as Callback) as unknown as QueryParts
        : undefined
      if (given === undefined) {
        if (!begin) return query(...args)
        // (not a form the driver sends in a transaction, a cursor say: its BEGIN goes first, queued
        // ahead of it by `pg`, and what `query` answers is the caller's)
        query("BEGIN", [], () => {})
        return query(...args)
      }
      const sent = pipelined(given, begin, patched.connection)
      if (sent !== undefined) return query(sent)
      return query("BEGIN", [], (error: Error | null) =>
        error ? given.handleError(error, patched.connection) : query(pipelined(given, false, patched.connection)))
    }
  })
}
