/**
 * `DeliveryQueue` in memory: each subject's queue in the order notifications were appended, the
 * subject's due time, lease and version, as `SqlDeliveryQueue` keeps them, and like it forgets a
 * subject given back with nothing left. Times are the callers' (`now`, `at`), read from Effect's
 * `Clock`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type Claimed, DeliveryQueue, type Lease, type Pending, type Subject } from "../ports/DeliveryQueue.js"
import { currentKey, destinationOf, numbered, type StoredSubject, subjectKey, tables, touch, append } from "./internal/webhookTables.js"
import { MemoryStore } from "./MemoryStore.js"

/** The head of a queue and what follows it, read at once (as on SQL). */
const HEADS_PER_READ = 20

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<DeliveryQueue, never, MemoryStore> = Layer.effect(
  DeliveryQueue,
  Effect.map(MemoryStore, (store) => {
    const t = tables(store)

    /** The subject's pending notifications, oldest first, with what they are sent with. */
    const headsOf = (s: Subject) =>
      Effect.gen(function*() {
        const name = subjectKey(s)
        const heads = (yield* t.deliveries.values)
          .filter((d) => d.status === "pending" && subjectKey(d.subject) === name)
          .sort((a, b) => a.id - b.id)
          .slice(0, HEADS_PER_READ)
        const webhook = yield* destinationOf(t, s.webhookID)
        const out: Array<Pending> = []
        for (const d of heads) {
          if (Option.isNone(webhook)) continue
          const queued = d.keyID === undefined ? Option.none() : yield* t.keys.get(d.keyID)
          const current = yield* currentKey(t, webhook.value.partyID)
          out.push({
            deliveryID: d.id,
            attempts: d.attempts,
            firstAttemptAt: d.firstAttemptAt,
            body: d.body,
            url: webhook.value.url,
            webhookDeleted: webhook.value.deleted,
            queuedKey: Option.match(queued, {
              onNone: () => undefined,
              onSome: (k) => ({ privateKeyRef: k.privateKeyRef, retiredAt: k.retiredAt })
            }),
            currentKey: Option.match(current, { onNone: () => "", onSome: (k) => k.privateKeyRef })
          })
        }
        return out
      })

    const claimedOf = (lease: Lease) =>
      Effect.map(headsOf(lease.subject), (pending): Claimed => ({ lease, pending, complete: pending.length < HEADS_PER_READ }))

    /**
     * Gives the subject back if `worker` holds it. With `idle`, the subject is forgotten unless it
     * grew since `version` (as on SQL, so a long-running memory Kassa keeps no drained subjects):
     * an enqueue makes it afresh.
     */
    const giveBack = (l: Lease, idle: boolean, update?: (s: StoredSubject) => Partial<StoredSubject>) =>
      Effect.flatMap(t.subjects.get(subjectKey(l.subject)), (found) => {
        if (Option.isNone(found) || found.value.lockOwner !== l.worker) return Effect.void
        const s = found.value
        if (idle && s.version === l.version) return t.subjects.delete(subjectKey(l.subject))
        return t.subjects.set(subjectKey(l.subject), { ...s, lockedUntil: undefined, lockOwner: undefined, ...update?.(s) })
      })

    const discardQueue = (s: Subject) =>
      Effect.flatMap(t.deliveries.values, (all) =>
        Effect.forEach(
          all.filter((d) => d.status === "pending" && subjectKey(d.subject) === subjectKey(s)),
          (d) => t.deliveries.set(numbered(d.id), { ...d, status: "discarded" }),
          { discard: true }
        ))

    const recordAttempt = (a: Parameters<DeliveryQueue["Type"]["record"]>[1], succeeded: boolean) =>
      Effect.gen(function*() {
        yield* t.attempts.insert(`${numbered(a.deliveryID)}/${numbered(a.number)}`, {
          deliveryID: a.deliveryID,
          number: a.number,
          at: a.startedAt,
          statusCode: a.statusCode,
          error: a.error,
          durationMs: a.durationMs,
          succeeded
        })
        const d = yield* t.deliveries.get(numbered(a.deliveryID))
        if (Option.isSome(d)) {
          yield* t.deliveries.set(numbered(a.deliveryID), {
            ...d.value,
            attempts: a.number,
            firstAttemptAt: a.firstAttemptAt,
            lastAttemptAt: a.startedAt,
            ...(succeeded ? { status: "delivered" as const, deliveredAt: a.endedAt } : {})
          })
        }
      })

    return DeliveryQueue.of({
      enqueue: (notifications, at) =>
        store.transaction(Effect.gen(function*() {
          for (const n of notifications) yield* append(store, t, n, at)
          const subjects = new Map(notifications.map((n) => [subjectKey(n.subject), n.subject]))
          for (const s of subjects.values()) yield* touch(t, s, at)
        })),
      claimDue: (worker, limit, now, leaseMs) =>
        store.transaction(Effect.gen(function*() {
          const due = (yield* t.subjects.values)
            .filter((s) =>
              s.nextAttemptAt !== undefined && s.nextAttemptAt <= now && (s.lockedUntil === undefined || s.lockedUntil <= now)
            )
            .sort((a, b) => a.nextAttemptAt! - b.nextAttemptAt!)
            .slice(0, Math.max(0, limit))
          const claimed: Array<Claimed> = []
          for (const s of due) {
            yield* t.subjects.set(subjectKey(s.subject), { ...s, lockedUntil: now + leaseMs, lockOwner: worker })
            claimed.push(yield* claimedOf({ subject: s.subject, worker, version: s.version }))
          }
          return claimed
        })),
      renew: (subject, worker, until) =>
        store.transaction(Effect.gen(function*() {
          const found = yield* t.subjects.get(subjectKey(subject))
          if (Option.isNone(found) || found.value.lockOwner !== worker) return Option.none()
          yield* t.subjects.set(subjectKey(subject), { ...found.value, lockedUntil: until })
          return Option.some(yield* claimedOf({ subject, worker, version: found.value.version }))
        })),
      record: (lease, attempt, outcome) =>
        store.transaction(Effect.gen(function*() {
          yield* recordAttempt(attempt, outcome._tag === "Delivered")
          switch (outcome._tag) {
            case "Delivered":
              if (outcome.drained) yield* giveBack(lease, true)
              return
            case "Retry":
              return yield* giveBack(lease, false, () => ({ nextAttemptAt: outcome.at }))
            case "GiveUp":
              yield* discardQueue(lease.subject)
              return yield* giveBack(lease, true)
          }
        })),
      discard: (lease) => store.transaction(Effect.zipRight(discardQueue(lease.subject), giveBack(lease, true))),
      release: (lease, idle) => store.transaction(giveBack(lease, idle)),
      postpone: (subject, at) =>
        store.transaction(Effect.flatMap(t.subjects.get(subjectKey(subject)), (found) =>
          Option.isNone(found) || found.value.nextAttemptAt === undefined
            ? Effect.void
            : t.subjects.set(subjectKey(subject), { ...found.value, nextAttemptAt: at })))
    })
  })
)
