/**
 * `DestinationRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { BankCardResource, type DestinationRecord, DestinationStatus } from "@kassa/core/destination/Destination"
import { DestinationRepository } from "@kassa/core/ports/DestinationRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { flag, JsonColumn, optToJson, reader, toJson } from "./internal/rows.js"
import { after, owned, ownedColumns, ownedRow, ownedWhere } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const columns = `${ownedColumns}, resource, vault_token, status`

const destinations = reader(
  Schema.Struct({ ...ownedRow, resource: JsonColumn(BankCardResource), vaultToken: Schema.String, status: DestinationStatus }),
  (r): DestinationRecord => ({ ...owned(r), resource: r.resource, vaultToken: r.vaultToken, status: r.status })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  DestinationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("destinations")
    const own = sql.literal(columns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM destinations WHERE id = ${id}`).pipe(Effect.map(destinations.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM destinations WHERE ${
          sql.and([...ownedWhere(sql, filter), ...after(sql, page)])
        } ORDER BY created_at, id LIMIT ${page.limit + 1}`).pipe(Effect.map(destinations.all), Effect.orDie),
      insert: (d) =>
        insert(sql, "destinations", sql`INSERT INTO destinations ${
          sql.insert({
            id: d.id,
            partyId: d.partyID,
            identityId: d.identityID,
            name: d.name,
            currency: d.currency,
            resource: toJson(d.resource),
            vaultToken: d.vaultToken,
            status: d.status,
            isBlocked: flag(d.isBlocked),
            metadata: optToJson(d.metadata),
            externalId: d.externalID ?? null,
            createdAt: d.createdAt.getTime(),
            version: d.version
          })
        }`),
      update: (d, expected) =>
        sql`UPDATE destinations SET status = ${d.status}, is_blocked = ${flag(d.isBlocked)}, version = ${d.version}
            WHERE id = ${d.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
