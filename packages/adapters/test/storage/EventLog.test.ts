import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import { RandomIds } from "@kassa/adapters"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { Outbox, type OutboxEntry } from "@kassa/core/ports/Outbox"
import { Transactions } from "@kassa/core/ports/Transactions"
import { TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { backends, kassa } from "./backends.js"
import * as Records from "./records.js"

/** A take whose work is `f`. */
const outboxTake = (limit: number, f: (entries: ReadonlyArray<OutboxEntry>) => void) =>
  Effect.flatMap(Outbox, (outbox) => outbox.take(limit, (entries) => Effect.sync(() => f(entries))))

/** Takes every entry waiting (those of the services' own events, say). */
const drainOutbox = Effect.gen(function*() {
  while ((yield* outboxTake(10_000, () => undefined)) > 0) continue
})

for (const backend of backends()) {
  layer(kassa(backend), { timeout: "60 seconds" })(`Storage contract: event log and outbox [${backend}]`, (it) => {
    it.effect("EventLog numbers events per aggregate and lists them with after and limit", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const x = `inv-${RandomIds.make()}`
        const y = `inv-${RandomIds.make()}`
        const append = (aggregateID: string, change: unknown) =>
          Records.appended({ aggregateType: "invoice", aggregateID, partyID: "party-e", changes: [change] })
        const ids: Array<[string, number]> = []
        for (const [agg, n] of [[x, 1], [y, 1], [x, 2], [x, 3], [y, 2]] as const) {
          const stored = yield* append(agg, { changeType: "Test", n })
          ids.push([agg, stored.id])
          assert.deepStrictEqual(stored.changes, [{ changeType: "Test", n }])
          assert.strictEqual(stored.aggregateID, agg)
        }
        assert.deepStrictEqual(ids, [[x, 1], [y, 1], [x, 2], [x, 3], [y, 2]])
        // the same id under another aggregate type is another aggregate
        const other = yield* Records.appended({ aggregateType: "customer", aggregateID: x, partyID: "party-e", changes: [] })
        assert.strictEqual(other.id, 1)

        const list = (aggregateID: string, after: number, limit: number) =>
          Effect.map(log.list({ aggregateType: "invoice", aggregateID, after, limit }), (events) => events.map((e) => e.id))
        assert.deepStrictEqual(yield* list(x, 0, 10), [1, 2, 3])
        assert.deepStrictEqual(yield* list(y, 0, 10), [1, 2])
        assert.deepStrictEqual(yield* list(x, 1, 10), [2, 3])
        assert.deepStrictEqual(yield* list(x, 3, 10), [])
        assert.deepStrictEqual(yield* list(x, 0, 1), [1])
        assert.deepStrictEqual(yield* list(x, 1, 1), [2])
        assert.deepStrictEqual(yield* list(x, 0, 2), [1, 2])
        assert.deepStrictEqual(yield* list(`inv-${RandomIds.make()}`, 0, 10), [])

        const [first] = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 1 })
        assert.deepStrictEqual(first, {
          aggregateType: "invoice",
          aggregateID: x,
          partyID: "party-e",
          id: 1,
          createdAt: new Date(yield* Clock.currentTimeMillis),
          changes: [{ changeType: "Test", n: 1 }]
        })
      }))

    it.effect("EventLog: appends inside a rolled-back transaction leave nothing", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const tx = yield* Transactions
        const x = `inv-${RandomIds.make()}`
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [1] })
        const failed = yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [2] }).pipe(
            Effect.zipRight(Effect.fail("boom" as const))
          )
        ).pipe(Effect.flip)
        assert.strictEqual(failed, "boom")
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.changes), [[1]])
        assert.strictEqual((yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [3] })).id, 2)
      }))

    it.effect("EventLog: concurrent transactions append to one aggregate in turn; the outbox gives their entries in order", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const tx = yield* Transactions
        yield* Records.subscribed("p")
        yield* drainOutbox
        const x = `inv-${RandomIds.make()}`
        // each transaction appends twice, with a pause between: another append must wait for it
        const ids = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            tx.withTransaction(Effect.gen(function*() {
              const a = yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "a"] })
              yield* Effect.yieldNow()
              const b = yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "b"] })
              return [a.id, b.id] as const
            }))),
          { concurrency: "unbounded" }
        )
        for (const [a, b] of ids) assert.strictEqual(b, a + 1)
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 100 })
        assert.deepStrictEqual(events.map((e) => e.id), Array.from({ length: 16 }, (_, i) => i + 1))
        // one entry per event, taken one at a time per aggregate, in order
        const taken: Array<number> = []
        while ((yield* outboxTake(100, (entries) => void taken.push(...entries.map((e) => e.eventID)))) > 0) continue
        assert.deepStrictEqual(taken, events.map((e) => e.id))
        // a rolled-back append leaves its number free and no entry
        yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["gone"] }).pipe(Effect.zipRight(Effect.fail("boom")))
        ).pipe(Effect.ignore)
        assert.isFalse(yield* Effect.flatMap(Outbox, (o) => o.pending))
        assert.strictEqual((yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["next"] })).id, 17)
      }))

    // (memory has an entry for every event)
    if (backend !== "memory") it.effect("Outbox: an event of a party without webhooks has no entry; of one with a wallet webhook, one", () =>
      Effect.gen(function*() {
        const outbox = yield* Outbox
        yield* drainOutbox
        const x = `inv-${RandomIds.make()}`
        yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: `party-${RandomIds.make()}`, changes: ["none"] })
        assert.isFalse(yield* outbox.pending)
        const party = `party-${RandomIds.make()}`
        yield* Records.walletSubscribed(party)
        yield* Records.appended({ aggregateType: "invoice", aggregateID: x, partyID: party, changes: ["one"] })
        const seen: Array<OutboxEntry> = []
        yield* outboxTake(10, (entries) => void seen.push(...entries))
        assert.deepStrictEqual(seen, [{ aggregateType: "invoice", aggregateID: x, eventID: 2, partyID: party }])
      }))

    it.effect("Outbox: a take gives the oldest entries, each aggregate's in order from its oldest", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const outbox = yield* Outbox
        yield* Records.subscribed("party-o")
        yield* drainOutbox
        assert.isFalse(yield* outbox.pending)
        const [x, y] = [`inv-${RandomIds.make()}`, `inv-${RandomIds.make()}`]
        for (const [aggregateID, n] of [[x, 1], [x, 2], [y, 1], [x, 3], [y, 2]] as const) {
          yield* log.append({ aggregateType: "invoice", aggregateID, partyID: "party-o", changes: [n] })
        }
        assert.isTrue(yield* outbox.pending)
        const passes: Array<Array<string>> = []
        const pass = (limit: number) =>
          outboxTake(limit, (entries) => void passes.push(entries.map((e) => `${e.aggregateID === x ? "x" : "y"}${e.eventID}`)))
        assert.strictEqual(yield* pass(1), 1)
        assert.strictEqual(yield* pass(3), 3)
        assert.strictEqual(yield* pass(10), 1)
        assert.strictEqual(yield* pass(10), 0)
        assert.deepStrictEqual(passes, [["x1"], ["x2", "y1", "x3"], ["y2"]])
        assert.isFalse(yield* outbox.pending)
        const [entry] = yield* Effect.gen(function*() {
          yield* log.append({ aggregateType: "invoice", aggregateID: y, partyID: "party-o", changes: [3] })
          const seen: Array<OutboxEntry> = []
          yield* outboxTake(10, (entries) => void seen.push(...entries))
          return seen
        })
        assert.deepStrictEqual(entry, { aggregateType: "invoice", aggregateID: y, eventID: 3, partyID: "party-o" })
      }))

    it.effect("Outbox: concurrent takes give an aggregate's entries once each, in order (a taker holding its oldest keeps the rest)", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const outbox = yield* Outbox
        yield* Records.subscribed("party-o")
        yield* drainOutbox
        const [x, y] = [`inv-${RandomIds.make()}`, `inv-${RandomIds.make()}`]
        for (const [aggregateID, n] of [[x, 1], [y, 1], [x, 2], [y, 2]] as const) {
          yield* log.append({ aggregateType: "invoice", aggregateID, partyID: "party-o", changes: [n] })
        }
        // in the order the takes committed
        const committed: Array<string> = []
        const take = (limit: number, pause: number) =>
          Effect.gen(function*() {
            let seen: ReadonlyArray<OutboxEntry> = []
            yield* outbox.take(limit, (entries) =>
              Effect.sync(() => void (seen = entries)).pipe(
                Effect.zipRight(Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, pause))))
              ))
            committed.push(...seen.map((e) => `${e.aggregateID === x ? "x" : "y"}${e.eventID}`))
          })
        // the first holds x's oldest entry for a while; the second must leave x's later one alone
        yield* Effect.all([take(1, 100), Effect.zipRight(Effect.promise(() => new Promise<void>((r) => setTimeout(r, 20))), take(10, 0))], {
          concurrency: "unbounded"
        })
        yield* take(10, 0)
        assert.sameMembers(committed, ["x1", "x2", "y1", "y2"])
        assert.isBelow(committed.indexOf("x1"), committed.indexOf("x2"))
        assert.isBelow(committed.indexOf("y1"), committed.indexOf("y2"))
      }))

    it.effect("Outbox: what a failed take queued rolls back with it, and its entries stay", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const outbox = yield* Outbox
        const idem = yield* Idempotency
        yield* Records.subscribed("party-o")
        yield* drainOutbox
        const x = `inv-${RandomIds.make()}`
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "party-o", changes: [1] })
        const key = { partyID: "party-o", namespace: PARTY_NAMESPACE, operation: "outbox", externalID: x }
        const exit = yield* Effect.exit(outbox.take(10, () =>
          idem.claim(key, { entityID: "e", fingerprint: "f" }).pipe(Effect.zipRight(Effect.dieMessage("fan-out failed")))))
        assert.strictEqual(exit._tag, "Failure")
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        const taken: Array<number> = []
        assert.strictEqual(yield* outboxTake(10, (entries) => void taken.push(...entries.map((e) => e.eventID))), 1)
        assert.deepStrictEqual(taken, [1])
      }))
  })
}

// SQLite's alone: PostgreSQL's append numbers from the aggregate's head row
layer(TestKassa.layer("sqlite", { webhooks: { run: false } }), { timeout: "60 seconds" })("EventLog's statements [sqlite]", (it) => {
  it.effect("an append's statement copies no row into a temporary table (an INSERT ... SELECT from the table it writes would)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sent: Array<readonly [string, ReadonlyArray<unknown>]> = []
      yield* Effect.flatMap(EventLog, (log) =>
        log.append({ aggregateType: "invoice", aggregateID: `inv-${RandomIds.make()}`, partyID: "p", changes: [1] })).pipe(
          Statement.withTransformer((statement) => {
            sent.push(statement.compile())
            return Effect.succeed(statement)
          })
        )
      const appends = sent.filter(([text]) => text.includes("INSERT INTO events"))
      assert.strictEqual(appends.length, 1)
      const [text, params] = appends[0]!
      const plan = yield* sql.unsafe<{ opcode: string }>(`EXPLAIN ${text}`, params)
      assert.isAbove(plan.length, 0)
      assert.deepStrictEqual(plan.filter((op) => op.opcode === "OpenEphemeral"), [])
    }))
})
