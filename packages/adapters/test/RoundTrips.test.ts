/**
 * PostgreSQL's round trips, counted on the wire (a proxy in front of the server): a transaction's
 * `BEGIN` goes with its first statement and its `COMMIT` with its last writes, so neither costs a
 * round trip of its own; a failure on either side still commits nothing.
 */
import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Kassa, SqlTransactions } from "@kassa/adapters"
import { PaymentService } from "@kassa/core"
import { Transactions } from "@kassa/core/ports/Transactions"
import { Dialects, Fixtures, TestDatabase } from "@kassa/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import pg from "pg"
import { COMMIT_AFTER, pipelineTransactions } from "../src/sql/driver/pipelined.js"
import { nameHotStatements } from "../src/sql/driver/preparedStatements.js"
import { insert } from "../src/sql/driver/writes.js"
import { instantPayments } from "./support/InstantPayments.js"
import * as PgWire from "./support/PgWire.js"

class Wire extends Context.Tag("test/Wire")<Wire, PgWire.Wire & { readonly direct: string }>() {}

const kassaThroughWire = Layer.unwrapScoped(Effect.gen(function*() {
  const place = yield* TestDatabase.acquire("pg")
  if (place.database._tag !== "pg") return yield* Effect.dieMessage("not PostgreSQL")
  const wire = yield* PgWire.through(place.database.url)
  return Layer.merge(
    Kassa.layer({ ...place, database: { ...place.database, url: wire.url } }),
    Layer.succeed(Wire, { ...wire, direct: place.database.url })
  )
}))

/** Rows of `table` as a connection of its own sees them (committed ones). */
const committedRows = (url: string, table: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(`SELECT id FROM ${table} ORDER BY id`)).rows.map((r: { id: string }) => r.id)
    } finally {
      await client.end()
    }
  })

