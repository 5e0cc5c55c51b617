import { assert, describe, it, layer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Database from "@kassa/adapters/Database"
import * as SqlCardVault from "@kassa/adapters/SqlCardVault"
import { Statements } from "@kassa/adapters"
import * as Card from "@kassa/core/payment/Card"
import { type CardData, CardVault } from "@kassa/core/ports/CardVault"
import * as Dialects from "@kassa/testing/Dialects"
import * as TestDatabase from "@kassa/testing/TestDatabase"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as RuntimeFlagsPatch from "effect/RuntimeFlagsPatch"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { randomBytes, randomInt } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import migration from "../src/internal/migrations/0005_card_vault.js"
import * as Driver from "../src/sql/driver/Driver.js"
import { Steps } from "./support/Supervisors.js"

const masterKey = randomBytes(32)

/** The vault's tables on a database (the migration is not in the global migrator yet). */
const migrated = (database: Database.DatabaseConfig) =>
  Layer.effectDiscard(Effect.orDie(migration)).pipe(Layer.provideMerge(Database.layer(database)))

const testLayer = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(
    Effect.map(TestDatabase.acquire(dialect), ({ database }) =>
      Layer.mergeAll(SqlCardVault.layerWithKey(masterKey), Statements.layer, Driver.layer).pipe(
        Layer.provideMerge(migrated(database))
      ))
  )

/** A fresh Luhn-valid Visa number. */
const visa = () => {
  let payload = "4"
  for (let i = 0; i < 14; i++) payload += randomInt(10)
  return payload + Card.checkDigit(payload)
}

const card = (cardNumber = visa(), overrides: Partial<CardData> = {}): CardData => ({
  cardNumber,
  expMonth: 12,
  expYear: 2030,
  cardHolder: "JOHN DOE",
  ...overrides
})

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM ${sql(table)}`.pipe(Effect.map((rows) => Number(rows[0]!.n)))).pipe(
      Effect.orDie
    )

const cardRow = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<any>`SELECT * FROM vault_cards WHERE token = ${token}`).pipe(
    Effect.map((rows) => rows[0]),
    Effect.orDie
  )

const keyIdOf = (token: string) => Effect.map(cardRow(token), (row) => Number(row.keyId))

const newestKeyId = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: unknown }>`SELECT MAX(id) AS id FROM vault_keys`)
  .pipe(Effect.map((rows) => Number(rows[0]!.id)), Effect.orDie)

/** Asserts the effect dies, and that the defect does not repeat `secret`. */
const dies = <A, E, R>(effect: Effect.Effect<A, E, R>, secret?: string) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) return assert.fail(`expected a defect, got ${String(exit.value)}`)
    assert.isTrue(Cause.isDie(exit.cause))
    const pretty = Cause.pretty(exit.cause)
    if (secret !== undefined) assert.notInclude(pretty, secret)
    return pretty
  })

for (const dialect of Dialects.dialects()) {
  layer(testLayer(dialect), { timeout: "60 seconds" })(`CardVault [${dialect}]`, (it) => {
    // First, so that it also races the lazy creation of the first data key.
    it.effect("20 concurrent puts of one number converge on one token and one key", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const c = card()
        const stored = yield* Effect.all(Array.from({ length: 20 }, () => vault.putCard(c)), { concurrency: "unbounded" })
        assert.strictEqual(new Set(stored.map((s) => s.token)).size, 1)
        assert.strictEqual(yield* count("vault_cards"), 1)
        assert.strictEqual(yield* count("vault_keys"), 1)
        assert.deepStrictEqual(yield* vault.getCard(stored[0]!.token), Option.some(c))
      }))

    it.effect("round-trips a card and answers its token, BIN and last four", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const c = card()
        const stored = yield* vault.putCard(c)
        assert.match(stored.token, /^[0-9A-Za-z]{24}$/)
        assert.strictEqual(stored.bin, c.cardNumber.slice(0, 6))
        assert.strictEqual(stored.last4, c.cardNumber.slice(-4))
        assert.deepStrictEqual(yield* vault.getCard(stored.token), Option.some(c))

        const noHolder = card(visa(), { cardHolder: undefined })
        const { cardHolder: _, ...expected } = noHolder
        assert.deepStrictEqual(yield* vault.getCard((yield* vault.putCard(noHolder)).token), Option.some(expected))
        assert.deepStrictEqual(yield* vault.getCard("nope"), Option.none())
      }))

    it.effect("the stored row holds neither the number nor the holder in the clear", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const c = card(visa(), { cardHolder: "UNIQUEHOLDERNAME" })
        const { token } = yield* vault.putCard(c)
        const row = yield* cardRow(token)
        const text = JSON.stringify(row)
        assert.notInclude(text, c.cardNumber)
        assert.notInclude(text, c.cardNumber.slice(6, 12))
        assert.notInclude(text, "UNIQUEHOLDERNAME")
        const sealed = Buffer.from(row.data, "base64")
        assert.isAtLeast(sealed.length, 12 + 16 + 1)
        assert.isFalse(sealed.includes(c.cardNumber))
        assert.notStrictEqual(row.fingerprint, c.cardNumber)
      }))

    it.effect("the same number gets the same token, different numbers different tokens", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const number = visa()
        const a = yield* vault.putCard(card(number))
        const b = yield* vault.putCard(card(number))
        const other = yield* vault.putCard(card())
        assert.strictEqual(a.token, b.token)
        assert.notStrictEqual(a.token, other.token)
      }))

    it.effect("a reissued card (same number, new expiry) keeps its token and the latest data", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const number = visa()
        const a = yield* vault.putCard(card(number, { expYear: 2027 }))
        const b = yield* vault.putCard(card(number, { expYear: 2031, cardHolder: "JANE DOE" }))
        assert.strictEqual(a.token, b.token)
        assert.deepStrictEqual(yield* vault.getCard(a.token), Option.some(card(number, { expYear: 2031, cardHolder: "JANE DOE" })))
      }))

    it.effect("sessions round-trip, expire with the clock and are erased", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const id = yield* vault.putSession({ cvv: "123" }, new Date(60_000))
        assert.match(id, /^[0-9A-Za-z]{24}$/)
        assert.deepStrictEqual(yield* vault.getSession(id), Option.some({ cvv: "123" }))
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<any>`SELECT * FROM vault_sessions WHERE id = ${id}`
        assert.isFalse(Buffer.from(row.data, "base64").includes("\"cvv\""))

        const empty = yield* vault.putSession({}, new Date(60_000))
        assert.deepStrictEqual(yield* vault.getSession(empty), Option.some({}))

        yield* TestClock.adjust("59 seconds")
        assert.isTrue(Option.isSome(yield* vault.getSession(id)))
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(yield* vault.getSession(id), Option.none())

        // Expired rows are purged by the next put.
        const fresh = yield* vault.putSession({ cvv: "456" }, new Date(120_000))
        const left = yield* sql<any>`SELECT id FROM vault_sessions WHERE id IN (${id}, ${empty})`
        assert.strictEqual(left.length, 0)

        yield* vault.deleteSession(fresh)
        assert.deepStrictEqual(yield* vault.getSession(fresh), Option.none())
        yield* vault.deleteSession(fresh)
        assert.deepStrictEqual(yield* vault.getSession("nope"), Option.none())
      }))

    it.effect("getCardAndSession: the card with its live session's secret, in one read", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const number = visa()
        const stored = yield* vault.putCard(card(number))
        const start = yield* Clock.currentTimeMillis
        const session = yield* vault.putSession({ cvv: "123" }, new Date(start + 60_000))
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(stored.token, session),
          Option.some({ card: card(number), secret: Option.some({ cvv: "123" }) })
        )
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(stored.token, undefined),
          Option.some({ card: card(number), secret: Option.none() })
        )
        assert.deepStrictEqual(yield* vault.getCardAndSession("nope", session), Option.none())
        // a session of another key decrypts too; an expired or erased one is no secret
        yield* vault.rotateKey
        assert.deepStrictEqual(
          Option.map(yield* vault.getCardAndSession(stored.token, session), (x) => x.secret),
          Option.some(Option.some({ cvv: "123" }))
        )
        yield* TestClock.adjust("60 seconds")
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(stored.token, session),
          Option.some({ card: card(number), secret: Option.none() })
        )
        const other = yield* vault.putSession({ cvv: "456" }, new Date(start + 120_000))
        yield* vault.deleteSession(other)
        assert.deepStrictEqual(
          Option.map(yield* vault.getCardAndSession(stored.token, other), (x) => x.secret),
          Option.some(Option.none())
        )
      }))

    it.effect("putCardAndSession stores the card and the session in one read: a statement fewer than putCard and putSession", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const counts = yield* Statements.StatementCounts
        const sent = () => [...counts.snapshot().values()].reduce((a, b) => a + b, 0)
        const c = card()
        const first = yield* vault.putCardAndSession(c, { cvv: "123" }, new Date(3_600_000))
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(first.card.token, first.session),
          Option.some({ card: c, secret: Option.some({ cvv: "123" }) })
        )
        const before = sent()
        const again = yield* vault.putCardAndSession(c, { cvv: "456" }, new Date(3_600_000))
        const together = sent() - before
        assert.strictEqual(again.card.token, first.card.token)
        const between = sent()
        assert.strictEqual((yield* vault.putCard(c)).token, first.card.token)
        yield* vault.putSession({ cvv: "789" }, new Date(3_600_000))
        assert.strictEqual(together, sent() - between - 1)
        assert.deepStrictEqual(yield* vault.getSession(again.session), Option.some({ cvv: "456" }))
        // under the newest key, and a reissued card (another expiry) is sealed again
        yield* vault.rotateKey
        const reissued = card(c.cardNumber, { expYear: 2031 })
        const third = yield* vault.putCardAndSession(reissued, { cvv: "000" }, new Date(3_600_000))
        assert.strictEqual(third.card.token, first.card.token)
        assert.strictEqual(yield* keyIdOf(third.card.token), yield* newestKeyId)
        const sql = yield* SqlClient.SqlClient
        const sessionKey = yield* sql<{ keyId: unknown }>`SELECT key_id FROM vault_sessions WHERE id = ${third.session}`.pipe(Effect.orDie)
        assert.strictEqual(Number(sessionKey[0]!.keyId), yield* newestKeyId)
        assert.deepStrictEqual(
          yield* vault.getCardAndSession(third.card.token, third.session),
          Option.some({ card: reissued, secret: Option.some({ cvv: "000" }) })
        )
      }))

    it.effect("a stored card with a new session, in a transaction: its read goes apart, so the transaction (only writes then) never opens", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const { transaction } = yield* Driver.SqlDriver
        const sql = yield* SqlClient.SqlClient
        const c = card()
        const first = yield* vault.putCardAndSession(c, { cvv: "123" }, new Date(3_600_000))
        // what the database shows from outside the transaction: its connections left open in one
        const openTransactions = Effect.mapInputContext(
          sql<{ n: number }>`SELECT COUNT(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
          (context: Context.Context<never>) => Context.omit(SqlClient.TransactionConnection)(context)
        ).pipe(
          Effect.locally(Statement.currentTransformer, Option.none()),
          Effect.map((rows) => rows[0]!.n),
          Effect.orDie
        )
        // a stored card's put, then a new card's, which reads its own insert back in the transaction (it opens for that)
        for (const [put, cvv, opens] of [[c, "456", 0], [card(), "789", 1]] as const) {
          const [stored, open] = yield* transaction(Effect.gen(function*() {
            const stored = yield* vault.putCardAndSession(put, { cvv }, new Date(3_600_000))
            return [stored, dialect === "pg" ? yield* openTransactions : opens] as const
          }))
          assert.strictEqual(open, opens)
          if (put === c) assert.strictEqual(stored.card.token, first.card.token)
          assert.deepStrictEqual(
            yield* vault.getCardAndSession(stored.card.token, stored.session),
            Option.some({ card: put, secret: Option.some({ cvv }) })
          )
        }
      }))

    it.effect("getCardAndSession reads as the driver runs a read: no span, no scope of its own (few steps)", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const c = card()
        const stored = yield* vault.putCardAndSession(c, { cvv: "123" }, new Date(3_600_000))
        // as the server reads: no statement counting, no tracing
        const read = Effect.locally(vault.getCardAndSession(stored.card.token, stored.session), Statement.currentTransformer, Option.none())
        yield* read
        const steps = new Steps()
        const got = yield* Effect.supervised(Effect.withRuntimeFlagsPatch(read, RuntimeFlagsPatch.enable(RuntimeFlags.OpSupervision)), steps)
        assert.deepStrictEqual(got, Option.some({ card: c, secret: Option.some({ cvv: "123" }) }))
        // 75 on PostgreSQL, 94 on SQLite (123 and 142 through the statement's own span and scope)
        assert.isAtMost(yield* steps.value, dialect === "pg" ? 80 : 100)
      }).pipe(Effect.withTracerEnabled(false)))

    it.effect("after rotateKey, cards from before and after decrypt; new ones use the new key", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const before = card()
        const a = yield* vault.putCard(before)
        const session = yield* vault.putSession({ cvv: "321" }, new Date(3_600_000))
        const oldKey = yield* keyIdOf(a.token)

        yield* vault.rotateKey
        const newKey = yield* newestKeyId
        assert.isAbove(newKey, oldKey)
        const after = card()
        const b = yield* vault.putCard(after)
        assert.strictEqual(yield* keyIdOf(b.token), newKey)
        assert.strictEqual(yield* keyIdOf(a.token), oldKey)

        assert.deepStrictEqual(yield* vault.getCard(a.token), Option.some(before))
        assert.deepStrictEqual(yield* vault.getCard(b.token), Option.some(after))
        assert.deepStrictEqual(yield* vault.getSession(session), Option.some({ cvv: "321" }))
        // The fingerprint does not depend on the data key.
        assert.strictEqual((yield* vault.putCard(before)).token, a.token)
        assert.strictEqual(yield* keyIdOf(a.token), oldKey)
      }))

    it.effect("recrypt moves every record to the current key and keeps it readable", () =>
      Effect.gen(function*() {
        const vault = yield* SqlCardVault.make(masterKey)
        const c = card()
        const { token } = yield* vault.putCard(c)
        const session = yield* vault.putSession({ cvv: "999" }, new Date(3_600_000))
        const dataBefore = (yield* cardRow(token)).data
        yield* vault.rotateKey
        yield* vault.rotateKey
        const current = yield* newestKeyId

        assert.isAtLeast(yield* vault.recrypt, 2)
        const sql = yield* SqlClient.SqlClient
        const stale = yield* sql<any>`SELECT token FROM vault_cards WHERE key_id <> ${current}`
        assert.strictEqual(stale.length, 0)
        assert.notStrictEqual((yield* cardRow(token)).data, dataBefore)
        assert.deepStrictEqual(yield* vault.getCard(token), Option.some(c))
        assert.deepStrictEqual(yield* vault.getSession(session), Option.some({ cvv: "999" }))
        assert.strictEqual(yield* vault.recrypt, 0)
      }))

    it.effect("a vault with another master key cannot read: it dies, without the secrets in the defect", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const c = card()
        const { token } = yield* vault.putCard(c)
        const session = yield* vault.putSession({ cvv: "777" }, new Date(3_600_000))
        const cards = yield* count("vault_cards")

        const intruder = yield* SqlCardVault.make(randomBytes(32))
        yield* dies(intruder.getCard(token), c.cardNumber)
        yield* dies(intruder.getSession(session), "777")
        yield* dies(intruder.putCard(c), c.cardNumber)
        assert.strictEqual(yield* count("vault_cards"), cards)
        // Unknown records are still simply unknown.
        assert.deepStrictEqual(yield* intruder.getCard("nope"), Option.none())
      }))

    it.effect("a moved ciphertext does not decrypt under another record's id", () =>
      Effect.gen(function*() {
        const vault = yield* CardVault
        const a = yield* vault.putCard(card())
        const b = yield* vault.putCard(card())
        const sql = yield* SqlClient.SqlClient
        const rowA = yield* cardRow(a.token)
        yield* sql`UPDATE vault_cards SET data = ${rowA.data}, key_id = ${rowA.keyId} WHERE token = ${b.token}`
        yield* dies(vault.getCard(b.token))
        assert.isTrue(Option.isSome(yield* vault.getCard(a.token)))
      }))

    it.effect("layer keeps its master key in the data dir and reads it back", () =>
      Effect.gen(function*() {
        const { dataDir, database } = yield* TestDatabase.acquire(dialect)
        const db = yield* Layer.build(migrated(database))
        const build = (options: Parameters<typeof SqlCardVault.layer>[0]) =>
          Layer.build(SqlCardVault.layer(options)).pipe(
            Effect.map((ctx) => Context.get(ctx, CardVault)),
            Effect.provide(db)
          )
        const first = yield* build({ dataDir })
        const c = card()
        const { token } = yield* first.putCard(c)
        const file = path.join(dataDir, "vault", "master.key")
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        assert.lengthOf(Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64"), 32)

        const second = yield* build({ dataDir })
        assert.deepStrictEqual(yield* second.getCard(token), Option.some(c))
        const fromEnv = yield* build({ dataDir: "/nonexistent", masterKey: fs.readFileSync(file, "utf8") })
        assert.deepStrictEqual(yield* fromEnv.getCard(token), Option.some(c))
        const refused = yield* dies(Layer.build(SqlCardVault.layer({ dataDir, masterKey: "too-short" })).pipe(Effect.provide(db)))
        assert.include(refused, "KASSA_VAULT_KEY must hold a 32-byte vault master key")
      }).pipe(Effect.scoped))
  })
}

