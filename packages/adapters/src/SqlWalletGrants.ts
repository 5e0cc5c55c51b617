/**
 * `WalletGrantRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WalletGrantRepository } from "@kassa/core/ports/WalletGrantRepository"
import type { WalletGrantRecord } from "@kassa/core/wallet/Wallet"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, reader } from "./internal/rows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const grants = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    walletId: Schema.String,
    amount: IntColumn,
    currency: Schema.String,
    validUntil: DateColumn,
    spent: IntColumn,
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): WalletGrantRecord => ({
    id: r.id,
    partyID: r.partyId,
    walletID: r.walletId,
    amount: r.amount,
    currency: r.currency,
    validUntil: r.validUntil,
    spent: r.spent,
    createdAt: r.createdAt,
    version: r.version
  })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  WalletGrantRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("wallet_grants")
    return {
      findById: (id) =>
        read(sql`SELECT id, party_id, wallet_id, amount, currency, valid_until, spent, created_at, version
            FROM wallet_grants WHERE id = ${id}`).pipe(Effect.map(grants.first), Effect.orDie),
      insert: (g) =>
        insert(sql, "wallet_grants", sql`INSERT INTO wallet_grants ${
          sql.insert({
            id: g.id,
            partyId: g.partyID,
            walletId: g.walletID,
            amount: g.amount,
            currency: g.currency,
            validUntil: g.validUntil.getTime(),
            spent: g.spent,
            createdAt: g.createdAt.getTime(),
            version: g.version
          })
        }`),
      update: (g, expected) =>
        sql`UPDATE wallet_grants SET spent = ${g.spent}, version = ${g.version}
            WHERE id = ${g.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
