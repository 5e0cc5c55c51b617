/**
 * `DeliveryQueue` on `SqlClient`: `webhook_deliveries` holds every notification queued, in its
 * subject's order (`id`); `webhook_subjects` holds one row per subject with a queue, which is its
 * own durable timer (`next_attempt_at`, NULL when waiting for nothing), its lease (`lock_owner`,
 * `locked_until`) and its version (bumped by every enqueue, so a worker can tell whether its queue
 * grew since it read it). A subject given back with its queue drained at its lease's version is
 * deleted; an enqueue makes it afresh (an enqueue that bumped the version first keeps it).
 *
 * A claim takes due subjects on PostgreSQL with `FOR UPDATE SKIP LOCKED`, and on both dialects
 * only subjects no live lease holds, so no two workers send for one subject at once; it reads
 * their queues with it (on PostgreSQL in the same statement, on SQLite in one more for all of
 * them). Successful attempts of concurrent subjects are recorded together, one statement per
 * batch (one transaction on SQLite); a failed attempt is recorded with the subject's next due
 * time, or with the discard of its queue, in one transaction.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { type Attempt, type Claimed, DeliveryQueue, type Lease, type Pending, type Subject } from "@kassa/core/ports/DeliveryQueue"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Batcher from "../sql/driver/batcher.js"
import { rowLock } from "../internal/locks.js"
import { IntColumn, OptionalDate, reader } from "../internal/rows.js"
import { enqueueMany } from "../internal/webhooks/queue.js"
import * as Statements from "../sql/driver/Statements.js"

/** The queue's head and the notifications behind it, read at once. */
const HEADS_PER_READ = 20
/** Successful attempts recorded by one statement at most. */
const RECORDS_PER_BATCH = 256

/** A process keeps at most this many keys' sealed private halves. */
const SEALED_KEYS_KEPT = 10_000

/**
 * What a queued notification is sent with: its webhook (a payments one, `w`, or a wallet one,
 * `ww`; a wallet webhook's row goes with its delete, so none of either reads as deleted) and the
 * keys that may sign it, by id: the one it was queued under (`queued_key_id`) and its party's
 * current one (`current_key_id`). A key's sealed private half never changes: it is read once a
 * process (`keysOf`), not with every notification (3.3 KB a row, most of a claim's reading).
 */
const headColumns = `d.id, d.attempts, d.first_attempt_at, d.body, COALESCE(w.url, ww.url) AS url,
  CASE WHEN w.id IS NULL AND ww.id IS NULL THEN 0 ELSE w.deleted_at END AS deleted_at,
  qk.id AS queued_key_id, qk.retired_at AS queued_key_retired_at, ck.id AS current_key_id`
const headJoins = `webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
  LEFT JOIN wallet_webhooks ww ON ww.id = d.webhook_id
  LEFT JOIN webhook_keys qk ON qk.id = d.key_id
  LEFT JOIN webhook_keys ck ON ck.party_id = COALESCE(w.party_id, ww.party_id) AND ck.retired_at IS NULL`

/** A queued notification as `headColumns` reads it: `Pending` with its keys by id. */
interface Head {
  readonly pending: Omit<Pending, "queuedKey" | "currentKey">
  readonly queuedKey: { readonly id: string; readonly retiredAt: Date | undefined } | undefined
  readonly currentKeyID: string | undefined
}

const heads = reader(
  Schema.Struct({
    id: IntColumn,
    attempts: IntColumn,
    firstAttemptAt: Schema.NullOr(IntColumn),
    body: Schema.String,
    url: Schema.NullOr(Schema.String),
    deletedAt: Schema.NullOr(IntColumn),
    queuedKeyId: Schema.NullOr(Schema.String),
    queuedKeyRetiredAt: OptionalDate,
    currentKeyId: Schema.NullOr(Schema.String)
  }),
  (r): Head => ({
    pending: {
      deliveryID: r.id,
      attempts: r.attempts,
      firstAttemptAt: r.firstAttemptAt ?? undefined,
      body: r.body,
      url: r.url ?? "",
      webhookDeleted: r.deletedAt !== null
    },
    queuedKey: r.queuedKeyId === null ? undefined : { id: r.queuedKeyId, retiredAt: r.queuedKeyRetiredAt },
    currentKeyID: r.currentKeyId ?? undefined
  })
)

