/**
 * The webhook dispatcher: from the event log's outbox to merchants' URLs, durably.
 *
 * 1. Fan-out. Outbox rows not yet dispatched are claimed in order (on PostgreSQL with
 *    `FOR UPDATE SKIP LOCKED`, and never a row while an earlier row of the same aggregate is
 *    pending, so an invoice's events are fanned out in order even with several processes). Each
 *    invoice event becomes its notifications (`NotificationMapping`; customer events
 *    `CustomerNotifications`), one delivery per matching active webhook, appended to the queue of
 *    its subject (webhook × invoice, webhook × customer); the outbox row is deleted in the same
 *    transaction (the event log keeps the event; a row marked dispatched by an earlier version is
 *    passed over).
 * 2. Delivery. A subject whose head is due is claimed for a lease (`FOR UPDATE SKIP LOCKED` on
 *    PostgreSQL, and a lease column on both), so no two processes send for one subject at once.
 *    The head is POSTed, signed; every attempt is recorded (the successes of concurrent subjects
 *    together, one statement per batch); on 200 the next one follows, else the
 *    subject waits for the retry schedule (`RetrySchedule`), and after the last attempt its queue
 *    is discarded. Subjects are delivered concurrently: a failing one holds up only itself.
 *
 * The queue lives in the database (`webhook_subjects`, `webhook_deliveries`): each subject row is
 * its own durable timer (`next_attempt_at`), so a restart loses nothing. (The `Timers` port runs
 * its handler inside a database transaction; an HTTP call of up to 10 s does not belong there.)
 * Passes read "now" from Effect's `Clock`, so `TestClock` drives the schedule; the pauses between
 * passes run on the real clock.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { CustomerRepository } from "@kassa/core/ports/CustomerRepository"
import { EventLog } from "@kassa/core/ports/EventLog"
import { WebhookKeys } from "@kassa/core/ports/WebhookKeys"
import { WebhookUrlGuard } from "@kassa/core/ports/WebhookUrlGuard"
import { customerNotificationsOf, customerSnapshotsAt, decodeCustomerChanges } from "@kassa/core/webhook/CustomerNotifications"
import type { InvoiceRecord } from "@kassa/core/invoice/Invoice"
import type { PaymentRecord } from "@kassa/core/payment/Payment"
import type { Notification } from "@kassa/core/webhook/Notification"
import { decodeChanges, notificationsOf, snapshotsAt, subscriptionFor } from "@kassa/core/webhook/NotificationMapping"
import { nextAttemptAt } from "@kassa/core/webhook/RetrySchedule"
import type { WebhookScope } from "@kassa/core/webhook/Webhook"
import { signingKeyRef } from "@kassa/core/webhook/WebhookKey"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Batcher from "./sql/driver/batcher.js"
import { make as randomId } from "./RandomIds.js"
import * as Counters from "./Counters.js"
import * as Statements from "./sql/driver/Statements.js"
import * as Workers from "./Workers.js"
import { loadMasterKey } from "./SqlCardVault.js"
import { rowLock } from "./internal/locks.js"
import * as RealTime from "./internal/realTime.js"
import { date, int, json, optDate } from "./internal/rows.js"
import { columns as invoiceColumns, fromRow as invoiceFromRow } from "./SqlInvoices.js"
import { columns as paymentColumns, fromRow as paymentFromRow } from "./SqlPayments.js"
import { checkUrl, type Resolver } from "./internal/webhooks/guard.js"
import { makeKeys } from "./internal/webhooks/keys.js"
import { enqueueMany, type QueueItem, type Subject } from "./internal/webhooks/queue.js"
import { agents as makeAgents, send, type SendResult } from "./internal/webhooks/send.js"

/** @since 0.1.0 @category models */
export interface WebhookOptions {
  /**
   * Lets webhooks reach loopback and private networks too (development, tests), never
   * link-local or cloud metadata: `KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`.
   */
  readonly allowPrivateNetworks?: boolean | undefined
  /**
   * How often the loops look for work when nothing told them of any (default 50 ms). Notifications
   * queued by this process are sent at once; this bounds the wait for other processes' ones.
   */
  readonly pollInterval?: Duration.DurationInput | undefined
  /** How long a receiver has to answer (default 10 s). */
  readonly timeout?: Duration.DurationInput | undefined
  /** How long a claimed subject stays with its process before another may take it (default 1 min). */
  readonly lease?: Duration.DurationInput | undefined
  /**
   * How many subjects are delivered at once (default 128); one receiver's host gets at most
   * `MAX_SOCKETS_PER_HOST` connections of them, the others wait for one.
   */
  readonly concurrency?: number | undefined
  /** Whether the background loops run (default true). Without them, call the passes yourself. */
  readonly run?: boolean | undefined
  /** Resolves host names for the SSRF guard (default: the system resolver). */
  readonly resolve?: Resolver | undefined
}

/**
 * One pass of each loop, for tests and tools: `fanOut` answers how many outbox rows it
 * dispatched, `deliverDue` how many attempts it made (it waits for them).
 *
 * @since 0.1.0 @category tags
 */
