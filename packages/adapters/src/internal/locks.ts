/**
 * @internal
 * Row locks: PostgreSQL's locking clause, nothing on SQLite, whose one writer at a time needs none.
 */
import type * as SqlClient from "@effect/sql/SqlClient"

/** @internal `clause` (`FOR UPDATE`, `FOR UPDATE OF p SKIP LOCKED`, …) on PostgreSQL, "" elsewhere. */
export const rowLock = (sql: SqlClient.SqlClient, clause: string) =>
  sql.onDialectOrElse({ pg: () => sql.literal(clause), orElse: () => sql.literal("") })
