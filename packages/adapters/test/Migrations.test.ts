import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Database from "@kassa/adapters/Database"
import * as Migrations from "@kassa/adapters/Migrations"
import * as Statements from "@kassa/adapters/sql/driver/Statements"
import * as SqlEventLog from "@kassa/adapters/SqlEventLog"
import * as SqlIdempotency from "@kassa/adapters/SqlIdempotency"
import { EventLog } from "@kassa/core/ports/EventLog"
import { Idempotency, PARTY_NAMESPACE } from "@kassa/core/ports/Idempotency"
import * as Dialects from "@kassa/testing/Dialects"
import * as TestDatabase from "@kassa/testing/TestDatabase"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import dispatchedAtDropped from "../src/internal/migrations/0020_outbox_dispatched_at_dropped.js"

/** A scratch database, not migrated: each test runs the migrations it needs. */
const scratch = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(Effect.map(TestDatabase.acquire(dialect), ({ database }) => Database.layer(database)))

interface Index {
  readonly name: string
  readonly table: string
  readonly unique: boolean
  readonly partial: boolean
  /** The key columns in order; null for an expression. */
  readonly columns: ReadonlyArray<string | null>
}

/** Every index of the store's own tables with its key columns, the primary keys' included. */
const keyColumns = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<Index>, unknown> =>
  sql.onDialectOrElse({
    pg: () =>
      Effect.map(
        sql<{ name: string; tbl: string; uniq: boolean; partial: boolean; cols: ReadonlyArray<string | null> }>`
          SELECT c.relname::text AS name, t.relname::text AS tbl, i.indisunique AS uniq, i.indpred IS NOT NULL AS partial,
            ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
              LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
              WHERE k.n <= i.indnkeyatts ORDER BY k.n) AS cols
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
          WHERE t.relnamespace = current_schema()::regnamespace`,
        (rows) => rows.map((r) => ({ name: r.name, table: r.tbl, unique: r.uniq, partial: r.partial, columns: r.cols }))
      ),
    orElse: () =>
      Effect.gen(function*() {
        const list = yield* sql<{ name: string; tbl: string; uniq: number; partial: number }>`
          SELECT il.name AS name, m.name AS tbl, il."unique" AS uniq, il.partial AS partial
          FROM sqlite_master m JOIN pragma_index_list(m.name) il WHERE m.type = 'table'`
        return yield* Effect.forEach(list, (r) =>
          Effect.map(
            sql<{ name: string | null }>`SELECT name FROM pragma_index_info(${r.name}) ORDER BY seqno`,
            (columns) => ({ name: r.name, table: r.tbl, unique: r.uniq === 1, partial: r.partial === 1, columns: columns.map((c) => c.name) })
          ))
      })
  })

