/**
 * `WalletRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WalletRepository } from "@kassa/core/ports/WalletRepository"
import type { WalletRecord } from "@kassa/core/wallet/Wallet"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, flag, IntColumn, JsonColumn, opt, OptionalText, optToJson, reader, StoredMetadata } from "./internal/rows.js"
import { after } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"

const columns = "id, party_id, identity_id, name, currency, is_blocked, metadata, external_id, created_at, version"

const wallets = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    identityId: Schema.String,
    name: Schema.String,
    currency: Schema.String,
    isBlocked: BoolColumn,
    metadata: Schema.optionalWith(JsonColumn(StoredMetadata), { nullable: true, exact: true }),
    externalId: OptionalText,
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): WalletRecord => ({
    id: r.id,
    partyID: r.partyId,
    identityID: r.identityId,
    name: r.name,
    currency: r.currency,
    isBlocked: r.isBlocked,
    ...opt("metadata", r.metadata),
    ...opt("externalID", r.externalId),
    createdAt: r.createdAt,
    version: r.version
  })
)

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  WalletRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("wallets")
    const own = sql.literal(columns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM wallets WHERE id = ${id}`).pipe(Effect.map(wallets.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM wallets WHERE ${
          sql.and([
            sql`party_id = ${filter.partyID}`,
            ...(filter.identityID === undefined ? [] : [sql`identity_id = ${filter.identityID}`]),
            ...(filter.currencyID === undefined ? [] : [sql`currency = ${filter.currencyID}`]),
            ...after(sql, page)
          ])
        } ORDER BY created_at, id LIMIT ${page.limit + 1}`).pipe(Effect.map(wallets.all), Effect.orDie),
      insert: (w) =>
        insert(sql, "wallets", sql`INSERT INTO wallets ${
          sql.insert({
            id: w.id,
            partyId: w.partyID,
            identityId: w.identityID,
            name: w.name,
            currency: w.currency,
            isBlocked: flag(w.isBlocked),
            metadata: optToJson(w.metadata),
            externalId: w.externalID ?? null,
            createdAt: w.createdAt.getTime(),
            version: w.version
          })
        }`),
      update: (w, expected) =>
        sql`UPDATE wallets SET is_blocked = ${flag(w.isBlocked)}, version = ${w.version}
            WHERE id = ${w.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
)
