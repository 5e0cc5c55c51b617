/**
 * The durable delivery queue of webhook notifications: one queue per subject (a webhook × the
 * object its notifications are about), sent in order from its head. A subject is claimed with a
 * lease by one worker at a time; every attempt is recorded with its consequence for the queue.
 * Shaped after `@effect/experimental`'s `PersistedQueueStore`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"

/** Whose queue: a webhook × the object (`invoice`, `customer`, …) it is notified of. @since 0.1.0 @category models */
export interface Subject {
  readonly webhookID: string
  readonly type: string
  readonly id: string
}

/** A notification to append to its subject's queue. @since 0.1.0 @category models */
export interface QueuedNotification {
  readonly subject: Subject
  readonly eventID: number
  readonly topic: string
  readonly eventType: string
  /** The JSON sent, exactly. */
  readonly body: string
  /** The party's key current when it is queued (absent: whichever key is current when it is sent). */
  readonly keyID?: string | undefined
}

/** A queued notification as its sender needs it. @since 0.1.0 @category models */
export interface Pending {
  readonly deliveryID: number
  /** Attempts made so far. */
  readonly attempts: number
  readonly firstAttemptAt: number | undefined
  readonly body: string
  readonly url: string
  readonly webhookDeleted: boolean
  /** The key it was queued under, if any (sealed). */
  readonly queuedKey: { readonly privateKeyRef: string; readonly retiredAt: Date | undefined } | undefined
  /** The party's current key (sealed). */
  readonly currentKey: string
}

/** A subject a worker holds, and the queue's version when it was read. @since 0.1.0 @category models */
export interface Lease {
  readonly subject: Subject
  readonly worker: string
  readonly version: number
}

/** A held subject with the head of its queue and what follows it, oldest first. @since 0.1.0 @category models */
export interface Claimed {
  readonly lease: Lease
  readonly pending: ReadonlyArray<Pending>
  /** Whether `pending` is the whole queue as of the lease's version (else more follows it). */
  readonly complete: boolean
}

/** One attempt to send a notification. @since 0.1.0 @category models */
export interface Attempt {
  readonly deliveryID: number
  /** 1-based. */
  readonly number: number
  readonly firstAttemptAt: number
  readonly startedAt: number
  readonly endedAt: number
  readonly statusCode: number | undefined
  readonly error: string | undefined
  readonly durationMs: number
}

/**
 * What an attempt means for its subject:
 * - `Delivered`: the next one follows; `drained` when it was the last one read, which gives the
 *   subject back (idle, unless something was queued since the lease's version);
 * - `Retry`: the subject is given back, due again `at`;
 * - `GiveUp`: the last attempt failed; the subject's queue is discarded and the subject given back.
 *
 * @since 0.1.0 @category models
 */
export type Outcome =
  | { readonly _tag: "Delivered"; readonly drained: boolean }
  | { readonly _tag: "Retry"; readonly at: number }
  | { readonly _tag: "GiveUp" }

/** @since 0.1.0 @category tags */
export class DeliveryQueue extends Context.Tag("kassa/DeliveryQueue")<DeliveryQueue, {
  /** Appends the notifications to their subjects' queues, in the order given; an idle subject becomes due `at`. */
  readonly enqueue: (notifications: ReadonlyArray<QueuedNotification>, at: number) => Effect.Effect<void>
  /** Claims up to `limit` subjects due at `now` for `worker` until `now + leaseMs`, with their queues. */
  readonly claimDue: (worker: string, limit: number, now: number, leaseMs: number) => Effect.Effect<ReadonlyArray<Claimed>>
  /** Extends the worker's lease to `until` and reads the queue again; None when the lease was lost. */
  readonly renew: (subject: Subject, worker: string, until: number) => Effect.Effect<Option.Option<Claimed>>
  /** Records an attempt and its consequence for the subject. */
  readonly record: (lease: Lease, attempt: Attempt, outcome: Outcome) => Effect.Effect<void>
  /** Discards what is queued for the subject (its webhook is gone) and gives it back. */
  readonly discard: (lease: Lease) => Effect.Effect<void>
  /** Gives the subject back; `idle`: nothing is left of the queue read at the lease's version. */
  readonly release: (lease: Lease, idle: boolean) => Effect.Effect<void>
  /** Makes a waiting subject due again no sooner than `at` (whoever holds it). */
  readonly postpone: (subject: Subject, at: number) => Effect.Effect<void>
}>() {}