describe("SqlCardVault master keys", () => {
  const key = randomBytes(32)

  it("parseMasterKey reads hex and base64 of 32 bytes", () => {
    assert.isTrue(SqlCardVault.parseMasterKey(key.toString("hex")).equals(key))
    assert.isTrue(SqlCardVault.parseMasterKey(key.toString("base64")).equals(key))
    assert.isTrue(SqlCardVault.parseMasterKey(key.toString("base64url")).equals(key))
    assert.isTrue(SqlCardVault.parseMasterKey(` ${key.toString("base64")}\n`).equals(key))
  })

  it("parseMasterKey refuses anything else, without echoing the value", () => {
    for (const bad of ["", "secret-password", randomBytes(16).toString("hex"), randomBytes(31).toString("base64"), randomBytes(33).toString("base64"), "zz".repeat(32)]) {
      assert.throws(() => SqlCardVault.parseMasterKey(bad), /KASSA_VAULT_KEY must hold a 32-byte vault master key/)
      try {
        SqlCardVault.parseMasterKey(bad)
      } catch (error) {
        if (bad !== "") assert.notInclude(String(error), bad)
      }
    }
  })

  it("loadMasterKey prefers the given value and generates the data-dir key once", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "kassa-vault-"))
    try {
      assert.isTrue(SqlCardVault.loadMasterKey({ dataDir, masterKey: key.toString("hex") }).equals(key))
      assert.isFalse(fs.existsSync(path.join(dataDir, "vault")))
      const generated = SqlCardVault.loadMasterKey({ dataDir })
      assert.lengthOf(generated, 32)
      assert.isTrue(SqlCardVault.loadMasterKey({ dataDir, masterKey: "" }).equals(generated))
      assert.deepStrictEqual(fs.readdirSync(path.join(dataDir, "vault")), ["master.key"])
      fs.writeFileSync(path.join(dataDir, "vault", "master.key"), "garbage")
      assert.throws(() => SqlCardVault.loadMasterKey({ dataDir }), /master\.key must hold a 32-byte vault master key/)
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