/** The heads a `LEFT JOIN` read: a subject with an empty queue comes with one row of NULLs. */
const headsPresent = (rows: ReadonlyArray<{ readonly id?: unknown }>): Array<Head> =>
  rows.flatMap((r) => (r.id === null || r.id === undefined ? [] : [heads.one(r)]))

const sealedKeys = reader(Schema.Struct({ id: Schema.String, privateKey: Schema.String }), (r) => r)

/** A subject claimed, as the claim's `RETURNING` names it. */
const claims = reader(
  Schema.Struct({ webhookId: Schema.String, subjectType: Schema.String, subjectId: Schema.String, version: IntColumn }),
  (r) => ({ subject: { webhookID: r.webhookId, type: r.subjectType, id: r.subjectId }, version: r.version })
)

/** A subject claimed, as a statement that joins its queue to it names it (`c_…`). */
const joinedSubjects = reader(
  Schema.Struct({ cWebhookId: Schema.String, cSubjectType: Schema.String, cSubjectId: Schema.String }),
  (r): Subject => ({ webhookID: r.cWebhookId, type: r.cSubjectType, id: r.cSubjectId })
)

const versions = reader(Schema.Struct({ version: IntColumn }), (r) => r.version)
const lockVersions = reader(Schema.Struct({ lockVersion: IntColumn }), (r) => r.lockVersion)

const subjectKey = (s: Subject) => `${s.webhookID}\u0000${s.type}\u0000${s.id}`

