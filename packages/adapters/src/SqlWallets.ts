/**
 * `WalletRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WalletRepository } from "@kassa/core/ports/WalletRepository"
import type { WalletRecord } from "@kassa/core/wallet/Wallet"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { flag, optToJson, reader } from "./internal/rows.js"
import { after, owned, ownedColumns, ownedRow, ownedWhere } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const wallets = reader(Schema.Struct(ownedRow), (r): WalletRecord => owned(r))

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  WalletRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("wallets")
    const own = sql.literal(ownedColumns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM wallets WHERE id = ${id}`).pipe(Effect.map(wallets.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM wallets WHERE ${
          sql.and([...ownedWhere(sql, filter), ...after(sql, page)])
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

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
