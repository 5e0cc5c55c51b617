import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { RandomIds } from "@kassa/adapters"
import { Ids, type Party, type Shop } from "@kassa/core"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import { PartyRepository } from "@kassa/core/ports/PartyRepository"
import { ReferenceData } from "@kassa/core/ports/ReferenceData"
import { ShopRepository } from "@kassa/core/ports/ShopRepository"
import { type Timer, Timers } from "@kassa/core/ports/Timers"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, TestKassa } from "@kassa/testing"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { insert } from "../src/sql/driver/writes.js"

/** Appends `event` and answers it as stored (the aggregate's last event, read back). */
const appended = (event: { readonly aggregateType: string; readonly aggregateID: string; readonly partyID: string; readonly changes: ReadonlyArray<unknown> }) =>
  Effect.flatMap(EventLog, (log) =>
    Effect.zipRight(
      log.append(event),
      Effect.map(
        log.list({ aggregateType: event.aggregateType, aggregateID: event.aggregateID, after: 0, limit: 1000 }),
        (events) => events.at(-1)!
      )
    ))

const partyRecord = (overrides: Partial<Party.PartyRecord> = {}): Party.PartyRecord => ({
  id: Ids.PartyID.make(`p-${RandomIds.make()}`),
  name: "Party",
  email: "party@kassa.test",
  isBlocked: false,
  isSuspended: false,
  createdAt: new Date(1_700_000_000_123),
  version: 1,
  ...overrides
})

const shopRecord = (partyID: Ids.PartyID, overrides: Partial<Shop.ShopRecord> = {}): Shop.ShopRecord => ({
  id: Ids.ShopID.make(`s-${RandomIds.make()}`),
  partyID,
  createdAt: new Date(1_700_000_000_456),
  isBlocked: false,
  isSuspended: false,
  currency: "RUB",
  categoryID: 1,
  location: { locationType: "ShopLocationUrl", url: "https://shop.kassa.test" },
  details: { name: "Shop", description: "A shop" },
  contractID: Ids.ContractID.make(`c-${RandomIds.make()}`),
  version: 1,
  ...overrides
})

/** Lets real time pass (the test clock stands still otherwise). */
const liveSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

