/**
 * The webhook dispatcher: two loops driving core's fan-out and the `DeliveryQueue` port.
 *
 * 1. Fan-out. While the outbox holds stored events, core's `WebhookFanOut` turns a batch of them
 *    into queued deliveries, one transaction a batch.
 * 2. Delivery. A pool of workers claims due subjects with a lease; each sends its queue from the
 *    head, signed (`Sender`), recording every attempt with its consequence: on 200 the next one
 *    follows, else the subject waits for the retry schedule (`RetrySchedule`), and after the last
 *    attempt its queue is discarded. A failing subject holds up only itself.
 *
 * The loops do not poll. The fan-out sleeps until events are appended (the `events` signal: from
 * this process once its transaction commits, from the others' through PostgreSQL's
 * `LISTEN/NOTIFY`); the delivery loop until deliveries were queued (by the fan-out, or by an
 * operator's redelivery in this process: the `deliveries` signal), a worker became free (off
 * PostgreSQL, only when there may be work for it) or the earliest retry it scheduled is due. A
 * slow safety sweep (`pollInterval`) picks up what no signal tells of: leases that ended, retries
 * scheduled by a process that has gone. So with no webhook at all, or none due, an idle
 * dispatcher issues no statements. (Over memory storage,
 * which sends no signals, the loops poll every 50 ms.)
 *
 * Passes read "now" from Effect's `Clock`, so `TestClock` drives the schedule; the pauses between
 * passes run on the real clock. (The `Timers` port runs its handler inside a database
 * transaction; an HTTP call of up to 10 s does not belong there, so the queue is its own timer.)
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { type Claimed, DeliveryQueue, type Outcome, type Pending } from "@kassa/core/ports/DeliveryQueue"
import { WebhookKeys } from "@kassa/core/ports/WebhookKeys"
import { nextAttemptAt } from "@kassa/core/webhook/RetrySchedule"
import { BATCH, WebhookFanOut } from "@kassa/core/webhook/WebhookFanOut"
import { signingKeyRef } from "@kassa/core/webhook/WebhookKey"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Counters from "../Counters.js"
import * as RealTime from "../internal/realTime.js"
import { make as randomId } from "../RandomIds.js"
import { SqlDriver } from "../sql/driver/Driver.js"
import * as Statements from "../sql/driver/Statements.js"
import * as Workers from "../Workers.js"
import type { GuardOptions } from "./Guard.js"
import * as Sender from "./Sender.js"

/** How long the fan-out lets appended events gather once woken. */
const GATHER = Duration.millis(20)