/** The background loops' statements: the timers' scheduler, the webhooks' dispatcher, the search compactor. */
const LOOPS = /FROM timers WHERE due_at|MIN\(CASE WHEN locked_until|FROM outbox|search_deltas|pg_try_advisory_xact_lock/

/**
 * The round trips of `wire` but the background loops': a loop's own, and the COMMIT or ROLLBACK
 * that ends its transaction on its connection (a transaction's round trips on one connection
 * are consecutive).
 */
const withoutLoops = (wire: PgWire.Wire) => {
  const last = new Map<number, boolean>()
  return wire.trips.filter((trip, i) => {
    const connection = wire.connections[i]!
    const loop = trip.some((text) => LOOPS.test(text)) ||
      (last.get(connection) === true && trip.length === 1 && /^(COMMIT|ROLLBACK)$/.test(trip[0]!.trim()))
    last.set(connection, loop)
    return !loop
  })
}

const alone = (trips: ReadonlyArray<ReadonlyArray<string>>, text: string) =>
  trips.filter((trip) => trip.length === 1 && trip[0]!.trim() === text).length

if (Dialects.dialects().includes("pg")) {
  layer(kassaThroughWire, { timeout: "60 seconds", excludeTestServices: true })("Round trips [pg]", (it) => {
    it.effect("a payment to its capture: 5 round trips, none a BEGIN or a COMMIT alone", () =>
      Effect.gen(function*() {
        const wire = yield* Wire
        const m = yield* Fixtures.merchant()
        const background = yield* SqlTransactions.SqlBackground
        const payments = yield* PaymentService.PaymentService
        const { pay, payment } = yield* instantPayments(m)
        // two payments first: the ledger's accounts opened (by the first), then their ids kept once
        // read committed (by the second), as a running server has them
        for (let i = 0; i < 2; i++) {
          yield* pay(yield* payment)
          yield* background.awaitIdle
        }
        const next = yield* payment
        wire.reset()
        const created = yield* pay(next)
        yield* background.awaitIdle
        const trips = withoutLoops(wire)
        assert.strictEqual((yield* payments.get(m.partyID, next.invoiceID, created.id)).status, "captured")
        assert.strictEqual(alone(trips, "BEGIN"), 0)
        assert.strictEqual(alone(trips, "COMMIT"), 0)
        // the request: its read, its writes (no transaction); the processing: the card's read,
        // BEGIN with the ledger's locking read, the writes with COMMIT (7 with BEGIN and COMMIT alone)
        assert.strictEqual(trips.length, 5, JSON.stringify(trips.map((t) => t.map((s) => s.slice(0, 60)))))
      }).pipe(Effect.orDie))

    it.effect("a transaction's last writes commit with it, or fail and leave nothing committed", () =>
      Effect.gen(function*() {
        const wire = yield* Wire
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactions
        yield* sql`CREATE TABLE IF NOT EXISTS wire_probe (id text PRIMARY KEY)`
        const run = (ids: ReadonlyArray<string>) =>
          tx.withTransaction(Effect.gen(function*() {
            // a read opens the transaction; the insert waits for its end
            yield* sql`SELECT count(*) FROM wire_probe`
            yield* insert(sql, "wire_probe", sql`INSERT INTO wire_probe ${sql.insert(ids.map((id) => ({ id })))}`)
          }))
        wire.reset()
        yield* run(["a", "b"])
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_probe"), ["a", "b"])
        assert.strictEqual(wire.trips.length, 2, JSON.stringify(wire.trips))
        assert.deepStrictEqual(wire.trips.map((trip) => trip.map((text) => text.split(" ")[0])), [["BEGIN", "SELECT"], ["INSERT", "COMMIT"]])
        // the same row twice: the statement fails, its COMMIT never runs, the transaction rolls back
        wire.reset()
        const failed = yield* Effect.exit(run(["c", "c"]))
        assert.isTrue(Exit.isFailure(failed))
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_probe"), ["a", "b"])
        assert.strictEqual(alone(wire.trips, "ROLLBACK"), 1)
        // a COMMIT that fails (a deferred unique key checked there) fails the run that carried it
        yield* sql`CREATE TABLE IF NOT EXISTS wire_deferred (id text, UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)`
        wire.reset()
        const atCommit = yield* Effect.exit(tx.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT count(*) FROM wire_deferred`
          yield* insert(sql, "wire_deferred", sql`INSERT INTO wire_deferred ${sql.insert([{ id: "f" }, { id: "f" }])}`)
        })))
        assert.isTrue(Exit.isFailure(atCommit))
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_deferred"), [])
        assert.deepStrictEqual(wire.trips.map((trip) => trip.map((text) => text.split(" ")[0])), [["BEGIN", "SELECT"], ["INSERT", "COMMIT"], ["ROLLBACK"]])
        // and the connection given back is out of any transaction: what runs next on the pool commits
        for (let i = 0; i < 4; i++) yield* sql`INSERT INTO wire_probe (id) VALUES (${`d${i}`})`
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_probe"), ["a", "b", "d0", "d1", "d2", "d3"])
      }).pipe(Effect.orDie))

    it.effect("a transaction whose first statement fails rolls back, and one that sent nothing sends nothing", () =>
      Effect.gen(function*() {
        const wire = yield* Wire
        const sql = yield* SqlClient.SqlClient
        const tx = yield* Transactions
        yield* sql`CREATE TABLE IF NOT EXISTS wire_probe2 (id text PRIMARY KEY)`
        wire.reset()
        const failed = yield* Effect.exit(tx.withTransaction(sql`SELECT * FROM no_such_table`))
        assert.isTrue(Exit.isFailure(failed))
        assert.strictEqual(wire.trips.length, 2)
        assert.strictEqual(alone(wire.trips, "ROLLBACK"), 1)
        // the aborted transaction ended: the pool's connections commit what they run
        for (let i = 0; i < 4; i++) yield* sql`INSERT INTO wire_probe2 (id) VALUES (${`e${i}`})`
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_probe2"), ["e0", "e1", "e2", "e3"])
        wire.reset()
        const empty = yield* Effect.exit(tx.withTransaction(Effect.void))
        assert.isTrue(Exit.isSuccess(empty))
        assert.strictEqual(wire.trips.length, 0)
      }).pipe(Effect.orDie))
  
    it.effect("a statement named on its first run goes after a BEGIN of its own, then with the BEGIN once prepared", () =>
      Effect.gen(function*() {
        const wire = yield* Wire
        yield* Effect.promise(async () => {
          const pool = new pg.Pool({ connectionString: wire.url, max: 1 })
          pipelineTransactions(pool)
          // every statement named at its first run
          nameHotStatements(pool, { hotAfter: 1, maxNamed: 10 })
          const client = await pool.connect()
          try {
            await client.query("CREATE TABLE IF NOT EXISTS wire_probe3 (id text PRIMARY KEY)")
            const run = (text: string, values: Array<unknown>) =>
              new Promise<unknown>((resolve, reject) =>
                (client.query as unknown as (t: string, v: Array<unknown>, cb: (e: Error | null, r: unknown) => void) => void)(
                  text,
                  values,
                  (e, r) => (e ? reject(e) : resolve(r))
                )
              )
            for (const id of ["x", "y"]) {
              wire.reset()
              await run("BEGIN", [])
              await run("INSERT INTO wire_probe3 (id) VALUES ($1)", [id])
              await run("ROLLBACK", [])
              // named at "x" (its BEGIN apart: 3 round trips), prepared at "y" (2)
              assert.strictEqual(wire.trips.length, id === "x" ? 3 : 2, JSON.stringify(wire.trips))
            }
            await run("BEGIN", [])
            await run("SELECT count(*) FROM wire_probe3", [])
            await run(`INSERT INTO wire_probe3 (id) VALUES ($1) ${COMMIT_AFTER}`, ["z"])
          } finally {
            client.release()
            await pool.end()
          }
        })
        // rolled back twice, then committed with the insert
        assert.deepStrictEqual(yield* committedRows(wire.direct, "wire_probe3"), ["z"])
      }))
  })
}
