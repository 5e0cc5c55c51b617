/**
 * `WebhookRepository` and `WebhookDeliveries` on `SqlClient`.
 *
 * A deleted webhook keeps its row (`deleted_at`) so the operator still sees its deliveries;
 * every merchant read leaves it out, and its queue is discarded in the delete's transaction. A
 * webhook's `publicKey` is its party's current key (`SqlWebhookKeys`). A redelivery wakes this
 * process's dispatcher (`deliveries`, once its transaction commits).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WebhookDeliveries } from "@kassa/core/ports/WebhookDeliveries"
import { WebhookRepository } from "@kassa/core/ports/WebhookRepository"
import { type WebhookRecord, WebhookScope } from "@kassa/core/webhook/Webhook"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, OptionalText, reader, toJson } from "./internal/rows.js"
import { attemptColumns, attempts, deliveries, deliveryColumns, deliveryJoin, discardQueued, enqueue } from "./internal/webhooks/queue.js"
import { SqlDriver } from "./sql/driver/Driver.js"

/** A webhook row with its party's current public key (`withKey`). */
const webhooks = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    scope: JsonColumn(WebhookScope),
    url: Schema.String,
    publicKey: Schema.String,
    createdAt: DateColumn,
    deletedAt: Schema.NullOr(IntColumn)
  }),
  (r): WebhookRecord => ({
    id: r.id,
    active: r.deletedAt === null,
    scope: r.scope,
    partyID: r.partyId,
    url: r.url,
    publicKey: r.publicKey,
    createdAt: r.createdAt
  })
)

/** The webhooks with their party's current public key. */
const withKey = `SELECT w.id, w.party_id, w.scope, w.url, k.public_key, w.created_at, w.deleted_at FROM webhooks w
  JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL`

/** A webhook subscribed to a topic, with its party's current key if there is one. */
const subscribers = reader(
  Schema.Struct({ id: Schema.String, scope: JsonColumn(WebhookScope), keyId: OptionalText }),
  (r) => ({ webhookID: r.id, scope: r.scope, keyID: r.keyId })
)

const existing = reader(Schema.Struct({ deletedAt: Schema.NullOr(IntColumn) }), (r) => ({ deleted: r.deletedAt !== null }))

const counts = reader(Schema.Struct({ n: IntColumn }), (r) => r.n)

/** The delivery a redelivery repeats. */
const originals = reader(
  Schema.Struct({
    subjectType: Schema.String,
    subjectId: Schema.String,
    eventId: IntColumn,
    topic: Schema.String,
    eventType: Schema.String,
    body: Schema.String
  }),
  (r) => r
)

/** A delivery id from the wire: the queue's serial number. */
const deliveryNumber = (id: string): number | undefined => (/^[1-9]\d{0,15}$/.test(id) ? Number(id) : undefined)

/** @since 0.1.0 @category layers */
export const repositoryLayer = Layer.effect(
  WebhookRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const countForShop = (partyID: string, shopID: string, topic: string) =>
      sql`SELECT COUNT(*) AS n FROM webhooks WHERE party_id = ${partyID} AND shop_id = ${shopID}
        AND topic = ${topic} AND deleted_at IS NULL`.pipe(Effect.map((rows) => counts.one(rows[0])))
    return {
      findById: (partyID, id) =>
        sql`${sql.literal(withKey)} WHERE w.id = ${id} AND w.party_id = ${partyID} AND w.deleted_at IS NULL`.pipe(
          Effect.map(webhooks.first),
          Effect.orDie
        ),
      listByParty: (partyID) =>
        sql`${sql.literal(withKey)} WHERE w.party_id = ${partyID} AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`.pipe(
          Effect.map(webhooks.all),
          Effect.orDie
        ),
      subscribers: (partyID, topic) =>
        sql`SELECT w.id, w.scope, k.id AS key_id FROM webhooks w
          LEFT JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL
          WHERE w.party_id = ${partyID} AND w.topic = ${topic} AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`.pipe(
          Effect.map(subscribers.all),
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
          yield* discardQueued(sql, id)
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
    const { signals } = yield* SqlDriver
    const columns = sql.literal(deliveryColumns)
    const from = sql.literal(deliveryJoin)
    const getOne = (webhookID: string, n: number) =>
      sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} AND d.id = ${n}`.pipe(
        Effect.map(deliveries.first)
      )
    return {
      webhookExists: (webhookID) =>
        sql`SELECT deleted_at FROM webhooks WHERE id = ${webhookID}
          UNION ALL SELECT NULL AS deleted_at FROM wallet_webhooks WHERE id = ${webhookID}`.pipe(
          Effect.map(existing.first),
          Effect.orDie
        ),
      list: (webhookID, query) =>
        (query.status === undefined
          ? sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} ORDER BY d.id DESC LIMIT ${query.limit}`
          : sql`SELECT ${columns} FROM ${from} WHERE d.webhook_id = ${webhookID} AND d.status = ${query.status}
              ORDER BY d.id DESC LIMIT ${query.limit}`).pipe(
            Effect.map(deliveries.all),
            Effect.orDie
          ),
      get: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        return n === undefined ? Effect.succeedNone : Effect.orDie(getOne(webhookID, n))
      },
      attempts: (webhookID, deliveryID) => {
        const n = deliveryNumber(deliveryID)
        if (n === undefined) return Effect.succeed([])
        return sql`SELECT ${sql.literal(attemptColumns)} FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.webhook_id = ${webhookID} AND a.delivery_id = ${n} ORDER BY a.number`.pipe(
          Effect.map(attempts.all),
          Effect.orDie
        )
      },
      redeliver: (webhookID, deliveryID, at) =>
        Effect.gen(function*() {
          const n = deliveryNumber(deliveryID)
          if (n === undefined) return Option.none()
          const found = originals.first(
            yield* sql`SELECT subject_type, subject_id, event_id, topic, event_type, body FROM webhook_deliveries
              WHERE webhook_id = ${webhookID} AND id = ${n}`
          )
          if (Option.isNone(found)) return Option.none()
          const original = found.value
          const id = yield* enqueue(sql, {
            subject: { webhookID, type: original.subjectType, id: original.subjectId },
            eventID: original.eventId,
            topic: original.topic,
            eventType: original.eventType,
            body: original.body,
            now: at.getTime(),
            redeliveryOf: n
          })
          // the fan-out tells the dispatcher of what it queues; this copy is queued behind its back
          yield* signals.notify("deliveries", at.getTime())
          return yield* getOne(webhookID, id)
        }).pipe(Effect.orDie)
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layer = Layer.mergeAll(repositoryLayer, deliveriesLayer)
