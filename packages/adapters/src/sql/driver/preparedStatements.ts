/**
 * @internal
 * Named prepared statements for a `pg` pool's hot statements. PostgreSQL parses and plans an
 * unnamed statement on every run; a named one is parsed once per connection, and its plan may be
 * kept. `@effect/sql-pg` sends every statement unnamed, so the pool's clients name them: a text
 * gets a name once it has run `hotAfter` times, and at most `maxNamed` texts get one (a
 * connection keeps the statements it prepared until it closes), so rare texts (a search's filters,
 * a long `IN` list) stay unnamed.
 *
 * A prepared statement's result may not change shape: `SELECT *` and `RETURNING *` stay unnamed
 * (another process's migration may add a column), and one that fails with "cached plan must not
 * change result type" (a column's type changed) is run again unnamed, and never named again.
 * Inside a transaction that failure has already aborted it: the transaction fails with it, and
 * its next run goes unnamed.
 *
 * A named run is sent as a `pg` `Query` made from the text, given its name: a query config object
 * (`{ name, text, values }`) is copied property by property (descriptors and all) by `pg` on every
 * run, a read's largest cost in `pg` after its row description. (`Query`'s `name` is the field
 * `pg` reads from the config; `PreparedStatements.test.ts` pins both that it is a `Query` and that
 * the statement is prepared by that name.)
 */
import pg from "pg"
import { columnsFixedByText } from "./resultShape.js"

/** @internal */
export interface Options {
  readonly hotAfter: number
  readonly maxNamed: number
}

const PREPARABLE = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i

const resultTypeChanged = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "0A000" &&
  /cached plan must not change result type/.test(String((error as { message?: unknown }).message))

type Callback = (error: Error | null | undefined, result: unknown) => void
type Query = (...args: Array<unknown>) => unknown

/** @internal Names the hot statements of every client `pool` connects from now on. */
export const nameHotStatements = (pool: pg.Pool, options: Options = { hotAfter: 10, maxNamed: 200 }): void => {
  const runs = new Map<string, number>()
  const names = new Map<string, string>()
  const never = new Set<string>()
  let next = 0

  const nameFor = (text: string): string | undefined => {
    const known = names.get(text)
    if (known !== undefined) return known
    if (names.size >= options.maxNamed || never.has(text) || !PREPARABLE.test(text) || !columnsFixedByText(text)) return undefined
    const count = (runs.get(text) ?? 0) + 1
    if (count < options.hotAfter) {
      if (runs.size >= 10_000) runs.clear()
      runs.set(text, count)
      return undefined
    }
    runs.delete(text)
    const name = `kassa_${next++}`
    names.set(text, name)
    return name
  }

  pool.on("connect", (client) => {
    // `query` is overloaded; only the (text, values, callback) form, the one `@effect/sql-pg` uses, is named.
    const patched = client as unknown as { query: Query }
    const query = client.query.bind(client) as Query
    patched.query = (...args) => {
      const [text, values, callback] = args
      if (args.length !== 3 || typeof text !== "string" || !Array.isArray(values) || typeof callback !== "function") {
        return query(...args)
      }
      const name = nameFor(text)
      if (name === undefined) return query(text, values, callback)
      // (`pg` answers a run that succeeded with a null error, though its types say undefined)
      const named: pg.Query & { name?: string } = new pg.Query(text, values, (error: Error | null | undefined, result: unknown) => {
        if (error && resultTypeChanged(error)) {
          names.delete(text)
          never.add(text)
          // in an aborted transaction the run again fails too: the first failure is the one to tell
          return query(text, values, (again: Error | null, result: unknown) =>
            (callback as Callback)(again !== null && (again as { code?: unknown }).code === "25P02" ? error : again, result))
        }
        ;(callback as Callback)(error, result)
      })
      named.name = name
      return query(named)
    }
  })
}
