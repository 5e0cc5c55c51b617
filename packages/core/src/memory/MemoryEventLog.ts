/**
 * `EventLog` and `Outbox` in memory: events numbered per aggregate, each with an outbox entry
 * written in the same transaction; the outbox gives entries in order per aggregate.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoredEvent } from "../Event.js"
import { EventLog } from "../ports/EventLog.js"
import { Outbox, type OutboxEntry } from "../ports/Outbox.js"
import { asJson, key, MemoryStore } from "./MemoryStore.js"

/** An aggregate's events, oldest first. @since 0.1.0 @category models */
export type History = ReadonlyArray<StoredEvent>

/** The events of an aggregate, as `InvoiceHistories` reads them too. @since 0.1.0 */
export const eventsTable = (store: MemoryStore["Type"]) => store.table<History>("events")

/** The outbox: entries by sequence number (keys in the order they were written). */
const outboxTable = (store: MemoryStore["Type"]) => store.table<OutboxEntry & { readonly seq: number }>("outbox")

/** @since 0.1.0 @category layers */
export const eventLogLayerMemory: Layer.Layer<EventLog, never, MemoryStore> = Layer.effect(
  EventLog,
  Effect.map(MemoryStore, (store) => {
    const events = eventsTable(store)
    const outbox = outboxTable(store)
    return {
      append: (event) =>
        store.transaction(Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const aggregate = key(event.aggregateType, event.aggregateID)
          const history = Option.getOrElse(yield* events.get(aggregate), (): History => [])
          const id = (history[history.length - 1]?.id ?? 0) + 1
          // stored as the SQL log's JSON column gives it back
          const stored: StoredEvent = {
            aggregateType: event.aggregateType,
            aggregateID: event.aggregateID,
            partyID: event.partyID,
            id,
            createdAt: new Date(now),
            changes: asJson(event.changes)
          }
          yield* events.set(aggregate, [...history, stored])
          const seq = store.next("outbox")
          yield* outbox.insert(String(seq).padStart(16, "0"), {
            seq,
            aggregateType: event.aggregateType,
            aggregateID: event.aggregateID,
            eventID: id,
            partyID: event.partyID
          })
        })),
      list: (q) =>
        Effect.map(events.get(key(q.aggregateType, q.aggregateID)), (history) =>
          Option.getOrElse(history, (): History => [])
            .filter((e) => e.id > q.after && (q.partyID === undefined || e.partyID === q.partyID))
            .slice(0, Math.max(0, q.limit)))
    }
  })
)

/** @since 0.1.0 @category layers */
export const outboxLayerMemory: Layer.Layer<Outbox, never, MemoryStore> = Layer.effect(
  Outbox,
  Effect.map(MemoryStore, (store) => {
    const outbox = outboxTable(store)
    return {
      pending: Effect.map(outbox.values, (all) => all.length > 0),
      take: (limit, f) =>
        store.transaction(Effect.gen(function*() {
          // the oldest entries: each aggregate's from its oldest on, in order (one taker at a time)
          const taken = [...yield* outbox.values].sort((a, b) => a.seq - b.seq).slice(0, Math.max(0, limit))
          if (taken.length === 0) return 0
          yield* f(taken.map(({ seq: _, ...entry }) => entry))
          for (const entry of taken) yield* outbox.delete(String(entry.seq).padStart(16, "0"))
          return taken.length
        }))
    }
  })
)

/** Both ports. @since 0.1.0 @category layers */
export const layerMemory = Layer.mergeAll(eventLogLayerMemory, outboxLayerMemory)
