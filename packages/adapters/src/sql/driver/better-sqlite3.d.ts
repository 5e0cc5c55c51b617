/**
 * What the SQLite driver (`sqliteClient.ts`) uses of `better-sqlite3`, which ships no types of its
 * own (`@effect/sql-sqlite-node` depends on it, and so does the driver).
 */
declare module "better-sqlite3" {
  namespace Database {
    interface Statement {
      /** Whether the statement answers rows. */
      readonly reader: boolean
      all(...params: ReadonlyArray<unknown>): Array<unknown>
      run(...params: ReadonlyArray<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
      raw(raw: boolean): this
      /** The result's columns, in order (a reader's). */
      columns(): Array<{ readonly name: string }>
      safeIntegers(safe: boolean): this
    }
  }
  interface Database {
    prepare(source: string): Database.Statement
    pragma(source: string): unknown
    close(): this
  }
  const Database: new(filename: string) => Database
  export = Database
}
