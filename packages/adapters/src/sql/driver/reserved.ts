/**
 * @internal
 * A client's connection reserved by hand: taken and given back without a `Scope`. `@effect/sql`'s
 * `reserve` is scoped: a scope made, extended and closed, and a finalizer added to it, about fifty
 * run-loop steps around a reservation that holds the connection for a whole transaction. A client
 * the driver builds (`sqliteClient.ts`) registers how its connection is reserved so; any other
 * client is reserved with its `reserve`, in a scope.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Effect from "effect/Effect"

/** @internal A connection reserved until `release`, which its holder runs once. */
export interface Reservation {
  readonly conn: SqlConnection.Connection
  readonly release: Effect.Effect<void>
}

/** @internal Reserves the connection (uninterruptibly: the caller is). */
export type Reserve = Effect.Effect<Reservation, SqlError>

const reserves = new WeakMap<object, Reserve>()

/** @internal Registers how `client`'s connection is reserved without a scope. */
export const register = (client: SqlClient.SqlClient, reserve: Reserve): void => {
  reserves.set(client.reserve, reserve)
}

/** @internal How `client`'s connection is reserved without a scope, if registered. */
export const of = (client: SqlClient.SqlClient): Reserve | undefined => reserves.get(client.reserve)
