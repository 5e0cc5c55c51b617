import { assert, describe, it } from "@effect/vitest"
import { TokenKeys } from "@kassa/adapters"
import * as Config from "@kassa/http/server/Config"
import * as Logging from "@kassa/http/server/Logging"
import * as Preflight from "@kassa/http/server/Preflight"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as LogLevel from "effect/LogLevel"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

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

/** The one line a start with `env` stops with. */
const failure = (env: Record<string, string>): string =>
  Either.match(Effect.runSync(Effect.either(Config.load(env))), { onLeft: Config.render, onRight: () => assert.fail("the settings passed") })

describe("Config: the store", () => {
  it("DATABASE_URL: postgres:// or postgresql:// is PostgreSQL, sqlite:<file> a SQLite file, unset the data dir's; anything else stops the start without repeating the value", () => {
    assert.deepStrictEqual(Config.fromEnv({ DATABASE_URL: "postgresql://u@db/kassa" }).database, { _tag: "pg", url: "postgresql://u@db/kassa" })
    assert.deepStrictEqual(Config.fromEnv({ DATABASE_URL: "sqlite:/var/lib/kassa.db" }).database, { _tag: "sqlite", filename: "/var/lib/kassa.db" })
    assert.deepStrictEqual(Config.fromEnv({ DATABASE_URL: "sqlite:store/kassa.db" }).database, { _tag: "sqlite", filename: path.resolve("store/kassa.db") })
    assert.deepStrictEqual(Config.fromEnv({ DATABASE_URL: "", KASSA_DATA_DIR: "/srv/k" }).database, { _tag: "sqlite", filename: "/srv/k/kassa.db" })
    for (const bad of ["postgress://kassa:pw-123@db/kassa", "mysql://kassa:pw-123@db/kassa", "kassa.db", "sqlite:"]) {
      const message = failure({ DATABASE_URL: bad })
      assert.match(message, /^DATABASE_URL: expected postgres:\/\/…, postgresql:\/\/… or sqlite:<file>, got /)
      assert.notInclude(message, "pw-123")
    }
  })

  it("KASSA_PROVISION_DEMO is on by default on SQLite only; set, it decides", () => {
    assert.isTrue(Config.fromEnv({}).provisionDemo)
    assert.isTrue(Config.fromEnv({ DATABASE_URL: "sqlite:/tmp/k.db" }).provisionDemo)
    assert.isFalse(Config.fromEnv({ DATABASE_URL: "postgres://db/kassa" }).provisionDemo)
    assert.isTrue(Config.fromEnv({ DATABASE_URL: "postgres://db/kassa", KASSA_PROVISION_DEMO: "true" }).provisionDemo)
    assert.isFalse(Config.fromEnv({ KASSA_PROVISION_DEMO: "no" }).provisionDemo)
  })
})

describe("Config: every setting checked before the start", () => {
  it("each bad setting is named in one line, secrets never repeated", () => {
    const message = failure({
      PORT: "0",
      HOST: "local host",
      KASSA_DB_WAIT_SECONDS: "soon",
      KASSA_PUBLIC_URL: "kassa.example",
      KASSA_VAULT_KEY: "not-a-key-xyz",
      KASSA_SIGNING_KEY: "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----",
      KASSA_TRACING: "sometimes"
    })
    assert.notInclude(message, "\n")
    for (const name of ["PORT", "HOST", "KASSA_DB_WAIT_SECONDS", "KASSA_PUBLIC_URL", "KASSA_VAULT_KEY", "KASSA_SIGNING_KEY", "KASSA_TRACING"]) {
      assert.match(message, new RegExp(`(^|; )${name}: `))
    }
    assert.notInclude(message, "not-a-key-xyz")
    assert.notInclude(message, "bm90IGEga2V5")
  })

  it("good keys, flags and addresses pass", () => {
    const config = Config.fromEnv({
      PORT: "9000",
      HOST: "::1",
      KASSA_VAULT_KEY: "ab".repeat(32),
      KASSA_SIGNING_KEY: TokenKeys.generatePem(),
      KASSA_PUBLIC_URL: "https://pay.example/",
      KASSA_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "YES",
      KASSA_DB_WAIT_SECONDS: "5"
    })
    assert.deepStrictEqual(
      [config.port, config.host, config.settings?.publicUrl, config.webhooks?.allowPrivateNetworks, config.databaseWaitSeconds],
      [9000, "::1", "https://pay.example", true, 5]
    )
  })

  it("KASSA_DATA_DIR that is not a directory is refused, naming the variable and the path", () =>
    Effect.gen(function*() {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "kassa-config-")), "plain-file")
      fs.writeFileSync(file, "")
      const error = yield* Effect.flip(Preflight.dataDir(file))
      assert.strictEqual(error.message, `KASSA_DATA_DIR: cannot use ${file}: it is not a directory`)
      fs.rmSync(path.dirname(file), { recursive: true })
    }).pipe(Effect.runSync))

  it("KASSA_LOG_FORMAT is json or pretty, KASSA_LOG_LEVEL trace to fatal or none", () => {
    const read = (env: Record<string, string>) => Effect.runSync(Effect.either(Effect.withConfigProvider(Logging.config, Config.provider(env))))
    assert.deepStrictEqual(read({}), Either.right(Logging.defaults))
    assert.deepStrictEqual(read({ KASSA_LOG_FORMAT: "pretty", KASSA_LOG_LEVEL: "none" }), Either.right({ format: "pretty", level: LogLevel.None }))
    assert.deepStrictEqual(read({ KASSA_LOG_LEVEL: "warning" }), Either.right({ format: "json", level: LogLevel.Warning }))
    for (const env of [{ KASSA_LOG_FORMAT: "logfmt" }, { KASSA_LOG_LEVEL: "loud" }]) {
      const result = read(env)
      assert.isTrue(Either.isLeft(result) && Config.render(result.left).startsWith(`${Object.keys(env)[0]}: `))
    }
  })
})
