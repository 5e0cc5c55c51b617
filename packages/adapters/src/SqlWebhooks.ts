/**
 * `WebhookRepository` and `WebhookDeliveries` on `SqlClient`.
 *
 * A deleted webhook keeps its row (`deleted_at`) so the operator still sees its deliveries;
 * every merchant read leaves it out, and its queue is discarded in the delete's transaction. A
 * webhook's `publicKey` is its party's current key (`SqlWebhookKeys`).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WebhookDeliveries } from "@kassa/core/ports/WebhookDeliveries"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import type { WebhookRecord, WebhookScope } from "@kassa/core/webhook/Webhook"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { date, int, json, toJson } from "./internal/rows.js"
import { attemptFromRow, deliveryColumns, deliveryFromRow, deliveryJoin, enqueue } from "./internal/webhooks/queue.js"

const fromRow = (r: any): WebhookRecord => ({
  id: r.id,
  active: r.deletedAt === null || r.deletedAt === undefined,
  scope: json(r.scope),
  partyID: r.partyId,
  url: r.url,
  publicKey: r.publicKey,
  createdAt: date(r.createdAt)
})

/** The webhooks with their party's current public key. */
const withKey = `SELECT w.*, k.public_key FROM webhooks w
  JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL`

/** A delivery id from the wire: the queue's serial number. */
const deliveryNumber = (id: string): number | undefined => (/^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined)

/** @since 0.1.0 @category layers */
export const repositoryLayer = Layer.effect(
  WebhookRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const countForShop = (partyID: string, shopID: string, topic: string) =>
      sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM webhooks WHERE party_id = ${partyID} AND shop_id = ${shopID}
        AND topic = ${topic} AND deleted_at IS NULL`.pipe(Effect.map((rows) => int(rows[0]!.n)))
    return {
      findById: (partyID, id) =>
        sql`${sql.literal(withKey)} WHERE w.id = ${id} AND w.party_id = ${partyID} AND w.deleted_at IS NULL`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow))),
          Effect.orDie
        ),
      listByParty: (partyID) =>
        sql`${sql.literal(withKey)} WHERE w.party_id = ${partyID} AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`.pipe(
          Effect.map((rows) => rows.map(fromRow)),
          Effect.orDie
        ),
      subscribers: (partyID, topic) =>
        sql<{ id: string; scope: unknown; keyId: string | null }>`SELECT w.id, w.scope, k.id AS key_id FROM webhooks w
          LEFT JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL
          WHERE w.party_id = ${partyID} AND w.topic = ${topic} AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`.pipe(
          Effect.map((rows) => rows.map((r) => ({ webhookID: r.id, scope: json<WebhookScope>(r.scope), keyID: r.keyId ?? undefined }))),
          Effect.orDie
        ),
      countForShop: (partyID, shopID, topic) => Effect.orDie(countForShop(partyID, shopID, topic)),
      insertWithin: (w, limit) =>
        Effect.gen(function*() {
          if (limit !== undefined) {
            // Serialises creations for one shop (SQLite serialises every write transaction).
            yield* sql.onDialectOrElse({
              pg: () => sql`SELECT id FROM shops WHERE party_id = ${w.partyID} AND id = ${w.scope.shopID} FOR UPDATE`,
              orElse: () => Effect.void
            })
            if ((yield* countForShop(w.partyID, w.scope.shopID, w.scope.topic)) >= limit) return false
          }
          yield* sql`INSERT INTO webhooks ${
            sql.insert({
              id: w.id,
              partyId: w.partyID,
              shopId: w.scope.shopID,
              topic: w.scope.topic,
              scope: toJson(w.scope),
              url: w.url,
              createdAt: w.createdAt.getTime(),
              deletedAt: null
            })
          }`
          return true
        }).pipe(Effect.orDie),
      delete: (partyID, id, at) =>
        Effect.gen(function*() {
          const rows = yield* sql`UPDATE webhooks SET deleted_at = ${at.getTime()}
            WHERE id = ${id} AND party_id = ${partyID} AND deleted_at IS NULL RETURNING id`
          if (rows.length === 0) return false
          yield* sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE webhook_id = ${id} AND status = 'pending'`
          yield* sql`DELETE FROM webhook_subjects WHERE webhook_id = ${id}`
          return true
        }).pipe(Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const deliveriesLayer = Layer.effect(
  WebhookDeliveries,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(deliveryColumns)
    const from = sql.literal(deliveryJoin)
    const getOne = (webhookID: string, n: number) =>
      sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} AND d.id = ${n}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(deliveryFromRow)))
      )
    return {
      webhookExists: (webhookID) =>
        sql<{ deletedAt: unknown }>`SELECT deleted_at FROM webhooks WHERE id = ${webhookID}`.pipe(
          Effect.map((rows) =>
            Option.fromNullable(rows[0]).pipe(
              Option.map((r) => ({ deleted: r.deletedAt !== null && r.deletedAt !== undefined }))
            )
          ),
          Effect.orDie
        ),
      list: (webhookID, query) =>
        (query.status === undefined
          ? sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} ORDER BY d.id DESC LIMIT ${query.limit}`
          : sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} AND d.status = ${query.status}
              ORDER BY d.id DESC LIMIT ${query.limit}`).pipe(
            Effect.map((rows) => rows.map(deliveryFromRow)),
            Effect.orDie
          ),
      get: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        return n === undefined ? Effect.succeedNone : Effect.orDie(getOne(webhookID, n))
      },
      attempts: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        if (n === undefined) return Effect.succeed([])
        return sql`SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.webhook_id = ${webhookID} AND a.delivery_id = ${n} ORDER BY a.number`.pipe(
          Effect.map((rows) => rows.map(attemptFromRow)),
          Effect.orDie
        )
      },
      redeliver: (webhookID, deliveryID, at) =>
        Effect.gen(function*() {
          const n = deliveryNumber(deliveryID)
          if (n === undefined) return Option.none()
          const rows = yield* sql<any>`SELECT * FROM webhook_deliveries WHERE webhook_id = ${webhookID} AND id = ${n}`
          const original = rows[0]
          if (original === undefined) return Option.none()
          const id = yield* enqueue(sql, {
            subject: { webhookID, type: original.subjectType, id: original.subjectId },
            eventID: int(original.eventId),
            topic: original.topic,
            eventType: original.eventType,
            body: original.body,
            now: at.getTime(),
            redeliveryOf: n
          })
          return yield* getOne(webhookID, id)
        }).pipe(Effect.orDie)
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(repositoryLayer, deliveriesLayer)