for (const dialect of Dialects.dialects()) {
  // a database of its own: the start's check of a store at each stage
  layer(scratch(dialect), { timeout: 60_000 })(`Migrations at start [${dialect}]`, (it) => {
    const start = Effect.gen(function*() {
      const counting = yield* Layer.build(Statements.layer)
      const report = yield* Effect.provide(Migrations.Applied, Layer.provide(Migrations.layer, Layer.succeedContext(counting)))
      const sent = [...Context.get(counting, Statements.StatementCounts).snapshot().values()].reduce((a, b) => a + b, 0)
      return { report, sent }
    }).pipe(Effect.scoped)

    it.effect("a store that has run every migration is told so by one statement; any other goes through the migrator", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // a store one migration behind: the migrator applies the last
        yield* Migrations.runUpTo(Migrations.latest - 1)
        const behind = yield* start
        assert.strictEqual(behind.report.applied.length, 1)
        assert.isTrue(behind.report.applied[0]!.startsWith(`${String(Migrations.latest).padStart(4, "0")}_`))
        assert.isAbove(behind.sent, 1)
        // a restart: nothing to apply, one read
        assert.deepStrictEqual(yield* start, { report: { applied: [], total: Migrations.latest }, sent: 1 })
        // a store whose record names another migration: the migrator checks it, applies nothing
        yield* sql`UPDATE kassa_migrations SET name = 'renamed' WHERE migration_id = 1`
        const renamed = yield* start
        assert.deepStrictEqual(renamed.report, { applied: [], total: Migrations.latest })
        assert.isAbove(renamed.sent, 1)
      }))
  })
  layer(scratch(dialect), { timeout: 60_000 })(`Migrations [${dialect}]`, (it) => {
    it.effect("0014: events written before it go on numbered after their last one", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(13)
        // a store as the earlier version left it: two invoices' events and their outbox rows
        const events = [["inv-a", 1], ["inv-a", 2], ["inv-a", 3], ["inv-b", 1]] as const
        for (const [id, n] of events) {
          yield* sql`INSERT INTO events ${
            sql.insert({ aggregateType: "invoice", aggregateId: id, id: n, partyId: "p", createdAt: n, changes: "[]" })
          }`
        }
        yield* Migrations.run
        const log = yield* Effect.provide(EventLog, SqlEventLog.layer.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
        const append = (aggregateID: string) =>
          Effect.zipRight(
            log.append({ aggregateType: "invoice", aggregateID, partyID: "p", changes: ["after"] }),
            Effect.map(log.list({ aggregateType: "invoice", aggregateID, after: 0, limit: 100 }), (events) => events.at(-1)!.id)
          )
        assert.deepStrictEqual([yield* append("inv-a"), yield* append("inv-b"), yield* append("inv-a")], [4, 2, 5])
        // an aggregate the store had never seen starts at 1
        assert.strictEqual(yield* append("inv-c"), 1)
        const listed = yield* log.list({ aggregateType: "invoice", aggregateID: "inv-a", after: 0, limit: 10 })
        assert.deepStrictEqual(listed.map((e) => e.id), [1, 2, 3, 4, 5])
      }))
  })
  // a database of its own: it must stop at 0014
  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0015 [${dialect}]`, (it) => {
    it.effect("0015: outbox rows an earlier version dispatched go, pending ones stay", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(14)
        const row = (aggregateId: string, eventId: number, dispatchedAt: number | null) =>
          sql`INSERT INTO outbox ${sql.insert({ aggregateType: "invoice", aggregateId, eventId, partyId: "p", createdAt: 1, dispatchedAt })}`
        yield* row("inv-a", 1, 5)
        yield* row("inv-a", 2, null)
        yield* row("inv-b", 1, 7)
        yield* Migrations.run
        const left = yield* sql<{ aggregateId: string; eventId: unknown }>`SELECT aggregate_id, event_id FROM outbox ORDER BY seq`
        assert.deepStrictEqual(left.map((r) => [r.aggregateId, Number(r.eventId)]), [["inv-a", 2]])
      }))
  })
  // a database of its own: it must stop at 0019
  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0020 [${dialect}]`, (it) => {
    it.effect("0020: the outbox loses dispatched_at; a row still marked dispatched goes, pending ones stay", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(19)
        const row = (aggregateId: string, eventId: number, dispatchedAt: number | null) =>
          sql`INSERT INTO outbox ${sql.insert({ aggregateType: "invoice", aggregateId, eventId, partyId: "p", createdAt: 1, dispatchedAt })}`
        yield* row("inv-a", 1, 5)
        yield* row("inv-a", 2, null)
        yield* row("inv-b", 1, null)
        yield* Migrations.run
        const left = yield* sql<Record<string, unknown>>`SELECT * FROM outbox ORDER BY seq`
        assert.deepStrictEqual(left.map((r) => [r.aggregateId, Number(r.eventId)]), [["inv-a", 2], ["inv-b", 1]])
        assert.notInclude(Object.keys(left[0]!), "dispatchedAt")
        // a store without the column (already dropped): nothing to do
        yield* dispatchedAtDropped
      }))
  })
  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0017 [${dialect}]`, (it) => {
    it.effect("0017: externalIDs recorded before it stay the party's; a token's namespace takes the same one anew", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(16)
        yield* sql`INSERT INTO idempotency_keys ${
          sql.insert({ partyId: "p", operation: "invoice", externalId: "order-1", entityId: "inv-1", fingerprint: "f", createdAt: 1 })
        }`
        yield* Migrations.run
        const idem = yield* Effect.provide(Idempotency, SqlIdempotency.layer.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
        const key = { partyID: "p", namespace: PARTY_NAMESPACE, operation: "invoice", externalID: "order-1" }
        assert.deepStrictEqual(yield* idem.find(key), Option.some({ entityID: "inv-1", fingerprint: "f" }))
        const token = { ...key, namespace: "invoiceTemplate/t-1" }
        assert.isTrue(Option.isNone(yield* idem.find(token)))
        assert.isTrue(Option.isNone(yield* idem.claim(token, { entityID: "inv-2", fingerprint: "g" })))
        assert.deepStrictEqual(yield* idem.find(key), Option.some({ entityID: "inv-1", fingerprint: "f" }))
      }))
  })

  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0018 [${dialect}]`, (it) => {
    it.effect("0018: a party's webhooks converge on one key, its oldest live webhook's; what was queued keeps its webhook's key", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(16)
        const hook = (id: string, partyId: string, createdAt: number, deletedAt: number | null = null) =>
          sql`INSERT INTO webhooks ${
            sql.insert({ id, partyId, shopId: "s", topic: "InvoicesTopic", scope: "{}", url: "https://m.test/", publicKey: `pub-${id}`, privateKey: `priv-${id}`, createdAt, deletedAt })
          }`
        yield* hook("gone", "p", 1, 2)
        yield* hook("invoices", "p", 3)
        yield* hook("customers", "p", 4)
        yield* hook("theirs", "q", 5)
        for (const [webhookId, status] of [["customers", "pending"], ["invoices", "delivered"]] as const) {
          yield* sql`INSERT INTO webhook_deliveries ${
            sql.insert({ webhookId, subjectType: "invoice", subjectId: "i", eventId: 1, topic: "InvoicesTopic", eventType: "InvoiceCreated", body: "{}", status, createdAt: 6 })
          }`
        }
        yield* Migrations.run
        const current = yield* sql<{ partyId: string; publicKey: string; privateKey: string }>`SELECT party_id, public_key, private_key
          FROM webhook_keys WHERE retired_at IS NULL ORDER BY party_id`
        assert.deepStrictEqual(current.map((k) => [k.partyId, k.publicKey, k.privateKey]), [["p", "pub-invoices", "priv-invoices"], ["q", "pub-theirs", "priv-theirs"]])
        const retired = yield* sql<{ id: string }>`SELECT id FROM webhook_keys WHERE retired_at IS NOT NULL ORDER BY id`
        assert.deepStrictEqual(retired.map((k) => k.id), ["customers", "gone"])
        const queued = yield* sql<{ webhookId: string; keyId: string | null }>`SELECT webhook_id, key_id FROM webhook_deliveries ORDER BY id`
        assert.deepStrictEqual(queued.map((d) => [d.webhookId, d.keyId]), [["customers", "customers"], ["invoices", null]])
        const columns = Object.keys((yield* sql`SELECT * FROM webhooks`)[0]!)
        assert.notInclude(columns, "privateKey")
        assert.notInclude(columns, "publicKey")
      }))
  })

  layer(scratch(dialect), { timeout: 60_000 })(`Migrations: indexes [${dialect}]`, (it) => {
    it.effect("no plain index leads with another index's key columns (each insert pays every index)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.run
        const indexes = yield* keyColumns(sql)
        const redundant = indexes.filter((a) =>
          !a.unique && !a.partial && a.columns.every((c) => c !== null) &&
          indexes.some((b) =>
            b !== a && b.table === a.table && !b.partial && b.columns.length >= a.columns.length &&
            a.columns.every((c, i) => b.columns[i] === c)
          )
        )
        assert.isAbove(indexes.length, 10)
        assert.deepStrictEqual(redundant.map((a) => a.name), [])
      }))
  })

  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0028 [${dialect}]`, (it) => {
    it.effect("0028: a withdrawal's wallet owner is recorded, another party's for one made with a wallet grant", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(27)
        yield* sql`INSERT INTO wallets ${
          sql.insert({ id: "w", partyId: "owner", identityId: "i", name: "Main", currency: "RUB", isBlocked: 0, createdAt: 1, version: 1 })
        }`
        const withdrawal = (id: string, partyId: string, walletId: string) =>
          sql`INSERT INTO withdrawals ${
            sql.insert({
              id, partyId, walletId, identityId: "i", destinationId: "d", amount: 100, currency: "RUB", fee: 1, payoutAmount: 100,
              payoutCurrency: "RUB", status: "Succeeded", attempts: 1, events: "[]", createdAt: 2, version: 2
            })
          }`
        yield* withdrawal("own", "owner", "w")
        yield* withdrawal("granted", "maker", "w")
        yield* withdrawal("orphan", "maker", "gone")
        yield* Migrations.run
        const rows = yield* sql<{ id: string; walletPartyId: string }>`SELECT id, wallet_party_id FROM withdrawals ORDER BY id`
        assert.deepStrictEqual(rows.map((r) => [r.id, r.walletPartyId]), [["granted", "owner"], ["orphan", "maker"], ["own", "owner"]])
      }))
  })

  layer(scratch(dialect), { timeout: 60_000 })(`Migrations 0032 [${dialect}]`, (it) => {
    it.effect("0032: search deltas keep their numbers and order, new ones number after them; SQLite keeps no sequence for them, and the triggers that write them stay", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrations.runUpTo(31)
        const delta = (k1: string) =>
          sql.unsafe(`INSERT INTO search_deltas (kind, party_id, shop_id, q, k1, k2, n, amount, fee) VALUES ('i', 'p', 's', 1, '${k1}', '', 1, 10, 0)`)
        const deltas = Effect.map(
          sql<{ seq: unknown; k1: string }>`SELECT seq, k1 FROM search_deltas ORDER BY seq`,
          (rows) => rows.map((r) => [Number(r.seq), r.k1] as const)
        )
        const writers = sql.onDialectOrElse({
          pg: () => Effect.succeed([]),
          orElse: () => sql`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%search_deltas%' ORDER BY name`
        })
        yield* delta("a")
        yield* delta("b")
        const before = yield* deltas
        const writersBefore = yield* writers
        yield* Migrations.run
        assert.deepStrictEqual(yield* deltas, before)
        assert.deepStrictEqual(yield* writers, writersBefore)
        yield* sql`INSERT INTO invoices ${
          sql.insert({
            id: "inv", partyId: "p", shopId: "s", createdAt: 900_000, dueDate: 1, amount: 5, currency: "RUB", product: "x",
            status: "unpaid", data: "{}", version: 1
          })
        }`
        const after = yield* deltas
        assert.deepStrictEqual(after.slice(0, 2), before)
        assert.deepStrictEqual(after.slice(2).map(([, k1]) => k1), ["unpaid"])
        assert.isAbove(after[2]![0], before[1]![0])
        if (dialect === "sqlite") {
          assert.isAbove(writersBefore.length, 0)
          const [table] = yield* sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search_deltas'`
          assert.notInclude(table!.sql, "AUTOINCREMENT")
          assert.deepStrictEqual(yield* sql`SELECT name FROM sqlite_sequence WHERE name = 'search_deltas'`, [])
        }
      }))
  })
}
