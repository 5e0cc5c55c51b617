/**
 * `WalletWebhookRepository` on `SqlClient`. A delete removes the row and discards the webhook's
 * queue in one transaction; the delivery queue reads a wallet webhook's URL and party by its id.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type WalletSubscriber, WalletWebhookRepository } from "@kassa/core/ports/WalletWebhookRepository"
import { WalletWebhookScope, type WalletWebhookRecord } from "@kassa/core/wallet-webhook/WalletWebhook"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, JsonColumn, OptionalText, reader } from "./internal/rows.js"
import { discardQueued } from "./internal/webhooks/queue.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const HookRow = Schema.Struct({
  id: Schema.String,
  partyId: Schema.String,
  identityId: Schema.String,
  scope: JsonColumn(WalletWebhookScope),
  url: Schema.String,
  createdAt: DateColumn
})

const toHook = (r: typeof HookRow.Type): WalletWebhookRecord => ({
  id: r.id,
  partyID: r.partyId,
  identityID: r.identityId,
  scope: r.scope,
  url: r.url,
  createdAt: r.createdAt
})

const hooks = reader(HookRow, toHook)

/** A webhook row with its party's current key, if any. */
const subscribers = reader(
  Schema.Struct({ ...HookRow.fields, keyId: OptionalText }),
  (r): WalletSubscriber => ({ hook: toHook(r), keyID: r.keyId })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
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
      subscribers: (partyID, topic) =>
        touchingOnly("wallet_webhooks", "webhook_keys")(
          sql`SELECT w.id, w.party_id, w.identity_id, w.scope, w.url, w.created_at, k.id AS key_id FROM wallet_webhooks w
            LEFT JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL
            WHERE w.party_id = ${partyID} AND w.topic = ${topic} ORDER BY w.created_at, w.id`
        ).pipe(
          Effect.map(subscribers.all),
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
        Effect.gen(function*() {
          const rows = yield* sql`DELETE FROM wallet_webhooks WHERE id = ${id} AND party_id = ${partyID} RETURNING id`
          if (rows.length === 0) return false
          yield* discardQueued(sql, id)
          return true
        }).pipe(sql.withTransaction, Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
