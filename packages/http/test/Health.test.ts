import { assert, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Migrations, Workers } from "@kassa/adapters"
import { Draining } from "@kassa/http/server/Drain"
import { Dialects, TestServer } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const JSON_TYPE = "application/json; charset=utf-8"

/** The drain state the test sets: the server reads it per request. */
let draining = false

const allOk = { storage: "ok", migrations: "ok", workers: "ok", draining: "ok" }

for (const dialect of Dialects.dialects()) {
  layer(TestServer.layer(dialect).pipe(Layer.provide(Layer.succeed(Draining, { isDraining: () => draining }))), { timeout: "60 seconds" })(
    `Health [${dialect}]`,
    (it) => {
      it.effect("/health/live and /health/ready answer 200 without auth or X-Request-ID; /health stays as it was", () =>
        Effect.gen(function*() {
          const live = yield* TestServer.raw("GET", "/health/live")
          assert.strictEqual(live.status, 200)
          assert.deepStrictEqual(live.json, { status: "ok" })
          assert.strictEqual(live.headers["content-type"], JSON_TYPE)
          const ready = yield* TestServer.raw("GET", "/health/ready")
          assert.strictEqual(ready.status, 200)
          assert.deepStrictEqual(ready.json, { status: "ok", checks: allOk })
          const health = yield* TestServer.raw("GET", "/health")
          assert.deepStrictEqual([health.status, health.json], [200, { status: "ok" }])
        }))

      it.effect("/health/ready answers 503 naming migrations when the store is behind the code", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<{ migrationId: number; name: string; createdAt: unknown }>`SELECT * FROM kassa_migrations WHERE migration_id = ${Migrations.latest}`
          yield* sql`DELETE FROM kassa_migrations WHERE migration_id = ${Migrations.latest}`
          // the numbers may skip one (a migration numbered ahead of another branch's)
          const [previous] = yield* sql<{ id: number }>`SELECT MAX(migration_id) AS id FROM kassa_migrations`
          const ready = yield* TestServer.raw("GET", "/health/ready")
          yield* sql`INSERT INTO kassa_migrations (migration_id, name) VALUES (${Migrations.latest}, ${row!.name})`
          assert.strictEqual(ready.status, 503)
          assert.deepStrictEqual(ready.json, {
            status: "unavailable",
            message: "not ready: migrations",
            failing: ["migrations"],
            checks: { ...allOk, migrations: `at ${Number(previous!.id)} of ${Migrations.latest}` }
          })
          assert.strictEqual((yield* TestServer.raw("GET", "/health/ready")).status, 200)
        }))

      it.effect("/health/ready answers 503 naming draining while the server drains; /health/live still 200", () =>
        Effect.gen(function*() {
          draining = true
          const ready = yield* TestServer.raw("GET", "/health/ready")
          const live = yield* TestServer.raw("GET", "/health/live")
          const api = yield* TestServer.raw("GET", "/v2/processing/invoices/x", { headers: { "x-request-id": TestServer.requestId() } })
          draining = false
          assert.strictEqual(ready.status, 503)
          assert.deepStrictEqual(ready.json.failing, ["draining"])
          assert.strictEqual(live.status, 200)
          assert.strictEqual(api.status, 503)
          assert.strictEqual(api.headers["retry-after"], "1")
        }))

      it.effect("/health/ready answers 503 naming workers when a background loop has stopped", () =>
        Effect.gen(function*() {
          const workers = yield* Workers.Workers
          assert.deepStrictEqual(workers.stopped(), [])
          // the last test: the stopped loop stays registered
          yield* Effect.void.pipe(Workers.forkScoped("testLoop"), Effect.scoped)
          const ready = yield* TestServer.raw("GET", "/health/ready")
          assert.strictEqual(ready.status, 503)
          assert.deepStrictEqual(ready.json.failing, ["workers"])
          assert.strictEqual(ready.json.checks.workers, "stopped: testLoop")
        }))
    }
  )
}
