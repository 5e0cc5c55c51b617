/**
 * `WalletWebhookRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WalletWebhookRepository } from "@kassa/core/ports/WalletWebhookRepository"
import { WalletWebhookScope, type WalletWebhookRecord } from "@kassa/core/wallet-webhook/WalletWebhook"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { DateColumn, JsonColumn, reader } from "./internal/rows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"

const hooks = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    identityId: Schema.String,
    scope: JsonColumn(WalletWebhookScope),
    url: Schema.String,
    createdAt: DateColumn
  }),
  (r): WalletWebhookRecord => ({
    id: r.id,
    partyID: r.partyId,
    identityID: r.identityId,
    scope: r.scope,
    url: r.url,
    createdAt: r.createdAt
  })
)

/** @since 0.1.0 @category layers */
export const layer = Layer.effect(
  WalletWebhookRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("wallet_webhooks")
    return {
      findById: (partyID, id) =>
        read(sql`SELECT id, party_id, identity_id, scope, url, created_at FROM wallet_webhooks
            WHERE id = ${id} AND party_id = ${partyID}`).pipe(Effect.map(hooks.first), Effect.orDie),
      listByIdentity: (partyID, identityID) =>
        read(sql`SELECT id, party_id, identity_id, scope, url, created_at FROM wallet_webhooks
            WHERE party_id = ${partyID} AND identity_id = ${identityID} ORDER BY created_at, id`).pipe(
          Effect.map(hooks.all),
          Effect.orDie
        ),
      subscribers: (partyID, identityID, topic) =>
        read(sql`SELECT id, party_id, identity_id, scope, url, created_at FROM wallet_webhooks
            WHERE party_id = ${partyID} AND identity_id = ${identityID} AND topic = ${topic} ORDER BY created_at, id`).pipe(
          Effect.map(hooks.all),
          Effect.orDie
        ),
      insert: (w) =>
        insert(sql, "wallet_webhooks", sql`INSERT INTO wallet_webhooks ${
          sql.insert({
            id: w.id,
            partyId: w.partyID,
            identityId: w.identityID,
            topic: w.scope.topic,
            scope: JSON.stringify(w.scope),
            url: w.url,
            createdAt: w.createdAt.getTime()
          })
        }`),
      delete: (partyID, id) =>
        sql`DELETE FROM wallet_webhooks WHERE id = ${id} AND party_id = ${partyID} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
)