for (const dialect of Dialects.dialects()) {
  // No webhook dispatcher: it would take the outbox rows these tests read.
  layer(TestKassa.layer(dialect, { webhooks: { run: false } }), { timeout: "60 seconds" })(`Storage [${dialect}]`, (it) => {
    it.effect("migrations created the tables and loaded the reference data", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const count = (table: string) =>
          sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM ${sql(table)}`.pipe(Effect.map((rows) => Number(rows[0]!.n)))
        const migrations = yield* sql<{ name: string }>`SELECT name FROM kassa_migrations ORDER BY migration_id`
        assert.deepStrictEqual(migrations.slice(0, 2).map((m) => m.name), ["kernel", "reference_data"])
        for (const table of ["parties", "contracts", "shops", "api_keys", "events", "outbox", "timers", "idempotency_keys"]) {
          assert.isAtLeast(yield* count(table), 0, table)
        }
        assert.strictEqual(yield* count("ref_countries"), 249)
        assert.strictEqual(yield* count("ref_categories"), 20)
        assert.strictEqual(yield* count("ref_trade_blocs"), 9)
        assert.strictEqual(yield* count("ref_payment_institutions"), 4)
        assert.strictEqual(yield* count("ref_schedules"), 4)
        assert.strictEqual(yield* count("ref_service_providers"), 7)
        assert.strictEqual(yield* count("ref_versions"), 1)
      }))

    if (dialect === "pg") {
      it.effect("PostgreSQL: every pooled connection runs without JIT compilation", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // held open together, so that they are different connections of the pool
          const settings = yield* Effect.all(
            Array.from({ length: 4 }, () =>
              sql.withTransaction(
                Effect.zipLeft(sql<{ jit: string }>`SHOW jit`, sql`SELECT pg_sleep(0.05)`)
              ).pipe(Effect.map((rows) => rows[0]!.jit))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(settings, ["off", "off", "off", "off"])
        }))
    }

    it.effect("ReferenceData serves the data set", () =>
      Effect.gen(function*() {
        const ref = yield* ReferenceData
        const countries = yield* ref.countries
        assert.strictEqual(countries.length, 249)
        assert.strictEqual(new Set(countries.map((c) => c.id)).size, 249)
        assert.isTrue(countries.every((c) => /^[A-Z]{3}$/.test(c.id)))
        assert.deepStrictEqual(yield* ref.country("RUS"), Option.some({ id: "RUS", name: "Russian Federation", tradeBlocs: ["EAEU", "CIS"] }))
        assert.isTrue(Option.isNone(yield* ref.country("ZZZ")))
        const blocs = yield* ref.tradeBlocs
        assert.strictEqual(blocs.length, 9)
        assert.strictEqual(Option.getOrThrow(yield* ref.tradeBloc("EAEU")).name, "Eurasian Economic Union")
        assert.isTrue(Option.isNone(yield* ref.tradeBloc("NOPE")))
        // every bloc a country names exists
        const blocIDs = new Set(blocs.map((b) => b.id))
        for (const c of countries) for (const b of c.tradeBlocs ?? []) assert.isTrue(blocIDs.has(b), `${c.id} ${b}`)

        const categories = yield* ref.categories
        assert.strictEqual(categories.length, 20)
        assert.deepStrictEqual(categories.filter((c) => c.type === "test").map((c) => c.categoryID), [1, 2, 3, 4, 5])
        assert.strictEqual(Option.getOrThrow(yield* ref.category(1)).type, "test")
        assert.isTrue(Option.isNone(yield* ref.category(999)))

        const pi = Option.getOrThrow(yield* ref.paymentInstitution(1))
        assert.strictEqual(pi.realm, "test")
        assert.deepStrictEqual(pi.terms.currencies, ["RUB", "USD", "EUR", "KZT", "BYN"])
        assert.deepStrictEqual(pi.payoutSchedules, [1, 2, 3])
        assert.isTrue(Option.isNone(yield* ref.paymentInstitution(3)))

        const ids = (filter: Parameters<typeof ref.paymentInstitutions>[0]) =>
          Effect.map(ref.paymentInstitutions(filter), (list) => list.map((p) => p.id))
        assert.deepStrictEqual(yield* ids({}), [1, 2, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS" }), [1, 100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "USA" }), [2])
        assert.deepStrictEqual(yield* ids({ realm: "test" }), [1, 2])
        assert.deepStrictEqual(yield* ids({ realm: "live" }), [100, 101])
        assert.deepStrictEqual(yield* ids({ residence: "RUS", realm: "test" }), [1])
        assert.deepStrictEqual(yield* ids({ residence: "KAZ", realm: "live" }), [101])
        assert.deepStrictEqual(yield* ids({ residence: "ZZZ" }), [])

        assert.deepStrictEqual((yield* ref.schedules).map((s) => s.scheduleID), [1, 2, 3, 4])
        const qiwi = Option.getOrThrow(yield* ref.serviceProvider("qiwi"))
        assert.strictEqual(qiwi.brandName, "QIWI Wallet")
        assert.strictEqual(qiwi.category, "wallet")
        assert.deepStrictEqual((qiwi.metadata as any).checkout.brandLogo, { banner: "/assets/qiwi.svg" })
        assert.isTrue(Option.isNone(yield* ref.serviceProvider("nope")))
      }))

    it.effect("PartyRepository: insert, find, optimistic update", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const party = partyRecord()
        assert.isTrue(Option.isNone(yield* parties.findById(party.id)))
        yield* parties.insert(party)
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(party))

        const suspended = { ...party, isSuspended: true, version: 2 }
        assert.isTrue(yield* parties.update(suspended, suspended.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))

        // a writer that read version 1 is too late
        const stale = { ...party, isBlocked: true, version: 2 }
        assert.isFalse(yield* parties.update(stale, stale.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))
        // a version from the future is refused as well
        assert.isFalse(yield* parties.update({ ...party, isBlocked: true, version: 9 }, 8))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(suspended))

        const blocked = { ...suspended, isBlocked: true, version: 3 }
        assert.isTrue(yield* parties.update(blocked, blocked.version - 1))
        assert.deepStrictEqual(yield* parties.findById(party.id), Option.some(blocked))

        // an unknown party is not updated (and not created)
        const ghost = partyRecord({ version: 2 })
        assert.isFalse(yield* parties.update(ghost, ghost.version - 1))
        assert.isTrue(Option.isNone(yield* parties.findById(ghost.id)))
      }))

    it.effect("ShopRepository: insert, find, list, optimistic update", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const party = partyRecord()
        yield* parties.insert(party)
        const a = shopRecord(party.id)
        const b = shopRecord(party.id, { details: { name: "Without description" }, currency: "USD", categoryID: 2 })
        yield* shops.insert(a)
        yield* shops.insert(b)
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(a))
        assert.deepStrictEqual(yield* shops.findById(party.id, b.id), Option.some(b))
        const listed = yield* shops.listByParty(party.id)
        assert.deepStrictEqual([...listed].sort((x, y) => x.id.localeCompare(y.id)), [a, b].sort((x, y) => x.id.localeCompare(y.id)))

        const suspended = { ...a, isSuspended: true, version: 2 }
        assert.isTrue(yield* shops.update(suspended, suspended.version - 1))
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(suspended))
        assert.isFalse(yield* shops.update({ ...a, isBlocked: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(party.id, a.id), Option.some(suspended))
        // the other shop of the party is untouched
        assert.deepStrictEqual(yield* shops.findById(party.id, b.id), Option.some(b))
      }))

    it.effect("ShopRepository.findGoverned: a change to the shop or its party shows at once", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const party = partyRecord()
        const shop = shopRecord(party.id)
        assert.isTrue(Option.isNone(yield* shops.findGoverned(party.id, shop.id)))
        yield* parties.insert(party)
        yield* shops.insert(shop)
        const first = Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id))
        assert.deepStrictEqual([first.shop.isBlocked, first.party.isSuspended], [false, false])
        assert.isTrue(yield* shops.update({ ...shop, isBlocked: true, version: 2 }, 1))
        const blocked = Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id))
        assert.deepStrictEqual([blocked.shop.isBlocked, blocked.shop.version], [true, 2])
        assert.isTrue(yield* parties.update({ ...party, isSuspended: true, version: 2 }, 1))
        assert.isTrue(Option.getOrThrow(yield* shops.findGoverned(party.id, shop.id)).party.isSuspended)
      }))

    it.effect("ShopRepository never answers another party's shop", () =>
      Effect.gen(function*() {
        const parties = yield* PartyRepository
        const shops = yield* ShopRepository
        const p1 = partyRecord()
        const p2 = partyRecord()
        yield* parties.insert(p1)
        yield* parties.insert(p2)
        const mine = shopRecord(p1.id)
        yield* shops.insert(mine)
        assert.isTrue(Option.isNone(yield* shops.findById(p2.id, mine.id)))
        assert.deepStrictEqual(yield* shops.listByParty(p2.id), [])
        // another party cannot update it through its own id
        assert.isFalse(yield* shops.update({ ...mine, partyID: p2.id, isBlocked: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))

        // the same shop id under the second party is a different shop
        const theirs = shopRecord(p2.id, { id: mine.id, currency: "EUR" })
        yield* shops.insert(theirs)
        assert.deepStrictEqual(yield* shops.findById(p2.id, mine.id), Option.some(theirs))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))
        assert.isTrue(yield* shops.update({ ...theirs, isSuspended: true, version: 2 }, 1))
        assert.deepStrictEqual(yield* shops.findById(p1.id, mine.id), Option.some(mine))
        assert.deepStrictEqual((yield* shops.listByParty(p1.id)).map((s) => s.id), [mine.id])
      }))

    it.effect("EventLog numbers events per aggregate and lists them with after and limit", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const x = `inv-${RandomIds.make()}`
        const y = `inv-${RandomIds.make()}`
        const append = (aggregateID: string, change: unknown) =>
          appended({ aggregateType: "invoice", aggregateID, partyID: "party-e", changes: [change] })
        const ids: Array<[string, number]> = []
        for (const [agg, n] of [[x, 1], [y, 1], [x, 2], [x, 3], [y, 2]] as const) {
          const stored = yield* append(agg, { changeType: "Test", n })
          ids.push([agg, stored.id])
          assert.deepStrictEqual(stored.changes, [{ changeType: "Test", n }])
          assert.strictEqual(stored.aggregateID, agg)
        }
        assert.deepStrictEqual(ids, [[x, 1], [y, 1], [x, 2], [x, 3], [y, 2]])
        // the same id under another aggregate type is another aggregate
        const other = yield* appended({ aggregateType: "customer", aggregateID: x, partyID: "party-e", changes: [] })
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
        assert.strictEqual((yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [3] })).id, 2)
      }))

    it.effect("EventLog: concurrent transactions append to one aggregate in turn, numbered without gaps or repeats", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [0] })
        // each transaction appends twice, with a pause between: another append must wait for it
        const ids = yield* Effect.all(
          Array.from({ length: 16 }, (_, i) =>
            tx.withTransaction(Effect.gen(function*() {
              const a = yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "a"] })
              yield* Effect.sleep("2 millis").pipe(Effect.withClock(Clock.make()))
              const b = yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [i, "b"] })
              return [a.id, b.id] as const
            }))),
          { concurrency: "unbounded" }
        )
        // a transaction's two events are consecutive
        for (const [a, b] of ids) assert.strictEqual(b, a + 1)
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 100 })
        assert.deepStrictEqual(events.map((e) => e.id), Array.from({ length: 33 }, (_, i) => i + 1))
        const outbox = yield* sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x} ORDER BY seq`
        assert.deepStrictEqual(outbox.map((r) => Number(r.eventId)), events.map((e) => e.id))
        // and a rolled-back append leaves its number free
        yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["gone"] }).pipe(Effect.zipRight(Effect.fail("boom")))
        ).pipe(Effect.ignore)
        assert.strictEqual((yield* appended({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["next"] })).id, 34)
        // PostgreSQL numbers from the aggregate's head row: it holds the last number
        const head = yield* sql.onDialectOrElse({
          pg: () => Effect.map(sql<{ last: unknown }>`SELECT last FROM event_heads WHERE aggregate_id = ${x}`, (r) => r.map((h) => Number(h.last))),
          orElse: () => Effect.succeed([34])
        })
        assert.deepStrictEqual(head, [34])
      }))

    it.effect("a transaction that only writes: a first event, its outbox row and a timer are written together", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const timers = yield* Timers
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        const answer = yield* tx.withTransaction(Effect.gen(function*() {
          yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: ["$1 stays text"] })
          yield* timers.schedule({ kind: "atomic.test", subject: x, dueAt: new Date(4_000_000_000_000), payload: { n: 1 } })
          return "written"
        }))
        assert.strictEqual(answer, "written")
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.changes), [["$1 stays text"]])
        const outbox = yield* sql<{ eventId: unknown }>`SELECT event_id FROM outbox WHERE aggregate_id = ${x}`
        assert.deepStrictEqual(outbox.map((r) => Number(r.eventId)), [1])
        const timer = yield* sql<{ dueAt: unknown }>`SELECT due_at FROM timers WHERE kind = 'atomic.test' AND subject = ${x}`
        assert.deepStrictEqual(timer.map((r) => Number(r.dueAt)), [4_000_000_000_000])
      }))

    it.effect("a transaction that only writes: a failure, or a write the database refuses, leaves nothing", () =>
      Effect.gen(function*() {
        const log = yield* EventLog
        const timers = yield* Timers
        const tx = yield* Transactions
        const sql = yield* SqlClient.SqlClient
        const x = `inv-${RandomIds.make()}`
        const failed = yield* tx.withTransaction(
          log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [1] }).pipe(
            Effect.zipRight(Effect.fail("boom" as const))
          )
        ).pipe(Effect.flip)
        assert.strictEqual(failed, "boom")
        assert.deepStrictEqual(yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 }), [])
        // the row exists already: the second unit's insert is refused, and its event and timer with it
        yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [2] })
        const row = { kind: "atomic.twice", subject: x, dueAt: 4_000_000_000_000, payload: "null" }
        yield* sql`INSERT INTO timers ${sql.insert(row)}`
        const exit = yield* tx.withTransaction(Effect.gen(function*() {
          yield* timers.schedule({ kind: "atomic.test", subject: x, dueAt: new Date(4_000_000_000_000), payload: null })
          yield* log.append({ aggregateType: "invoice", aggregateID: x, partyID: "p", changes: [3] })
          yield* insert(sql, "timers", sql`INSERT INTO timers ${sql.insert(row)}`)
        })).pipe(Effect.exit)
        assert.isTrue(exit._tag === "Failure")
        const timer = yield* sql`SELECT due_at FROM timers WHERE kind = 'atomic.test' AND subject = ${x}`
        assert.strictEqual(timer.length, 0)
        const events = yield* log.list({ aggregateType: "invoice", aggregateID: x, after: 0, limit: 10 })
        assert.deepStrictEqual(events.map((e) => e.changes), [[2]])
      }))

    it.effect("Idempotency.claim: the first claim wins, later claims answer its record", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createInvoice", externalID: "ext-1" }
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        assert.isTrue(Option.isNone(yield* idem.claim(key, { entityID: "inv-1", fingerprint: "f1" })))
        assert.deepStrictEqual(
          yield* idem.claim(key, { entityID: "inv-2", fingerprint: "f2" }),
          Option.some({ entityID: "inv-1", fingerprint: "f1" })
        )
        assert.deepStrictEqual(yield* idem.find(key), Option.some({ entityID: "inv-1", fingerprint: "f1" }))
        // the key is per party, per namespace, per operation and per external id
        for (
          const other of [
            { ...key, partyID: `p-${RandomIds.make()}` },
            { ...key, namespace: "invoiceTemplate/t-1" },
            { ...key, operation: "createRefund" },
            { ...key, externalID: "ext-2" }
          ]
        ) {
          assert.isTrue(Option.isNone(yield* idem.claim(other, { entityID: "x", fingerprint: "fx" })))
        }
      }))

    it.effect("Idempotency.claim: 20 concurrent claims in transactions, exactly one wins", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const tx = yield* Transactions
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createPayment", externalID: "race" }
        const results = yield* Effect.all(
          Array.from({ length: 20 }, (_, i) =>
            tx.withTransaction(
              idem.claim(key, { entityID: `e${i}`, fingerprint: `f${i}` }).pipe(Effect.map((r) => [i, r] as const))
            )),
          { concurrency: "unbounded" }
        )
        const winners = results.filter(([, r]) => Option.isNone(r))
        assert.strictEqual(winners.length, 1)
        const w = winners[0]![0]
        const record = { entityID: `e${w}`, fingerprint: `f${w}` }
        for (const [, r] of results) if (Option.isSome(r)) assert.deepStrictEqual(r.value, record)
        assert.deepStrictEqual(yield* idem.find(key), Option.some(record))
      }))

    it.effect("Idempotency: a claim inside a rolled-back transaction is not kept", () =>
      Effect.gen(function*() {
        const idem = yield* Idempotency
        const tx = yield* Transactions
        const key = { partyID: `p-${RandomIds.make()}`, namespace: PARTY_NAMESPACE, operation: "createInvoice", externalID: "rb" }
        yield* tx.withTransaction(
          idem.claim(key, { entityID: "a", fingerprint: "fa" }).pipe(Effect.zipRight(Effect.fail("rollback")))
        ).pipe(Effect.ignore)
        assert.isTrue(Option.isNone(yield* idem.find(key)))
        assert.isTrue(Option.isNone(yield* idem.claim(key, { entityID: "b", fingerprint: "fb" })))
      }))

    it.effect("the Kassa layer's scheduler fiber fires due timers by itself", () =>
      Effect.gen(function*() {
        const timers = yield* Timers
        const kind = `bg-${RandomIds.make()}`
        const fired: Array<Timer> = []
        yield* timers.register(kind, (t) => Effect.sync(() => void fired.push(t)))
        const now = yield* Clock.currentTimeMillis
        yield* timers.schedule({ kind, subject: "s", dueAt: new Date(now + 1000), payload: null })
        for (let i = 0; i < 20; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(5)
        }
        for (let i = 0; i < 200 && fired.length === 0; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(10)
        }
        assert.strictEqual(fired.length, 1)
        assert.strictEqual(fired[0]!.subject, "s")
        for (let i = 0; i < 5; i++) {
          yield* TestClock.adjust("50 millis")
          yield* liveSleep(10)
        }
        assert.strictEqual(fired.length, 1, "fired exactly once")
      }))
  })
}