/** @since 0.1.0 @category models */
export interface WebhookOptions extends GuardOptions {
  /**
   * The safety sweep: the longest the loops sleep when nothing tells them of work (default 30 s
   * on SQL storage, 50 ms on memory storage, which sends no signals).
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
}

/**
 * One pass of each loop, for tests and tools: `fanOut` answers how many stored events it
 * dispatched, `deliverDue` how many attempts it made (it waits for them).
 *
 * @since 0.1.0 @category tags
 */
export class WebhookDispatcher extends Context.Tag("kassa/WebhookDispatcher")<WebhookDispatcher, {
  readonly fanOut: Effect.Effect<number>
  readonly deliverDue: Effect.Effect<number>
}>() {}

const FANOUT_MAX_PER_PASS = 10_000
const SENDS_PER_SUBJECT_PER_PASS = 100

const ms = (d: Duration.DurationInput | undefined, fallback: Duration.DurationInput) => Duration.toMillis(d ?? fallback)

/** What the failed attempt's record says: why there was no 200. */
const failure = (result: Sender.SendResult) => result.error ?? `answered ${result.statusCode}`

const make = (options: WebhookOptions) =>
  Effect.gen(function*() {
    // absent on memory storage
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    const keys = yield* WebhookKeys
    const queue = yield* DeliveryQueue
    const fanOutService = yield* WebhookFanOut
    // This process: its leases are its own.
    const worker = randomId(16)
    const leaseMs = ms(options.lease, "1 minute")
    const concurrency = Math.max(1, options.concurrency ?? 128)
    const sender = yield* Sender.make({
      timeoutMs: ms(options.timeout, "10 seconds"),
      allowPrivateNetworks: options.allowPrivateNetworks === true,
      resolver: options.resolve,
      maxSockets: concurrency
    })
    // Wakes the delivery loop: a notification was queued, or a worker became free.
    const wake = yield* Queue.sliding<void>(1)
    const signal = Queue.offer(wake, undefined)
    // The earliest retry this process scheduled and has not claimed since: the delivery loop wakes for it.
    let nextRetry = Infinity
    // Bumped whenever something may have been queued (this process's fan-out queued deliveries, an
    // event was appended): a subject held meanwhile may be due again when its worker gives it back.
    let queuedSince = 0
    // A worker left its subject due (more than a pass sends) or scheduled a retry since the last claim.
    let leftDue = false
    const retryAt = (at: number) =>
      Effect.sync(() => {
        nextRetry = Math.min(nextRetry, at)
        leftDue = true
      })

    const fanOut: Effect.Effect<number> = Effect.gen(function*() {
      if (!(yield* fanOutService.pending)) return 0
      let total = 0
      while (total < FANOUT_MAX_PER_PASS) {
        const { queued, taken } = yield* fanOutService.batch
        total += taken
        if (queued > 0) {
          queuedSince++
          yield* signal
        }
        // a batch that was not full took every entry there was
        if (taken < BATCH) break
      }
      return total
    })

    /** POSTs the head once and records the attempt and its consequence for the queue. */
    const attemptHead = (claimed: Claimed, head: Pending, body: Buffer, digest: string, startedAt: number, last: boolean) =>
      Effect.gen(function*() {
        const result = yield* sender.post(head.url, body, digest)
        const endedAt = yield* Clock.currentTimeMillis
        const succeeded = result.statusCode === 200
        const number = head.attempts + 1
        const first = head.firstAttemptAt ?? startedAt
        const next = succeeded ? Option.none<Date>() : nextAttemptAt(new Date(first), number)
        const outcome: Outcome = succeeded
          ? { _tag: "Delivered", drained: last }
          : Option.isSome(next)
          ? { _tag: "Retry", at: next.value.getTime() }
          : { _tag: "GiveUp" }
        if (outcome._tag === "Retry") yield* retryAt(outcome.at)
        yield* queue.record(claimed.lease, {
          deliveryID: head.deliveryID,
          number,
          firstAttemptAt: first,
          startedAt,
          endedAt,
          statusCode: result.statusCode,
          error: succeeded ? result.error : failure(result),
          durationMs: result.durationMs
        }, outcome)
        return { result, succeeded, number, next }
      })

    /**
     * Sends the subject's queue from its head while it succeeds, then gives the subject back (idle
     * if its queue is empty); answers how many attempts it made.
     */
    const deliverSubject = (claimed: Claimed) =>
      Effect.gen(function*() {
        const s = claimed.lease.subject
        let attempts = 0
        let read: Claimed | undefined = claimed
        while (attempts < SENDS_PER_SUBJECT_PER_PASS) {
          const current: Option.Option<Claimed> = read !== undefined
            ? Option.some(read)
            : yield* queue.renew(s, worker, (yield* Clock.currentTimeMillis) + leaseMs)
          read = undefined
          if (Option.isNone(current)) return attempts
          const { lease, pending } = current.value
          if (pending.length > 0 && pending[0]!.webhookDeleted) {
            yield* queue.discard(lease)
            yield* Counters.increment(Counters.webhookDiscarded)
            return attempts
          }
          if (pending.length === 0) {
            yield* queue.release(lease, true)
            return attempts
          }
          // The whole queue as of the lease's version: the last one's record gives the subject
          // back idle, unless something was queued since (then the subject stays due).
          const drains = current.value.complete
          for (const [i, head] of pending.entries()) {
            const last = drains && i === pending.length - 1
            const body = Buffer.from(head.body, "utf8")
            const sentAt = yield* Clock.currentTimeMillis
            const digest = yield* keys.sign(signingKeyRef(head.queuedKey, head.currentKey, sentAt), body)
            // Sending and recording are one step a shutdown waits for (at most the timeout): what
            // was sent is recorded, so a clean restart does not send it again.
            const { next, number, result, succeeded } = yield* Effect.uninterruptible(
              attemptHead(current.value, head, body, digest, sentAt, last)
            )
            attempts++
            yield* Counters.increment(Counters.webhookAttempts, { outcome: succeeded ? "delivered" : "failed" })
            if (!succeeded && Option.isNone(next)) yield* Counters.increment(Counters.webhookDiscarded)
            const annotations = { webhookID: s.webhookID, subject: `${s.type}/${s.id}`, deliveryID: head.deliveryID, attempt: number }
            if (succeeded) {
              yield* Effect.logDebug("webhook notification delivered").pipe(Effect.annotateLogs(annotations))
              if (last) return attempts
              continue
            }
            yield* Effect.logWarning(
              Option.isSome(next)
                ? `webhook notification failed (${failure(result)}); retry at ${next.value.toISOString()}`
                : `webhook notification failed (${failure(result)}); last attempt: the subject's queue is discarded`
            ).pipe(Effect.annotateLogs(annotations))
            return attempts
          }
        }
        yield* queue.release(claimed.lease, false)
        leftDue = true
        return attempts
      }).pipe(
        Effect.onError(() => queue.release(claimed.lease, false).pipe(Effect.ignore)),
        // Something unexpected (a defect): the subject is tried again a minute later, not at once.
        Effect.catchAllCause((cause) =>
          Effect.logError("webhook delivery failed; the subject will be retried in a minute", cause).pipe(
            Effect.annotateLogs({ webhookID: claimed.lease.subject.webhookID, subject: `${claimed.lease.subject.type}/${claimed.lease.subject.id}` }),
            Effect.zipRight(Effect.flatMap(Clock.currentTimeMillis, (now) =>
              queue.postpone(claimed.lease.subject, now + 60_000).pipe(Effect.ignore, Effect.zipRight(retryAt(now + 60_000))))),
            Effect.as(0)
          )
        )
      )

    const claim = (limit: number) => Effect.flatMap(Clock.currentTimeMillis, (now) => queue.claimDue(worker, limit, now, leaseMs))

    /** Claims and delivers every due subject, `concurrency` at a time, until none is due. */
    const deliverDue: Effect.Effect<number> = Effect.gen(function*() {
      let total = 0
      for (let round = 0; round < 1_000; round++) {
        const subjects = yield* claim(concurrency * 4)
        if (subjects.length === 0) break
        const counts = yield* Effect.forEach(subjects, deliverSubject, { concurrency })
        total += counts.reduce((a, b) => a + b, 0)
      }
      return total
    })

    if (options.run !== false) {
      const driver = yield* Effect.serviceOption(SqlDriver)
      const sweepMs = ms(options.pollInterval, Option.isSome(driver) ? "30 seconds" : "50 millis")
      const sweep = RealTime.sleep(sweepMs)
      const appended = yield* Queue.sliding<void>(1)
      if (Option.isSome(driver)) {
        yield* driver.value.signals.listen("events", () => {
          queuedSince++
          Queue.unsafeOffer(appended, undefined)
        })
        // queued behind the fan-out's back (an operator's redelivery): straight to the delivery loop
        yield* driver.value.signals.listen("deliveries", () => {
          queuedSince++
          Queue.unsafeOffer(wake, undefined)
        })
      }
      yield* fanOut.pipe(
        Effect.catchAllCause((cause) => Effect.logError("webhook fan-out pass failed", cause)),
        // Once woken, a short gathering lets a busy server's events go out in one pass, not one each.
        Effect.zipRight(Effect.raceFirst(Effect.zipRight(Queue.take(appended), RealTime.sleep(GATHER)), sweep)),
        Effect.forever,
        Statements.withWork("webhooks"),
        Workers.forkScoped("webhookFanOut")
      )
      // A pool: free workers claim due subjects; a slow receiver holds up only its own subject.
      // The loop claims again when something was queued, or a worker is free and there may be work
      // for it, else it polls.
      const pg = Option.isSome(sql) && sql.value.onDialectOrElse({ pg: () => true, orElse: () => false })
      const scope = yield* Effect.scope
      let busy = 0
      // The last claim filled every free slot: more may be due.
      let full = false
      const claimFree = Effect.gen(function*() {
        const free = concurrency - busy
        if (free <= 0) return false
        if (nextRetry <= (yield* Clock.currentTimeMillis)) nextRetry = Infinity
        const claimedAt = queuedSince
        leftDue = false
        const subjects = yield* claim(free)
        full = subjects.length === free
        for (const subject of subjects) {
          busy++
          // On PostgreSQL another process may have queued for the subject meanwhile, unseen here:
          // a free worker always claims again. Elsewhere only this process queues, and a worker that
          // gives back its subject idle with nothing queued since its claim leaves nothing to claim.
          const freed = Effect.suspend(() => {
            busy--
            return pg || full || leftDue || queuedSince !== claimedAt ? signal : Effect.void
          })
          yield* deliverSubject(subject).pipe(Effect.ensuring(freed), Effect.forkIn(scope))
        }
        return full
      })
      // The sleep runs on the real clock; the retry's time is Effect's (the same under a live clock).
      const waitForWork = Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.raceFirst(Queue.take(wake), RealTime.sleep(Duration.millis(Math.max(0, Math.min(nextRetry - now, sweepMs))))))
      // SQLite and memory answer in the same turn of the event loop, so a claim after each wake would take
      // one subject at a time: a millisecond lets the deliveries that end together free their slots.
      const settle = pg
        ? Effect.void
        : RealTime.sleep(Duration.millis(1))
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
 * The dispatcher: `WebhookDispatcher`, and its loops while the layer lives. Each build is a
 * process of its own (its own leases).
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: WebhookOptions = {}) => Layer.scoped(WebhookDispatcher, make(options))
