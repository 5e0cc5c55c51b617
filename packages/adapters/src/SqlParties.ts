/**
 * `PartyRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Ids, Party } from "@kassa/core"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, flag, IntColumn, reader } from "./internal/rows.js"
import { SqlDriver } from "./sql/driver/Driver.js"
import * as Repository from "./internal/repository.js"

/** A `parties` row. */
const PartyRow = Schema.Struct({
  id: Ids.PartyID,
  name: Schema.String,
  email: Schema.String,
  isBlocked: BoolColumn,
  isSuspended: BoolColumn,
  createdAt: DateColumn,
  version: IntColumn
})

const parties = reader(PartyRow, (r): Party.PartyRecord => r)

/** @internal Reads a `parties` row (the shops' governed read joins one). */
export const fromRow = parties.one

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  PartyRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { governance } = yield* SqlDriver
    return {
      findById: (id) =>
        sql`SELECT * FROM parties WHERE id = ${id}`.pipe(
          Effect.map(parties.first),
          Effect.orDie
        ),
      insert: (p) =>
        sql`INSERT INTO parties ${
          sql.insert({
            id: p.id,
            name: p.name,
            email: p.email,
            isBlocked: flag(p.isBlocked),
            isSuspended: flag(p.isSuspended),
            createdAt: p.createdAt.getTime(),
            version: p.version
          })
        }`.pipe(Effect.asVoid, Effect.orDie),
      update: (p, expected) =>
        sql`UPDATE parties SET is_blocked = ${flag(p.isBlocked)}, is_suspended = ${flag(p.isSuspended)},
            version = ${p.version} WHERE id = ${p.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie,
          // the shops' cache holds parties too
          Effect.ensuring(Effect.sync(governance.invalidate))
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