export class WebhookDispatcher extends Context.Tag("kassa/WebhookDispatcher")<WebhookDispatcher, {
  readonly fanOut: Effect.Effect<number>
  readonly deliverDue: Effect.Effect<number>
}>() {}

/** What a notification is POSTed with. @since 0.1.0 */
export const CONTENT_TYPE = "application/json; charset=utf-8"

/** The `Content-Signature` value of a signature. @since 0.1.0 */
export const signatureHeader = (digest: string) => `alg=RS256; digest=${digest}`

const FANOUT_BATCH = 100
const FANOUT_MAX_PER_PASS = 10_000
const SENDS_PER_SUBJECT_PER_PASS = 100
/** The queue's head and the notifications behind it, read at once. */
const HEADS_PER_READ = 20
/** Connections to one receiver's host at once: a merchant's server is not a load balancer's. */
export const MAX_SOCKETS_PER_HOST = 32
/** Successful attempts recorded by one statement at most. */
const RECORDS_PER_BATCH = 256

const ms = (d: Duration.DurationInput | undefined, fallback: Duration.DurationInput) => Duration.toMillis(d ?? fallback)

/**
 * What a queued notification is sent with: its webhook and the keys that may sign it, the one
 * it was queued under (`queued_key`) and its party's current one (`current_key`).
 */
const headColumns = `d.id, d.attempts, d.first_attempt_at, d.body, w.url, w.deleted_at,
  qk.private_key AS queued_key, qk.retired_at AS queued_key_retired_at, ck.private_key AS current_key`
const headJoins = `webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
  LEFT JOIN webhook_keys qk ON qk.id = d.key_id
  LEFT JOIN webhook_keys ck ON ck.party_id = w.party_id AND ck.retired_at IS NULL`

/** The sealed key a queue head (read with `headColumns`) is signed with at `now`. */
const signingKeyOf = (head: any, now: number): string =>
  signingKeyRef(
    head.queuedKey === null || head.queuedKey === undefined
      ? undefined
      : { privateKeyRef: head.queuedKey, retiredAt: optDate(head.queuedKeyRetiredAt) },
    head.currentKey,
    now
  )

/** A successful attempt to record; `release` gives the subject back (its queue was drained at `version`). */
interface Delivered {
  readonly id: number
  readonly number: number
  readonly first: number
  readonly startedAt: number
  readonly endedAt: number
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
  readonly release: { readonly s: Subject; readonly version: number } | undefined
}

/** A subject claimed for this process, with its queue when the claim read it. */
interface Claimed {
  readonly subject: Subject
  readonly first?: { readonly version: number; readonly heads: ReadonlyArray<any> } | undefined
}

// ---------------------------------------------------------------------------------------------
// Keys and the URL guard
// ---------------------------------------------------------------------------------------------

/** Key pairs sealed under a given 32-byte master key (tests, embedding). @since 0.1.0 @category layers */
export const keysLayerWithKey = (masterKey: Buffer): Layer.Layer<WebhookKeys> =>
  Layer.sync(WebhookKeys, () => makeKeys(masterKey))

/**
 * Key pairs sealed under the card vault's master key (`KASSA_VAULT_KEY`, else the data dir's),
 * with a key of their own derived from it.
 *
 * @since 0.1.0 @category layers
 */
export const keysLayer = (options: { readonly dataDir: string; readonly masterKey?: string | undefined }): Layer.Layer<WebhookKeys> =>
  Layer.unwrapEffect(Effect.sync(() => keysLayerWithKey(loadMasterKey(options))))

/** @since 0.1.0 @category layers */
export const urlGuardLayer = (options: Pick<WebhookOptions, "allowPrivateNetworks" | "resolve"> = {}): Layer.Layer<WebhookUrlGuard> =>
  Layer.succeed(WebhookUrlGuard, {
    check: (url) =>
      Effect.promise(() =>
        checkUrl(url, { allowPrivateNetworks: options.allowPrivateNetworks === true, resolver: options.resolve })
      ).pipe(Effect.map(Option.fromNullable))
  })

// ---------------------------------------------------------------------------------------------
// The dispatcher
// ---------------------------------------------------------------------------------------------

