/**
 * `DestinationRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { BankCardResource, type DestinationRecord, DestinationStatus } from "@kassa/core/destination/Destination"
import { DestinationRepository } from "@kassa/core/ports/DestinationRepository"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, flag, IntColumn, JsonColumn, opt, OptionalText, optToJson, reader, StoredMetadata, toJson } from "./internal/rows.js"
import { after } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"

const columns = "id, party_id, identity_id, name, currency, resource, vault_token, status, is_blocked, metadata, external_id, created_at, version"

const destinations = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    identityId: Schema.String,
    name: Schema.String,
    currency: Schema.String,
    resource: JsonColumn(BankCardResource),
    vaultToken: Schema.String,
    status: DestinationStatus,
    isBlocked: BoolColumn,
    metadata: Schema.optionalWith(JsonColumn(StoredMetadata), { nullable: true, exact: true }),
    externalId: OptionalText,
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): DestinationRecord => ({
    id: r.id,
    partyID: r.partyId,
    identityID: r.identityId,
    name: r.name,
    currency: r.currency,
    resource: r.resource,
    vaultToken: r.vaultToken,
    status: r.status,
    isBlocked: r.isBlocked,
    ...opt("metadata", r.metadata),
    ...opt("externalID", r.externalId),
    createdAt: r.createdAt,
    version: r.version
  })
)

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  DestinationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("destinations")
    const own = sql.literal(columns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM destinations WHERE id = ${id}`).pipe(Effect.map(destinations.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM destinations WHERE ${
          sql.and([
            sql`party_id = ${filter.partyID}`,
            ...(filter.identityID === undefined ? [] : [sql`identity_id = ${filter.identityID}`]),
            ...(filter.currencyID === undefined ? [] : [sql`currency = ${filter.currencyID}`]),
            ...after(sql, page)
          ])
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
