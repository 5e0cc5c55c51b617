/** @internal The delivery queue's rows and writes, shared by the repository and the dispatcher. */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { QueuedNotification, Subject } from "@kassa/core/ports/DeliveryQueue"
import { type Attempt, type Delivery, DeliveryStatus } from "@kassa/core/webhook/Delivery"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, IntColumn, OptionalDate, OptionalText, reader } from "../rows.js"

/** @internal The columns a delivery is read with; `nextAttemptAt` is the subject's, for its head. */
export const deliveryColumns = `d.id, d.webhook_id, d.subject_type, d.subject_id, d.event_id, d.topic, d.event_type,
  d.status, d.created_at, d.attempts, d.last_attempt_at, d.delivered_at, d.redelivery_of,
  CASE WHEN d.status = 'pending' AND d.id = (SELECT MIN(h.id) FROM webhook_deliveries h
    WHERE h.webhook_id = d.webhook_id AND h.subject_type = d.subject_type AND h.subject_id = d.subject_id
    AND h.status = 'pending') THEN s.next_attempt_at END AS next_attempt_at`

/** @internal */
export const deliveryJoin = `webhook_deliveries d LEFT JOIN webhook_subjects s ON s.webhook_id = d.webhook_id
  AND s.subject_type = d.subject_type AND s.subject_id = d.subject_id`

/** A serial number (BIGINT) as the wire's string id. */
const Serial = Schema.transform(IntColumn, Schema.String, { strict: true, decode: String, encode: Number })

/** @internal A delivery, as `deliveryColumns` reads it. */
export const deliveries = reader(
  Schema.Struct({
    id: Serial,
    webhookId: Schema.String,
    subjectType: Schema.String,
    subjectId: Schema.String,
    eventId: IntColumn,
    topic: Schema.String,
    eventType: Schema.String,
    status: DeliveryStatus,
    createdAt: DateColumn,
    attempts: IntColumn,
    lastAttemptAt: OptionalDate,
    nextAttemptAt: OptionalDate,
    deliveredAt: OptionalDate,
    redeliveryOf: Schema.optionalWith(Serial, { nullable: true, exact: true })
  }),
  ({ eventId, subjectId, webhookId, ...r }): Delivery => ({ ...r, webhookID: webhookId, subjectID: subjectId, eventID: eventId })
)

/** @internal A `webhook_attempts` row. */
export const attempts = reader(
  Schema.Struct({
    deliveryId: Serial,
    number: IntColumn,
    at: DateColumn,
    statusCode: Schema.optionalWith(IntColumn, { nullable: true, exact: true }),
    error: OptionalText,
    durationMs: IntColumn,
    succeeded: BoolColumn
  }),
  ({ deliveryId, ...r }): Attempt => ({ deliveryID: deliveryId, ...r })
)

/** @internal The columns `attempts` reads. */
export const attemptColumns = "delivery_id, number, at, status_code, error, duration_ms, succeeded"

/**
 * @internal
 * Marks the subjects' queues as having work: due now if idle, unchanged if already waiting (a
 * retry keeps its time); bumps their versions either way. One entry per subject.
 */
const touchSubjects = (sql: SqlClient.SqlClient, subjects: ReadonlyArray<Subject>, now: number) =>
  sql`INSERT INTO webhook_subjects ${
    sql.insert(subjects.map((subject) => ({ webhookId: subject.webhookID, subjectType: subject.type, subjectId: subject.id, nextAttemptAt: now, version: 1 })))
  } ON CONFLICT (webhook_id, subject_type, subject_id) DO UPDATE SET
    next_attempt_at = COALESCE(webhook_subjects.next_attempt_at, excluded.next_attempt_at),
    version = webhook_subjects.version + 1`

/** @internal `touchSubjects` of one subject. */
export const touchSubject = (sql: SqlClient.SqlClient, subject: Subject, now: number) => touchSubjects(sql, [subject], now)

const ITEMS_PER_STATEMENT = 500

const decodeId = Schema.decodeUnknownSync(Schema.Struct({ id: IntColumn }))

/** @internal A notification to append to a subject's queue, a redelivery's with the delivery it repeats. */
export interface QueueItem extends QueuedNotification {
  readonly redeliveryOf?: number | undefined
}

const deliveryRow = (item: QueueItem, now: number) => ({
  webhookId: item.subject.webhookID,
  subjectType: item.subject.type,
  subjectId: item.subject.id,
  eventId: item.eventID,
  topic: item.topic,
  eventType: item.eventType,
  body: item.body,
  status: "pending",
  createdAt: now,
  attempts: 0,
  redeliveryOf: item.redeliveryOf ?? null,
  keyId: item.keyID ?? null
})

/** @internal Appends a notification to the subject's queue; answers its id. */
export const enqueue = (sql: SqlClient.SqlClient, item: QueueItem & { readonly now: number }) =>
  Effect.gen(function*() {
    const rows = yield* sql`INSERT INTO webhook_deliveries ${sql.insert(deliveryRow(item, item.now))} RETURNING id`
    yield* touchSubject(sql, item.subject, item.now)
    return decodeId(rows[0]).id
  })

/**
 * @internal
 * Appends notifications to their subjects' queues, in the order given, with one statement for
 * the deliveries and one for the subjects.
 */
export const enqueueMany = (sql: SqlClient.SqlClient, items: ReadonlyArray<QueueItem>, now: number) =>
  Effect.gen(function*() {
    // Chunks keep each statement well below the databases' limits on bound parameters.
    for (let from = 0; from < items.length; from += ITEMS_PER_STATEMENT) {
      const chunk = items.slice(from, from + ITEMS_PER_STATEMENT)
      yield* sql`INSERT INTO webhook_deliveries ${sql.insert(chunk.map((item) => deliveryRow(item, now)))}`
      // A statement may touch a row once: one entry per subject.
      const subjects = new Map(chunk.map((i) => [`${i.subject.webhookID}\u0000${i.subject.type}\u0000${i.subject.id}`, i.subject]))
      yield* touchSubjects(sql, [...subjects.values()], now)
    }
  })

/**
 * @internal
 * Discards what is queued for a deleted webhook, and its subjects with it: the subjects first, as
 * the dispatcher takes them (a subject's row before its deliveries'), or a delivery recorded
 * meanwhile deadlocks with it.
 */
export const discardQueued = (sql: SqlClient.SqlClient, webhookID: string) =>
  Effect.zipRight(
    sql`DELETE FROM webhook_subjects WHERE webhook_id = ${webhookID}`,
    sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE webhook_id = ${webhookID} AND status = 'pending'`
  )
