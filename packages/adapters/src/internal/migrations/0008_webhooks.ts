import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * @internal
 * Webhooks and their durable delivery queue.
 *
 * - `webhooks`: one row per webhook; a delete sets `deleted_at` (the operator still sees its
 *   deliveries). The private key is sealed (`private_key`), never in the clear.
 * - `webhook_subjects`: one queue per webhook × subject (an invoice, a customer): when its head is
 *   due (`next_attempt_at`, NULL when idle), and which dispatcher holds it (`locked_until`,
 *   `lock_owner`). `version` counts enqueues, so a dispatcher never idles a queue that just got
 *   a notification.
 * - `webhook_deliveries`: the notifications, in queue order by `id`, with the exact body sent.
 * - `webhook_attempts`: every attempt to send one.
 *
 * Every statement is `IF NOT EXISTS`: running it twice is harmless.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const serial = sql.onDialectOrElse({
    pg: () => "BIGSERIAL PRIMARY KEY",
    orElse: () => "INTEGER PRIMARY KEY AUTOINCREMENT"
  })
  const statements = [
    `CREATE TABLE IF NOT EXISTS webhooks (
      id TEXT PRIMARY KEY,
      party_id TEXT NOT NULL,
      shop_id TEXT NOT NULL,
      topic TEXT NOT NULL,
      scope TEXT NOT NULL,
      url TEXT NOT NULL,
      public_key TEXT NOT NULL,
      private_key TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      deleted_at BIGINT
    )`,
    `CREATE INDEX IF NOT EXISTS webhooks_party ON webhooks (party_id, created_at)`,
    `CREATE INDEX IF NOT EXISTS webhooks_shop ON webhooks (party_id, shop_id, topic)`,
    `CREATE TABLE IF NOT EXISTS webhook_subjects (
      webhook_id TEXT NOT NULL,
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      next_attempt_at BIGINT,
      locked_until BIGINT,
      lock_owner TEXT,
      version INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (webhook_id, subject_type, subject_id)
    )`,
    `CREATE INDEX IF NOT EXISTS webhook_subjects_due ON webhook_subjects (next_attempt_at)`,
    `CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id ${serial},
      webhook_id TEXT NOT NULL,
      subject_type TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      event_id INTEGER NOT NULL,
      topic TEXT NOT NULL,
      event_type TEXT NOT NULL,
      body TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      first_attempt_at BIGINT,
      last_attempt_at BIGINT,
      delivered_at BIGINT,
      redelivery_of BIGINT
    )`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries_queue
      ON webhook_deliveries (webhook_id, subject_type, subject_id, status, id)`,
    `CREATE INDEX IF NOT EXISTS webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id)`,
    `CREATE TABLE IF NOT EXISTS webhook_attempts (
      delivery_id BIGINT NOT NULL,
      number INTEGER NOT NULL,
      at BIGINT NOT NULL,
      status_code INTEGER,
      error TEXT,
      duration_ms INTEGER NOT NULL,
      succeeded INTEGER NOT NULL,
      PRIMARY KEY (delivery_id, number)
    )`,
    // The fan-out takes an aggregate's outbox rows in order: it looks for earlier pending ones.
    `CREATE INDEX IF NOT EXISTS outbox_aggregate_pending ON outbox (aggregate_type, aggregate_id, seq)`
  ]
  for (const statement of statements) yield* sql.unsafe(statement)
})