/** A successful attempt to record; `release` gives the subject back (its queue was drained at `version`). */
interface Delivered {
  readonly attempt: Attempt
  readonly release: Lease | undefined
}

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const skipLocked = (of: string) => rowLock(sql, `FOR UPDATE${of} SKIP LOCKED`)

  const subjectIs = (s: Subject) => sql`webhook_id = ${s.webhookID} AND subject_type = ${s.type} AND subject_id = ${s.id}`

  // The keys' sealed private halves by id, as read so far.
  const sealed = new Map<string, string>()
  /** The queues read, their keys' sealed halves filled in (those this process has not read yet, with one statement). */
  const keysOf = (queues: ReadonlyArray<ReadonlyArray<Head>>): Effect.Effect<Array<Array<Pending>>, SqlError> => {
    const known = new Map<string, string>()
    const missing = new Set<string>()
    const need = (id: string | undefined) => {
      if (id === undefined || known.has(id)) return
      const ref = sealed.get(id)
      if (ref === undefined) missing.add(id)
      else known.set(id, ref)
    }
    for (const queue of queues) {
      for (const h of queue) {
        need(h.queuedKey?.id)
        need(h.currentKeyID)
      }
    }
    const read = missing.size === 0
      ? Effect.void
      : Effect.map(sql`SELECT id, private_key FROM webhook_keys WHERE ${sql.in("id", [...missing])}`, (rows) => {
        for (const { id, privateKey } of sealedKeys.all(rows)) {
          known.set(id, privateKey)
          if (sealed.size >= SEALED_KEYS_KEPT) sealed.clear()
          sealed.set(id, privateKey)
        }
      })
    return Effect.map(read, () =>
      queues.map((queue) =>
        queue.map((h): Pending => ({
          ...h.pending,
          queuedKey: h.queuedKey === undefined ? undefined : { privateKeyRef: known.get(h.queuedKey.id) ?? "", retiredAt: h.queuedKey.retiredAt },
          currentKey: h.currentKeyID === undefined ? "" : known.get(h.currentKeyID) ?? ""
        }))
      ))
  }

  /** The head of a subject's queue and what follows it (`c`: the subject's columns). */
  const headsOf = (c: { readonly webhookID: unknown; readonly type: unknown; readonly id: unknown }) =>
    sql`SELECT ${sql.literal(headColumns)} FROM ${sql.literal(headJoins)}
      WHERE d.webhook_id = ${c.webhookID} AND d.subject_type = ${c.type} AND d.subject_id = ${c.id}
      AND d.status = 'pending' ORDER BY d.id LIMIT ${HEADS_PER_READ}`

  const claimDue = (worker: string, limit: number, now: number, leaseMs: number) => {
    const claim = sql`UPDATE webhook_subjects SET locked_until = ${now + leaseMs}, lock_owner = ${worker}
      WHERE (webhook_id, subject_type, subject_id) IN (
        SELECT webhook_id, subject_type, subject_id FROM webhook_subjects
        WHERE next_attempt_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
        ORDER BY next_attempt_at LIMIT ${limit} ${skipLocked("")})
      RETURNING webhook_id, subject_type, subject_id, version`
    return sql.onDialectOrElse({
      pg: () =>
        sql`WITH c AS (${claim})
          SELECT c.webhook_id AS c_webhook_id, c.subject_type AS c_subject_type, c.subject_id AS c_subject_id,
            c.version AS lock_version, h.*
          FROM c LEFT JOIN LATERAL (${
          headsOf({ webhookID: sql.literal("c.webhook_id"), type: sql.literal("c.subject_type"), id: sql.literal("c.subject_id") })
        }) h ON true ORDER BY c_webhook_id, c_subject_type, c_subject_id, h.id`.pipe(
          Effect.flatMap((rows) => {
            const claimed = new Map<string, { readonly lease: Lease; readonly heads: Array<Head> }>()
            for (const r of rows) {
              const subject = joinedSubjects.one(r)
              const key = subjectKey(subject)
              let c = claimed.get(key)
              if (c === undefined) {
                c = { lease: { subject, worker, version: lockVersions.one(r) }, heads: [] }
                claimed.set(key, c)
              }
              c.heads.push(...headsPresent([r]))
            }
            const all = [...claimed.values()]
            return Effect.map(keysOf(all.map((c) => c.heads)), (queues) =>
              all.map(({ lease }, i): Claimed => ({ lease, pending: queues[i]!, complete: queues[i]!.length < HEADS_PER_READ })))
          })
        ),
      // SQLite: the claimed subjects' queues in one more statement, for all of them. Each subject's
      // queue is looked up by the queue's index (the subjects first, CROSS JOIN keeps that order):
      // a row-value IN let SQLite read every delivery its webhook ever had.
      orElse: () =>
        claim.pipe(Effect.map(claims.all), Effect.flatMap((rows) =>
          rows.length === 0 ? Effect.succeed([]) : sql`SELECT * FROM (
              SELECT d.webhook_id AS c_webhook_id, d.subject_type AS c_subject_type, d.subject_id AS c_subject_id,
                ${sql.literal(headColumns)},
                ROW_NUMBER() OVER (PARTITION BY d.webhook_id, d.subject_type, d.subject_id ORDER BY d.id) AS rn
              FROM (VALUES ${sql.join(", ", false)(rows.map(({ subject: c }) => sql`(${c.webhookID}, ${c.type}, ${c.id})`))}) AS c
              CROSS JOIN ${sql.literal(headJoins)}
              WHERE d.webhook_id = c.column1 AND d.subject_type = c.column2 AND d.subject_id = c.column3
              AND d.status = 'pending')
            WHERE rn <= ${HEADS_PER_READ} ORDER BY id`.pipe(
            Effect.flatMap((found) => {
              const queues = new Map<string, Array<Head>>()
              for (const h of found) {
                const key = subjectKey(joinedSubjects.one(h))
                const queue = queues.get(key)
                if (queue === undefined) queues.set(key, [heads.one(h)])
                else queue.push(heads.one(h))
              }
              return Effect.map(keysOf(rows.map(({ subject }) => queues.get(subjectKey(subject)) ?? [])), (read) =>
                rows.map(({ subject, version }, i): Claimed => ({
                  lease: { subject, worker, version },
                  pending: read[i]!,
                  complete: read[i]!.length < HEADS_PER_READ
                })))
            })
          )
        ))
    })
  }

  /**
   * Extends the lease of a subject the worker holds and reads the head of its queue and what
   * follows: one statement on PostgreSQL.
   */
  const renew = (s: Subject, worker: string, until: number): Effect.Effect<Option.Option<Claimed>, SqlError> => {
    const queue = headsOf(s)
    const lock = sql`UPDATE webhook_subjects SET locked_until = ${until}
      WHERE ${subjectIs(s)} AND lock_owner = ${worker} RETURNING version`
    const claimed = (version: number, rows: ReadonlyArray<{ readonly id?: unknown }>) =>
      Effect.map(keysOf([headsPresent(rows)]), ([pending]) =>
        Option.some<Claimed>({ lease: { subject: s, worker, version }, pending: pending!, complete: pending!.length < HEADS_PER_READ }))
    return sql.onDialectOrElse({
      pg: () =>
        sql`WITH l AS (${lock}) SELECT l.version AS lock_version, h.* FROM l LEFT JOIN LATERAL (${queue}) h ON true`.pipe(
          Effect.flatMap((rows) => rows.length === 0 ? Effect.succeed(Option.none()) : claimed(lockVersions.one(rows[0]), rows))
        ),
      orElse: () =>
        Effect.gen(function*() {
          const locked = yield* lock
          if (locked.length === 0) return Option.none()
          return yield* claimed(versions.one(locked[0]), yield* queue)
        })
    })
  }

  /**
   * Records successful attempts, each giving its subject back when it drained the queue
   * (`release`): one statement on PostgreSQL, one transaction elsewhere, for a whole batch.
   */
  const writeDelivered = (batch: ReadonlyArray<Delivered>): Effect.Effect<void, SqlError> => {
    const rows = JSON.stringify(batch.map(({ attempt: a, release: l }) => ({
      id: a.deliveryID,
      number: a.number,
      first: a.firstAttemptAt,
      at: a.startedAt,
      ended_at: a.endedAt,
      status_code: a.statusCode ?? null,
      error: a.error ?? null,
      duration_ms: a.durationMs,
      webhook_id: l?.subject.webhookID ?? null,
      subject_type: l?.subject.type ?? null,
      subject_id: l?.subject.id ?? null,
      worker: l?.worker ?? null,
      version: l?.version ?? null
    })))
    return sql.onDialectOrElse({
      // A subject drained at its lease's version is deleted, the others (queued since, also by an
      // enqueue the delete waited for) given back. NOT IN is a hashed lookup; an anti-join on the
      // deleted rows was planned as a nested loop (48 ms for 256 records).
      pg: () =>
        sql`WITH v AS (SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS v(id bigint, number integer,
            first bigint, at bigint, ended_at bigint, status_code integer, error text, duration_ms integer,
            webhook_id text, subject_type text, subject_id text, worker text, version integer)),
          a AS (INSERT INTO webhook_attempts (delivery_id, number, at, status_code, error, duration_ms, succeeded)
            SELECT id, number, at, status_code, error, duration_ms, 1 FROM v),
          d AS (UPDATE webhook_deliveries w SET attempts = v.number, first_attempt_at = v.first, last_attempt_at = v.at,
            status = 'delivered', delivered_at = v.ended_at FROM v WHERE w.id = v.id),
          gone AS (DELETE FROM webhook_subjects s USING v WHERE v.version IS NOT NULL AND s.webhook_id = v.webhook_id
            AND s.subject_type = v.subject_type AND s.subject_id = v.subject_id AND s.lock_owner = v.worker
            AND s.version = v.version RETURNING s.webhook_id, s.subject_type, s.subject_id)
          UPDATE webhook_subjects s SET locked_until = NULL, lock_owner = NULL
          FROM v WHERE v.version IS NOT NULL AND s.webhook_id = v.webhook_id AND s.subject_type = v.subject_type
            AND s.subject_id = v.subject_id AND s.lock_owner = v.worker
            AND (s.webhook_id, s.subject_type, s.subject_id) NOT IN (SELECT webhook_id, subject_type, subject_id FROM gone)`.pipe(
            Effect.asVoid
          ),
      // SQLite: four statements for the whole batch, its rows read from the same JSON.
      orElse: () => {
        const v = sql`(SELECT value ->> 'id' AS id, value ->> 'number' AS number, value ->> 'first' AS first,
          value ->> 'at' AS at, value ->> 'ended_at' AS ended_at, value ->> 'status_code' AS status_code,
          value ->> 'error' AS error, value ->> 'duration_ms' AS duration_ms, value ->> 'webhook_id' AS webhook_id,
          value ->> 'subject_type' AS subject_type, value ->> 'subject_id' AS subject_id, value ->> 'worker' AS worker,
          value ->> 'version' AS version
          FROM json_each(${rows}))`
        return Effect.all([
          sql`INSERT INTO webhook_attempts (delivery_id, number, at, status_code, error, duration_ms, succeeded)
            SELECT id, number, at, status_code, error, duration_ms, 1 FROM ${v} AS v`,
          sql`UPDATE webhook_deliveries SET attempts = v.number, first_attempt_at = v.first, last_attempt_at = v.at,
            status = 'delivered', delivered_at = v.ended_at FROM ${v} AS v WHERE webhook_deliveries.id = v.id`,
          sql`DELETE FROM webhook_subjects WHERE rowid IN (SELECT s.rowid FROM ${v} AS v JOIN webhook_subjects s
            ON s.webhook_id = v.webhook_id AND s.subject_type = v.subject_type AND s.subject_id = v.subject_id
            WHERE v.version IS NOT NULL AND s.lock_owner = v.worker AND s.version = v.version)`,
          sql`UPDATE webhook_subjects SET locked_until = NULL, lock_owner = NULL
            FROM ${v} AS v WHERE v.version IS NOT NULL AND webhook_subjects.webhook_id = v.webhook_id
            AND webhook_subjects.subject_type = v.subject_type AND webhook_subjects.subject_id = v.subject_id
            AND webhook_subjects.lock_owner = v.worker`
        ], { discard: true }).pipe(sql.withTransaction)
      }
    })
  }
  // Attempts end independently, one per subject at a time: their records go together.
  const recordDelivered = yield* Batcher.make((batch: ReadonlyArray<Delivered>) => Statements.withWork("webhooks")(writeDelivered(batch)), {
    maxBatch: RECORDS_PER_BATCH,
    linger: sql.onDialectOrElse({ pg: () => undefined, orElse: () => Duration.millis(1) })
  })

  /**
   * Gives the subject back; with `idle`, deletes it unless a notification was queued since the
   * lease's version (the delete first: an enqueue between the two finds no row and makes it afresh).
   */
  const release = (l: Lease, idle: boolean) => {
    const unlock = sql`UPDATE webhook_subjects SET locked_until = NULL, lock_owner = NULL
      WHERE ${subjectIs(l.subject)} AND lock_owner = ${l.worker}`
    return idle
      ? Effect.zipRight(
        sql`DELETE FROM webhook_subjects WHERE ${subjectIs(l.subject)} AND lock_owner = ${l.worker} AND version = ${l.version}`,
        unlock
      )
      : unlock
  }

  const discardQueue = (s: Subject) =>
    sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE ${subjectIs(s)} AND status = 'pending'`

  return DeliveryQueue.of({
    enqueue: (notifications, at) => Effect.orDie(enqueueMany(sql, notifications, at)),
    claimDue: (worker, limit, now, leaseMs) => Effect.orDie(claimDue(worker, limit, now, leaseMs)),
    renew: (subject, worker, until) => Effect.orDie(renew(subject, worker, until)),
    record: (lease, attempt, outcome) => {
      if (outcome._tag === "Delivered") {
        return Effect.orDie(recordDelivered({ attempt, release: outcome.drained ? lease : undefined }))
      }
      const row = {
        deliveryId: attempt.deliveryID,
        number: attempt.number,
        at: attempt.startedAt,
        statusCode: attempt.statusCode ?? null,
        error: attempt.error ?? null,
        durationMs: attempt.durationMs,
        succeeded: 0
      }
      // The subject is given back with the attempt's record: a shutdown right after the attempt
      // cannot leave it leased to a process that is gone. The subject's row before its deliveries',
      // as everywhere (a webhook's deletion too): one order of locks, no deadlock.
      return Effect.gen(function*() {
        if (outcome._tag === "Retry") {
          yield* sql`UPDATE webhook_subjects SET next_attempt_at = ${outcome.at}, locked_until = NULL, lock_owner = NULL
            WHERE ${subjectIs(lease.subject)} AND lock_owner = ${lease.worker}`
        } else {
          yield* release(lease, true)
        }
        yield* sql`INSERT INTO webhook_attempts ${sql.insert(row)}`
        yield* sql`UPDATE webhook_deliveries SET attempts = ${attempt.number}, first_attempt_at = ${attempt.firstAttemptAt},
          last_attempt_at = ${attempt.startedAt} WHERE id = ${attempt.deliveryID}`
        if (outcome._tag !== "Retry") yield* discardQueue(lease.subject)
      }).pipe(sql.withTransaction, Effect.orDie)
    },
    discard: (lease) =>
      Effect.all([release(lease, true), discardQueue(lease.subject)], { discard: true }).pipe(sql.withTransaction, Effect.orDie),
    release: (lease, idle) => Effect.orDie(Effect.asVoid(release(lease, idle))),
    postpone: (subject, at) =>
      sql`UPDATE webhook_subjects SET next_attempt_at = ${at} WHERE ${subjectIs(subject)} AND next_attempt_at IS NOT NULL`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
  })
})

/** @since 0.1.0 @category layers */
export const layer: Layer.Layer<DeliveryQueue, never, SqlClient.SqlClient> = Layer.scoped(DeliveryQueue, make)