const make = (options: WebhookOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const keys = yield* WebhookKeys
    const events = yield* EventLog
    const customers = yield* CustomerRepository
    const owner = randomId(16)
    const leaseMs = ms(options.lease, "1 minute")
    const timeoutMs = ms(options.timeout, "10 seconds")
    const concurrency = Math.max(1, options.concurrency ?? 128)
    const allowPrivateNetworks = options.allowPrivateNetworks === true
    const agents = makeAgents(Math.min(concurrency, MAX_SOCKETS_PER_HOST))
    yield* Effect.addFinalizer(() => Effect.sync(() => {
      agents.http.destroy()
      agents.https.destroy()
    }))
    // Wakes the delivery loop: a notification was queued, or a worker became free.
    const wake = yield* Queue.sliding<void>(1)
    const signal = Queue.offer(wake, undefined)

    const skipLocked = (of: string) => rowLock(sql, `FOR UPDATE${of} SKIP LOCKED`)

    // -------------------------------------------------------------------------------------------
    // Fan-out
    // -------------------------------------------------------------------------------------------

    type Hook = { readonly id: string; readonly scope: string; readonly keyId: string | null }
    type HooksOf = (partyID: string, topic: WebhookScope["topic"]) => Effect.Effect<ReadonlyArray<Hook>, SqlError>

    /** A party's webhooks of a topic, read once per fan-out batch (the batch is one transaction). */
    const hooksReader = (): HooksOf => {
      const known = new Map<string, ReadonlyArray<Hook>>()
      return (partyID, topic) => {
        const key = `${topic}/${partyID}`
        const hooks = known.get(key)
        return hooks !== undefined ? Effect.succeed(hooks) : sql<Hook>`SELECT w.id, w.scope, k.id AS key_id FROM webhooks w
          LEFT JOIN webhook_keys k ON k.party_id = w.party_id AND k.retired_at IS NULL
          WHERE w.party_id = ${partyID} AND w.topic = ${topic} AND w.deleted_at IS NULL ORDER BY w.created_at, w.id`.pipe(
            Effect.tap((read) => Effect.sync(() => void known.set(key, read)))
          )
      }
    }

    /** The queue items of the notifications, one per webhook of the subject's shop that asked for its type. */
    const itemsFor = (
      hooks: ReadonlyArray<Hook>,
      subject: { readonly type: string; readonly id: string; readonly shopID: string },
      eventID: number,
      notifications: ReadonlyArray<Notification>
    ): Array<QueueItem> => {
      const items: Array<QueueItem> = []
      for (const hook of hooks) {
        const scope = json<WebhookScope>(hook.scope)
        if (scope.shopID !== subject.shopID) continue
        const wanted = new Set<string>(scope.eventTypes)
        for (const notification of notifications) {
          const subscription = subscriptionFor(notification.eventType)
          if (subscription === undefined || !wanted.has(subscription)) continue
          items.push({
            subject: { webhookID: hook.id, type: subject.type, id: subject.id },
            eventID,
            topic: notification.topic,
            eventType: notification.eventType,
            body: JSON.stringify(notification),
            keyID: hook.keyId ?? undefined
          })
        }
      }
      return items
    }

    /** What the invoice notifications of a batch are made from, read at once for all its invoices. */
    interface InvoiceData {
      readonly history: ReadonlyArray<{ readonly id: number; readonly createdAt: Date; readonly changes: ReturnType<typeof decodeChanges> }>
      readonly invoice: InvoiceRecord | undefined
      readonly payments: ReadonlyArray<PaymentRecord>
    }
    const invoiceData = (invoiceIDs: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        const data = new Map<string, { history: Array<InvoiceData["history"][number]>; invoice: InvoiceRecord | undefined; payments: Array<PaymentRecord> }>()
        if (invoiceIDs.length === 0) return data as ReadonlyMap<string, InvoiceData>
        for (const id of invoiceIDs) data.set(id, { history: [], invoice: undefined, payments: [] })
        const [eventRows, invoiceRows, paymentRows] = yield* Effect.all([
          sql<any>`SELECT aggregate_id, id, created_at, changes FROM events
            WHERE aggregate_type = 'invoice' AND ${sql.in("aggregate_id", invoiceIDs)} ORDER BY aggregate_id, id`,
          sql<any>`SELECT ${sql.literal(invoiceColumns)} FROM invoices WHERE ${sql.in("id", invoiceIDs)}`,
          sql<any>`SELECT ${sql.literal(paymentColumns)} FROM payments WHERE ${sql.in("invoice_id", invoiceIDs)}`
        ])
        for (const r of eventRows) {
          data.get(r.aggregateId)?.history.push({ id: int(r.id), createdAt: date(r.createdAt), changes: decodeChanges(json(r.changes)) })
        }
        for (const r of invoiceRows) {
          const entry = data.get(r.id)
          if (entry !== undefined) entry.invoice = invoiceFromRow(r)
        }
        for (const r of paymentRows) data.get(r.invoiceId)?.payments.push(paymentFromRow(r))
        for (const entry of data.values()) entry.payments.sort((x, y) => Number(x.id) - Number(y.id))
        return data as ReadonlyMap<string, InvoiceData>
      })

    /** The invoice's snapshots at `eventID` (at its last event when absent). */
    const snapshotsOf = (data: InvoiceData, eventID?: number) => {
      const at = eventID ?? data.history.at(-1)?.id ?? 0
      const history = data.history.filter((e) => e.id <= at)
      return { at, history, snapshots: snapshotsAt(history, at, { invoice: data.invoice, payments: data.payments }) }
    }

    /** An invoice event: `InvoicesTopic`, one queue per webhook × invoice. */
    const invoiceItems = (row: any, hooks: ReadonlyArray<Hook>, data: InvoiceData | undefined): Array<QueueItem> => {
      if (hooks.length === 0 || data === undefined) return []
      const { at, history, snapshots } = snapshotsOf(data, int(row.eventId))
      const event = history.find((e) => e.id === at)
      if (event === undefined || Option.isNone(snapshots)) return []
      const subject = { type: "invoice", id: String(row.aggregateId), shopID: snapshots.value.invoice.shopID }
      return itemsFor(hooks, subject, at, notificationsOf(event, snapshots.value))
    }

    /** A customer event: `CustomersTopic`, one queue per webhook × customer. */
    const customerItems = (row: any, hooksOf: HooksOf) =>
      Effect.gen(function*() {
        const hooks = yield* hooksOf(row.partyId, "CustomersTopic")
        if (hooks.length === 0) return []
        const customerID = String(row.aggregateId)
        const eventID = int(row.eventId)
        const history = (yield* events.list({ aggregateType: "customer", aggregateID: customerID, after: 0, limit: eventID }))
          .map((e) => ({ id: e.id, createdAt: e.createdAt, changes: decodeCustomerChanges(e.changes) }))
        const event = history.find((e) => e.id === eventID)
        if (event === undefined) return []
        const customer = yield* customers.findById(row.partyId, customerID)
        const snapshots = customerSnapshotsAt(history, eventID, Option.getOrUndefined(customer))
        if (Option.isNone(snapshots)) return []
        const subject = { type: "customer", id: customerID, shopID: snapshots.value.customer.shopID }
        return itemsFor(hooks, subject, eventID, customerNotificationsOf(event, snapshots.value))
      })

    // A row that cannot be turned into notifications (a defect) is logged and passed over, never
    // left to block every later one.
    const skipped = (row: any) => (cause: Cause.Cause<unknown>) =>
      Effect.logError("webhook fan-out: an event could not be dispatched; it is skipped", cause).pipe(
        Effect.annotateLogs({ aggregateType: row.aggregateType, aggregateID: row.aggregateId, eventID: row.eventId }),
        Effect.as<Array<QueueItem>>([])
      )

    /**
     * One transaction: claim a batch of outbox rows, queue their notifications, delete the rows.
     * The batch's invoices are read at once and its queue items written at once.
     */
    const fanOutBatch = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const hooksOf = hooksReader()
      const rows = yield* sql<any>`SELECT o.seq, o.aggregate_type, o.aggregate_id, o.event_id, o.party_id FROM outbox o
        WHERE o.dispatched_at IS NULL AND NOT EXISTS (
          SELECT 1 FROM outbox p WHERE p.aggregate_type = o.aggregate_type AND p.aggregate_id = o.aggregate_id
          AND p.dispatched_at IS NULL AND p.seq < o.seq)
        ORDER BY o.seq LIMIT ${FANOUT_BATCH} ${skipLocked(" OF o")}`
      if (rows.length === 0) return 0
      const invoiceHooks = new Map<any, ReadonlyArray<Hook>>()
      for (const row of rows) {
        if (row.aggregateType === "invoice") invoiceHooks.set(row, yield* hooksOf(row.partyId, "InvoicesTopic"))
      }
      const data = yield* invoiceData([...new Set([...invoiceHooks].filter(([, h]) => h.length > 0).map(([r]) => String(r.aggregateId)))])
      const items: Array<QueueItem> = []
      for (const row of rows) {
        const made = row.aggregateType === "invoice"
          ? Effect.sync(() => invoiceItems(row, invoiceHooks.get(row)!, data.get(String(row.aggregateId))))
          : row.aggregateType === "customer"
          ? sql.withTransaction(customerItems(row, hooksOf))
          : Effect.succeed([])
        items.push(...yield* made.pipe(Effect.catchAllCause(skipped(row))))
      }
      yield* enqueueMany(sql, items, now)
      yield* sql`DELETE FROM outbox WHERE ${sql.in("seq", rows.map((r) => int(r.seq)))}`
      return rows.length
    }).pipe(sql.withTransaction, Effect.orDie)

    // An idle pass is this one statement, not a transaction around the claiming query.
    const anyPending = sql`SELECT 1 FROM outbox WHERE dispatched_at IS NULL LIMIT 1`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.orDie
    )

    const fanOut: Effect.Effect<number> = Effect.gen(function*() {
      if (!(yield* anyPending)) return 0
      let total = 0
      while (total < FANOUT_MAX_PER_PASS) {
        const n = yield* fanOutBatch
        if (n === 0) break
        total += n
        yield* signal
      }
      return total
    })

    // -------------------------------------------------------------------------------------------
    // Delivery
    // -------------------------------------------------------------------------------------------

    const subjectIs = (s: Subject) =>
      sql`webhook_id = ${s.webhookID} AND subject_type = ${s.type} AND subject_id = ${s.id}`

    /** The head of a subject's queue and what follows it (`c`: the subject's columns). */
    const headsOf = (c: { readonly webhookID: unknown; readonly type: unknown; readonly id: unknown }) =>
      sql`SELECT ${sql.literal(headColumns)} FROM ${sql.literal(headJoins)}
        WHERE d.webhook_id = ${c.webhookID} AND d.subject_type = ${c.type} AND d.subject_id = ${c.id}
        AND d.status = 'pending' ORDER BY d.id LIMIT ${HEADS_PER_READ}`

    /**
     * Claims up to `limit` due subjects for this process, with each one's queue (`first`), as
     * `lockAndRead` would read it: on PostgreSQL in the same statement, on SQLite in one more.
     */
    const claimSubjects = (limit: number) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const claim = sql`UPDATE webhook_subjects SET locked_until = ${now + leaseMs}, lock_owner = ${owner}
          WHERE (webhook_id, subject_type, subject_id) IN (
            SELECT webhook_id, subject_type, subject_id FROM webhook_subjects
            WHERE next_attempt_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
            ORDER BY next_attempt_at LIMIT ${limit} ${skipLocked("")})
          RETURNING webhook_id, subject_type, subject_id, version`
        return yield* sql.onDialectOrElse({
          pg: () =>
            sql<any>`WITH c AS (${claim})
              SELECT c.webhook_id AS c_webhook_id, c.subject_type AS c_subject_type, c.subject_id AS c_subject_id,
                c.version AS lock_version, h.*
              FROM c LEFT JOIN LATERAL (${
              headsOf({ webhookID: sql.literal("c.webhook_id"), type: sql.literal("c.subject_type"), id: sql.literal("c.subject_id") })
            }) h ON true ORDER BY c_webhook_id, c_subject_type, c_subject_id, h.id`.pipe(
              Effect.map((rows) => {
                const claimed = new Map<string, { readonly subject: Subject; readonly version: number; readonly heads: Array<unknown> }>()
                for (const r of rows) {
                  const key = `${r.cWebhookId}\u0000${r.cSubjectType}\u0000${r.cSubjectId}`
                  let c = claimed.get(key)
                  if (c === undefined) {
                    c = { subject: { webhookID: r.cWebhookId, type: r.cSubjectType, id: r.cSubjectId }, version: int(r.lockVersion), heads: [] }
                    claimed.set(key, c)
                  }
                  if (r.id !== null && r.id !== undefined) c.heads.push(r)
                }
                return [...claimed.values()].map(({ heads, subject, version }): Claimed => ({ subject, first: { version, heads } }))
              })
            ),
          // SQLite: the claimed subjects' queues in one more statement, for all of them.
          orElse: () =>
            claim.pipe(Effect.flatMap((rows: ReadonlyArray<any>) =>
              rows.length === 0 ? Effect.succeed([]) : sql<any>`SELECT * FROM (
                  SELECT d.webhook_id AS c_webhook_id, d.subject_type AS c_subject_type, d.subject_id AS c_subject_id,
                    ${sql.literal(headColumns)},
                    ROW_NUMBER() OVER (PARTITION BY d.webhook_id, d.subject_type, d.subject_id ORDER BY d.id) AS rn
                  FROM ${sql.literal(headJoins)}
                  WHERE (d.webhook_id, d.subject_type, d.subject_id) IN (VALUES ${
                sql.join(", ", false)(rows.map((r) => sql`(${r.webhookId}, ${r.subjectType}, ${r.subjectId})`))
              }) AND d.status = 'pending')
                WHERE rn <= ${HEADS_PER_READ} ORDER BY id`.pipe(
                Effect.map((heads) => {
                  const queues = new Map<string, Array<unknown>>()
                  for (const h of heads) {
                    const key = `${h.cWebhookId}\u0000${h.cSubjectType}\u0000${h.cSubjectId}`
                    const queue = queues.get(key)
                    if (queue === undefined) queues.set(key, [h])
                    else queue.push(h)
                  }
                  return rows.map((r): Claimed => ({
                    subject: { webhookID: r.webhookId, type: r.subjectType, id: r.subjectId },
                    first: { version: int(r.version), heads: queues.get(`${r.webhookId}\u0000${r.subjectType}\u0000${r.subjectId}`) ?? [] }
                  }))
                })
              )
            ))
        })
      }).pipe(Effect.orDie)

    const post = (url: string, body: Buffer, digest: string) =>
      Effect.async<SendResult>((resume) => {
        const controller = new AbortController()
        void send(url, body, {
          "content-type": CONTENT_TYPE,
          "content-signature": signatureHeader(digest),
          "user-agent": "Kassa-Webhooks/0.1"
        }, { timeoutMs, allowPrivateNetworks, resolver: options.resolve, agents }, controller.signal).then(
          (result) => resume(Effect.succeed(result)),
          (error) => resume(Effect.succeed({ error: `could not send: ${String(error)}`, durationMs: 0 }))
        )
        return Effect.sync(() => controller.abort())
      })

    /**
     * Gives the subject back; idles it too (`version` given) unless a notification was queued
     * since `version` was read.
     */
    const releasing = (s: Subject, version?: number) =>
      version === undefined
        ? sql`UPDATE webhook_subjects SET locked_until = NULL, lock_owner = NULL WHERE ${subjectIs(s)} AND lock_owner = ${owner}`
        : sql`UPDATE webhook_subjects SET locked_until = NULL, lock_owner = NULL,
            next_attempt_at = CASE WHEN version = ${version} THEN NULL ELSE next_attempt_at END
            WHERE ${subjectIs(s)} AND lock_owner = ${owner}`
    const release = (s: Subject, version?: number) => releasing(s, version).pipe(Effect.asVoid)

    const discardQueue = (s: Subject) =>
      sql`UPDATE webhook_deliveries SET status = 'discarded' WHERE ${subjectIs(s)} AND status = 'pending'`

    /**
     * Extends the lease of a subject this process holds and reads the head of its queue and what
     * follows: one statement on PostgreSQL. `version` is undefined when the lease was lost.
     */
    const lockAndRead = (s: Subject, lockedUntil: number) => {
      const heads = headsOf(s)
      const lock = sql`UPDATE webhook_subjects SET locked_until = ${lockedUntil}
        WHERE ${subjectIs(s)} AND lock_owner = ${owner} RETURNING version`
      return sql.onDialectOrElse({
        pg: () =>
          sql<any>`WITH l AS (${lock}) SELECT l.version AS lock_version, h.* FROM l LEFT JOIN LATERAL (${heads}) h ON true`.pipe(
            Effect.map((rows) => ({
              version: rows.length === 0 ? undefined : int(rows[0].lockVersion),
              heads: rows.filter((r) => r.id !== null && r.id !== undefined)
            }))
          ),
        orElse: () =>
          Effect.gen(function*() {
            const locked = yield* lock
            if (locked.length === 0) return { version: undefined, heads: [] as ReadonlyArray<any> }
            return { version: int(locked[0]!.version), heads: (yield* heads) as ReadonlyArray<any> }
          })
      })
    }

    /**
     * Records successful attempts, each giving its subject back when it drained the queue
     * (`release`): one statement on PostgreSQL, one transaction elsewhere, for a whole batch.
     */
    const writeDelivered = (batch: ReadonlyArray<Delivered>): Effect.Effect<void, SqlError> => {
      const rows = JSON.stringify(batch.map((d) => ({
        id: d.id,
        number: d.number,
        first: d.first,
        at: d.startedAt,
        ended_at: d.endedAt,
        status_code: d.statusCode,
        error: d.error,
        duration_ms: d.durationMs,
        webhook_id: d.release?.s.webhookID ?? null,
        subject_type: d.release?.s.type ?? null,
        subject_id: d.release?.s.id ?? null,
        version: d.release?.version ?? null
      })))
      return sql.onDialectOrElse({
        pg: () =>
          sql`WITH v AS (SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS v(id bigint, number integer,
              first bigint, at bigint, ended_at bigint, status_code integer, error text, duration_ms integer,
              webhook_id text, subject_type text, subject_id text, version integer)),
            a AS (INSERT INTO webhook_attempts (delivery_id, number, at, status_code, error, duration_ms, succeeded)
              SELECT id, number, at, status_code, error, duration_ms, 1 FROM v),
            d AS (UPDATE webhook_deliveries w SET attempts = v.number, first_attempt_at = v.first, last_attempt_at = v.at,
              status = 'delivered', delivered_at = v.ended_at FROM v WHERE w.id = v.id)
            UPDATE webhook_subjects s SET locked_until = NULL, lock_owner = NULL,
              next_attempt_at = CASE WHEN s.version = v.version THEN NULL ELSE s.next_attempt_at END
            FROM v WHERE v.version IS NOT NULL AND s.webhook_id = v.webhook_id AND s.subject_type = v.subject_type
              AND s.subject_id = v.subject_id AND s.lock_owner = ${owner}`.pipe(Effect.asVoid),
        // SQLite: three statements for the whole batch, its rows read from the same JSON.
        orElse: () => {
          const v = sql`(SELECT value ->> 'id' AS id, value ->> 'number' AS number, value ->> 'first' AS first,
            value ->> 'at' AS at, value ->> 'ended_at' AS ended_at, value ->> 'status_code' AS status_code,
            value ->> 'error' AS error, value ->> 'duration_ms' AS duration_ms, value ->> 'webhook_id' AS webhook_id,
            value ->> 'subject_type' AS subject_type, value ->> 'subject_id' AS subject_id, value ->> 'version' AS version
            FROM json_each(${rows}))`
          return Effect.all([
            sql`INSERT INTO webhook_attempts (delivery_id, number, at, status_code, error, duration_ms, succeeded)
              SELECT id, number, at, status_code, error, duration_ms, 1 FROM ${v} AS v`,
            sql`UPDATE webhook_deliveries SET attempts = v.number, first_attempt_at = v.first, last_attempt_at = v.at,
              status = 'delivered', delivered_at = v.ended_at FROM ${v} AS v WHERE webhook_deliveries.id = v.id`,
            sql`UPDATE webhook_subjects SET locked_until = NULL, lock_owner = NULL,
              next_attempt_at = CASE WHEN webhook_subjects.version = v.version THEN NULL ELSE webhook_subjects.next_attempt_at END
              FROM ${v} AS v WHERE v.version IS NOT NULL AND webhook_subjects.webhook_id = v.webhook_id
              AND webhook_subjects.subject_type = v.subject_type AND webhook_subjects.subject_id = v.subject_id
              AND webhook_subjects.lock_owner = ${owner}`
          ], { discard: true }).pipe(sql.withTransaction)
        }
      })
    }
    // Attempts end independently, one per subject at a time: their records go together.
    const recordDelivered = yield* Batcher.make((batch: ReadonlyArray<Delivered>) => Statements.withWork("webhooks")(writeDelivered(batch)), {
      maxBatch: RECORDS_PER_BATCH,
      linger: sql.onDialectOrElse({ pg: () => undefined, orElse: () => Duration.millis(1) })
    })

    /** POSTs the head once and records the attempt and its consequence for the queue. */
    const attemptHead = (s: Subject, head: any, body: Buffer, digest: string, startedAt: number, version: number, last: boolean) =>
      Effect.gen(function*() {
        const deliveryID = int(head.id)
        const result = yield* post(head.url, body, digest)
        const endedAt = yield* Clock.currentTimeMillis
        const succeeded = result.statusCode === 200
        const number = int(head.attempts) + 1
        const first = head.firstAttemptAt === null || head.firstAttemptAt === undefined ? startedAt : int(head.firstAttemptAt)
        const next = succeeded ? Option.none<Date>() : nextAttemptAt(new Date(first), number)
        if (succeeded) {
          yield* recordDelivered({
            id: deliveryID,
            number,
            first,
            startedAt,
            endedAt,
            statusCode: result.statusCode ?? null,
            error: result.error ?? null,
            durationMs: result.durationMs,
            release: last ? { s, version } : undefined
          })
          return { result, succeeded, number, next }
        }
        const attempt = {
          deliveryId: deliveryID,
          number,
          at: startedAt,
          statusCode: result.statusCode ?? null,
          error: result.error ?? `answered ${result.statusCode}`,
          durationMs: result.durationMs,
          succeeded: 0
        }
        yield* Effect.gen(function*() {
          yield* sql`INSERT INTO webhook_attempts ${sql.insert(attempt)}`
          yield* sql`UPDATE webhook_deliveries SET attempts = ${number}, first_attempt_at = ${first},
            last_attempt_at = ${startedAt} WHERE id = ${deliveryID}`
          // The subject is given back with the attempt's record: a shutdown right after the
          // attempt cannot leave it leased to a process that is gone.
          if (Option.isSome(next)) {
            yield* sql`UPDATE webhook_subjects SET next_attempt_at = ${next.value.getTime()}, locked_until = NULL, lock_owner = NULL
              WHERE ${subjectIs(s)} AND lock_owner = ${owner}`
          } else {
            yield* discardQueue(s)
            yield* sql`UPDATE webhook_subjects SET next_attempt_at = CASE WHEN version = ${version} THEN NULL ELSE next_attempt_at END,
              locked_until = NULL, lock_owner = NULL
              WHERE ${subjectIs(s)} AND lock_owner = ${owner}`
          }
        }).pipe(sql.withTransaction)
        return { result, succeeded, number, next }
      })

    /**
     * Sends the subject's queue from its head while it succeeds, then gives the subject back (idle
     * if its queue is empty); answers how many attempts it made.
     */
    const deliverSubject = ({ first, subject: s }: Claimed) =>
      Effect.gen(function*() {
        let attempts = 0
        let read = first
        while (attempts < SENDS_PER_SUBJECT_PER_PASS) {
          const { heads, version } = read ?? (yield* lockAndRead(s, (yield* Clock.currentTimeMillis) + leaseMs))
          read = undefined
          if (version === undefined) return attempts
          if (heads.length > 0 && heads[0].deletedAt !== null && heads[0].deletedAt !== undefined) {
            yield* discardQueue(s)
            yield* Counters.increment(Counters.webhookDiscarded)
            yield* release(s, version)
            return attempts
          }
          // Fewer than asked for: the queue was empty behind them when `version` was read, so the
          // last one's record gives the subject back idle, unless something was queued since (then
          // the version differs and the subject stays due).
          const drains = heads.length < HEADS_PER_READ
          if (heads.length === 0) {
            yield* release(s, version)
            return attempts
          }
          for (const [i, head] of heads.entries()) {
            const deliveryID = int(head.id)
            const body = Buffer.from(String(head.body), "utf8")
            const sentAt = yield* Clock.currentTimeMillis
            const digest = yield* keys.sign(signingKeyOf(head, sentAt), body)
            const last = drains && i === heads.length - 1
            // Sending and recording are one step a shutdown waits for (at most the timeout): what
            // was sent is recorded, so a clean restart does not send it again.
            const { next, number, result, succeeded } = yield* Effect.uninterruptible(
              attemptHead(s, head, body, digest, sentAt, version, last)
            )
            attempts++
            yield* Counters.increment(Counters.webhookAttempts, { outcome: succeeded ? "delivered" : "failed" })
            if (!succeeded && Option.isNone(next)) yield* Counters.increment(Counters.webhookDiscarded)
            const annotations = { webhookID: s.webhookID, subject: `${s.type}/${s.id}`, deliveryID, attempt: number }
            if (succeeded) {
              yield* Effect.logDebug("webhook notification delivered").pipe(Effect.annotateLogs(annotations))
              if (last) return attempts
              continue
            }
            yield* Effect.logWarning(
              Option.isSome(next)
                ? `webhook notification failed (${result.error ?? `answered ${result.statusCode}`}); retry at ${next.value.toISOString()}`
                : `webhook notification failed (${result.error ?? `answered ${result.statusCode}`}); last attempt: the subject's queue is discarded`
            ).pipe(Effect.annotateLogs(annotations))
            return attempts
          }
        }
        yield* release(s)
        return attempts
      }).pipe(
        Effect.onError(() => release(s).pipe(Effect.ignore)),
        Effect.orDie,
        // Something unexpected (a defect): the subject is tried again a minute later, not at once.
        Effect.catchAllCause((cause) =>
          Effect.logError("webhook delivery failed; the subject will be retried in a minute", cause).pipe(
            Effect.annotateLogs({ webhookID: s.webhookID, subject: `${s.type}/${s.id}` }),
            Effect.zipRight(Effect.flatMap(Clock.currentTimeMillis, (now) =>
              sql`UPDATE webhook_subjects SET next_attempt_at = ${now + 60_000}
                WHERE ${subjectIs(s)} AND next_attempt_at IS NOT NULL`.pipe(Effect.ignore))),
            Effect.as(0)
          )
        )
      )

    /** Claims and delivers every due subject, `concurrency` at a time, until none is due. */
    const deliverDue: Effect.Effect<number> = Effect.gen(function*() {
      let total = 0
      for (let round = 0; round < 1_000; round++) {
        const subjects = yield* claimSubjects(concurrency * 4)
        if (subjects.length === 0) break
        const counts = yield* Effect.forEach(subjects, deliverSubject, { concurrency })
        total += counts.reduce((a, b) => a + b, 0)
      }
      return total
    })

    // -------------------------------------------------------------------------------------------
    // The loops
    // -------------------------------------------------------------------------------------------

    if (options.run !== false) {
      const pollMs = ms(options.pollInterval, "50 millis")
      const pause = RealTime.sleep(pollMs)
      yield* fanOut.pipe(
        Effect.catchAllCause((cause) => Effect.logError("webhook fan-out pass failed", cause)),
        Effect.zipRight(pause),
        Effect.forever,
        Statements.withWork("webhooks"),
        Workers.forkScoped("webhookFanOut")
      )
      // A pool: free workers claim due subjects; a slow receiver holds up only its own subject.
      // The loop claims again as soon as a worker is free or something was queued, else it polls.
      const scope = yield* Effect.scope
      let busy = 0
      const claimFree = Effect.gen(function*() {
        const free = concurrency - busy
        if (free <= 0) return false
        const subjects = yield* claimSubjects(free)
        for (const subject of subjects) {
          busy++
          yield* deliverSubject(subject).pipe(
            Effect.ensuring(Effect.zipRight(Effect.sync(() => void busy--), signal)),
            Effect.forkIn(scope)
          )
        }
        return subjects.length === free
      })
      const waitForWork = Effect.raceFirst(Queue.take(wake), pause)
      // SQLite answers in the same turn of the event loop, so a claim after each wake would take
      // one subject at a time: a millisecond lets the deliveries that end together free their slots.
      const settle = sql.onDialectOrElse({
        pg: () => Effect.void,
        orElse: () => RealTime.sleep(Duration.millis(1))
      })
      yield* claimFree.pipe(
        Effect.catchAllCause((cause) => Effect.logError("webhook delivery pass failed", cause).pipe(Effect.as(false))),
        // every slot was filled: more may be due, claim again once one is free
        Effect.flatMap((full) => Effect.zipRight(full ? Queue.take(wake) : waitForWork, settle)),
        Effect.forever,
        Statements.withWork("webhooks"),
        Workers.forkScoped("webhookDelivery")
      )
    }

    return { fanOut, deliverDue }
  })

/**
 * The dispatcher alone: `WebhookDispatcher`, and its loops while the layer lives.
 *
 * @since 0.1.0 @category layers
 */
export const dispatcherLayer = (options: WebhookOptions = {}) => Layer.scoped(WebhookDispatcher, make(options))

/**
 * Everything webhooks need besides storage (`SqlWebhooks.layer`): key pairs, the URL guard and
 * the dispatcher with its loops.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: WebhookOptions & { readonly dataDir: string; readonly masterKey?: string | undefined }) =>
  dispatcherLayer(options).pipe(
    Layer.provideMerge(Layer.mergeAll(keysLayer(options), urlGuardLayer(options)))
  )
