import { assert, describe, it } from "@effect/vitest"
import * as Config from "@kassa/http/server/Config"
import * as Duration from "effect/Duration"

describe("Config", () => {
  it("KASSA_DB_POOL_SIZE sizes the PostgreSQL pool; without it the pool keeps its default", () => {
    const sized = Config.fromEnv({ DATABASE_URL: "postgres://u@db:5432/kassa", KASSA_DB_POOL_SIZE: "24" })
    assert.deepStrictEqual(sized.database, { _tag: "pg", url: "postgres://u@db:5432/kassa", maxConnections: 24 })
    const plain = Config.fromEnv({ DATABASE_URL: "postgres://u@db:5432/kassa" })
    assert.strictEqual(plain.database._tag === "pg" ? plain.database.maxConnections : "sqlite", undefined)
    const sqlite = Config.fromEnv({ KASSA_DB_POOL_SIZE: "4", KASSA_DATA_DIR: "/tmp/x" })
    assert.deepStrictEqual(sqlite.database, { _tag: "sqlite", filename: "/tmp/x/kassa.db" })
  })

  it("KASSA_DB_PREPARED_STATEMENTS=false turns the prepared statements off; anything but a yes or a no stops the start", () => {
    const off = Config.fromEnv({ DATABASE_URL: "postgres://db/kassa", KASSA_DB_PREPARED_STATEMENTS: "false" })
    assert.deepStrictEqual(off.database, { _tag: "pg", url: "postgres://db/kassa", preparedStatements: false })
    assert.throws(() => Config.fromEnv({ DATABASE_URL: "postgres://db/kassa", KASSA_DB_PREPARED_STATEMENTS: "maybe" }), /KASSA_DB_PREPARED_STATEMENTS/)
  })

  it("KASSA_WEBHOOK_CONCURRENCY sets how many notifications go out at once; without it the dispatcher's default holds", () => {
    assert.strictEqual(Config.fromEnv({ KASSA_WEBHOOK_CONCURRENCY: "64" }).webhooks?.concurrency, 64)
    assert.strictEqual(Config.fromEnv({}).webhooks?.concurrency, undefined)
  })

  it("a count that is not a whole number from 1 to 1000 stops the start with a message naming it", () => {
    for (const name of ["KASSA_DB_POOL_SIZE", "KASSA_WEBHOOK_CONCURRENCY"]) {
      for (const bad of ["0", "-3", "2.5", "many", "1001"]) {
        assert.throws(() => Config.fromEnv({ DATABASE_URL: "postgres://db/kassa", [name]: bad }), new RegExp(name))
      }
    }
  })

  it("KASSA_SHUTDOWN_GRACE takes seconds or an Effect duration; anything else stops the start", () => {
    assert.strictEqual(Duration.toMillis(Config.fromEnv({ KASSA_SHUTDOWN_GRACE: "2.5" }).shutdownGrace!), 2500)
    assert.strictEqual(Duration.toMillis(Config.fromEnv({ KASSA_SHUTDOWN_GRACE: "500 millis" }).shutdownGrace!), 500)
    assert.strictEqual(Config.fromEnv({}).shutdownGrace, undefined)
    assert.throws(() => Config.fromEnv({ KASSA_SHUTDOWN_GRACE: "soon" }), /KASSA_SHUTDOWN_GRACE/)
  })

  it("KASSA_METRICS_TOKEN and KASSA_METRICS_ADDRESS protect /metrics; an address that is not host:port stops the start", () => {
    assert.deepStrictEqual(Config.fromEnv({}).metrics, { token: undefined, address: undefined })
    assert.deepStrictEqual(Config.fromEnv({ KASSA_METRICS_TOKEN: "t", KASSA_METRICS_ADDRESS: "127.0.0.1:9464" }).metrics, {
      token: "t",
      address: { host: "127.0.0.1", port: 9464 }
    })
    assert.deepStrictEqual(Config.fromEnv({ KASSA_METRICS_ADDRESS: ":9464" }).metrics.address, { host: "0.0.0.0", port: 9464 })
    assert.deepStrictEqual(Config.fromEnv({ KASSA_METRICS_ADDRESS: "[::1]:9464" }).metrics.address, { host: "::1", port: 9464 })
    for (const bad of ["9464", "host:", "host:99999"]) {
      assert.throws(() => Config.fromEnv({ KASSA_METRICS_ADDRESS: bad }), /KASSA_METRICS_ADDRESS/)
    }
  })

  it("OTEL_EXPORTER_OTLP_ENDPOINT turns the OTLP export on, as service kassa unless OTEL_SERVICE_NAME names it", () => {
    assert.strictEqual(Config.fromEnv({}).otlp, undefined)
    assert.deepStrictEqual(Config.fromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318" }).otlp, { endpoint: "http://otel:4318", serviceName: "kassa" })
    assert.strictEqual(Config.fromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://otel:4318", OTEL_SERVICE_NAME: "pay" }).otlp?.serviceName, "pay")
  })
})
