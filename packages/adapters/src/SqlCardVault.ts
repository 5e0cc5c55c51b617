/**
 * `CardVault` on `SqlClient`: card data and session secrets encrypted at rest.
 *
 * Records are sealed with AES-256-GCM under a data key, binding the record's id as additional
 * data so a ciphertext cannot be moved to another row. Data keys live in `vault_keys`, each
 * sealed by a key derived from the master key; the newest encrypts, every one decrypts, so a
 * rotation is a new row. The master key comes from `KASSA_VAULT_KEY` (32 bytes, base64 or hex)
 * or from `<dataDir>/vault/master.key`, generated on first start.
 *
 * A card is found by its fingerprint, an HMAC of the number under a key derived from the master
 * key: the same number gets the same token whatever data key sealed it. Neither numbers nor CVVs
 * ever reach SQL, logs or errors in the clear.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Card from "@kassa/core/payment/Card"
import { type CardData, CardVault, type SessionSecret, type StoredCard } from "@kassa/core/ports/CardVault"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { countOperations, vaultOperations } from "./Counters.js"
import { make as randomId } from "./RandomIds.js"
import { IntColumn, reader } from "./internal/rows.js"
import { rows } from "./sql/driver/reads.js"
import { change, changing, inserting, readApart, touchingOnly, writeAll } from "./sql/driver/writes.js"

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const TOKEN_LENGTH = 24

// ---------------------------------------------------------------------------------------------
// The master key
// ---------------------------------------------------------------------------------------------

/**
 * Reads a master key: 64 hex digits, or base64 (or base64url) of exactly 32 bytes. The error
 * names `source`, never the value.
 *
 * @since 0.1.0
 */
export const parseMasterKey = (text: string, source = "KASSA_VAULT_KEY"): Buffer => {
  const t = text.trim()
  const bytes = /^[0-9a-fA-F]{64}$/.test(t)
    ? Buffer.from(t, "hex")
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(t)
    ? Buffer.from(t, "base64")
    : undefined
  if (bytes === undefined || bytes.length !== KEY_BYTES) {
    throw new Error(`${source} must hold a 32-byte vault master key, base64 or hex encoded`)
  }
  return bytes
}

/**
 * The master key from `masterKey` (the value of `KASSA_VAULT_KEY`) when given, else from
 * `<dataDir>/vault/master.key`, generated (mode 0600) when missing.
 *
 * @since 0.1.0
 */
export const loadMasterKey = (options: { readonly dataDir: string; readonly masterKey?: string | undefined }): Buffer => {
  if (options.masterKey !== undefined && options.masterKey.trim() !== "") return parseMasterKey(options.masterKey)
  const dir = path.join(options.dataDir, "vault")
  const file = path.join(dir, "master.key")
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (!fs.existsSync(file)) {
    // Written aside, then hard-linked into place: the link fails when another process got there
    // first, and nobody ever reads a half-written key.
    const tmp = path.join(dir, `.master.key.${process.pid}.${randomId(8)}`)
    fs.writeFileSync(tmp, `${randomBytes(KEY_BYTES).toString("base64")}\n`, { mode: 0o600, flag: "wx" })
    try {
      fs.linkSync(tmp, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    } finally {
      fs.rmSync(tmp, { force: true })
    }
  }
  return parseMasterKey(fs.readFileSync(file, "utf8"), file)
}

// ---------------------------------------------------------------------------------------------
// Sealing
// ---------------------------------------------------------------------------------------------

const derive = (masterKey: Buffer, info: string): Buffer =>
  Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), info, KEY_BYTES))

/** Additional data: what a ciphertext is, and which record it belongs to. */
const aad = {
  key: (id: number) => `kassa-vault/key/${id}`,
  card: (token: string) => `kassa-vault/card/${token}`,
  session: (id: string) => `kassa-vault/session/${id}`
}

/** base64 of `iv(12) | tag(16) | ciphertext`. */
const seal = (key: Buffer, additional: string, plaintext: Buffer): string => {
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES })
  cipher.setAAD(Buffer.from(additional, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64")
}

/** Throws (a defect once in an effect) when the key is wrong or the record was altered. */
const open = (key: Buffer, additional: string, sealed: string, what: string): Buffer => {
  try {
    const bytes = Buffer.from(sealed, "base64")
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("short")
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
    decipher.setAAD(Buffer.from(additional, "utf8"))
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
  } catch {
    throw new Error(`vault: cannot decrypt ${what} (wrong master key or altered record)`)
  }
}

// ---------------------------------------------------------------------------------------------
// Plaintexts
// ---------------------------------------------------------------------------------------------

const encodeCard = (card: CardData): Buffer =>
  Buffer.from(JSON.stringify({
    cardNumber: card.cardNumber,
    expMonth: card.expMonth,
    expYear: card.expYear,
    ...(card.cardHolder === undefined ? {} : { cardHolder: card.cardHolder })
  }))

const decodeCard = (plaintext: Buffer): CardData => {
  const u = JSON.parse(plaintext.toString("utf8"))
  return {
    cardNumber: String(u.cardNumber),
    expMonth: Number(u.expMonth),
    expYear: Number(u.expYear),
    ...(typeof u.cardHolder === "string" ? { cardHolder: u.cardHolder } : {})
  }
}

const sameCard = (a: CardData, b: CardData): boolean =>
  a.cardNumber === b.cardNumber && a.expMonth === b.expMonth && a.expYear === b.expYear && a.cardHolder === b.cardHolder

const encodeSecret = (secret: SessionSecret): Buffer =>
  Buffer.from(JSON.stringify(secret.cvv === undefined ? {} : { cvv: secret.cvv }))

const decodeSecret = (plaintext: Buffer): SessionSecret => {
  const u = JSON.parse(plaintext.toString("utf8"))
  return typeof u.cvv === "string" ? { cvv: u.cvv } : {}
}

const storedCard = (token: string, cardNumber: string): StoredCard => {
  const { bin, last4 } = Card.mask(cardNumber)
  return { token, bin, last4 }
}

/** A `vault_keys` row: a data key wrapped under the master key. */
const KeyRow = Schema.Struct({ id: IntColumn, wrapped: Schema.String })
type KeyRow = typeof KeyRow.Type

/** A data key, unwrapped. */
interface DataKey {
  readonly id: number
  readonly key: Buffer
}

/** What a sealed record is read with: its data key's id, and the sealed data. */
const sealed = { keyId: IntColumn, data: Schema.String }
type SealedRow = Schema.Struct.Type<typeof sealed>

const CardRow = Schema.Struct({ token: Schema.String, ...sealed })
type CardRow = typeof CardRow.Type

const SessionRow = Schema.Struct({ id: Schema.String, ...sealed })

const keyRows = reader(KeyRow, (r) => r)
const cardRows = reader(CardRow, (r) => r)
const sessionRows = reader(SessionRow, (r) => r)

/** The newest data key, with the card of a fingerprint if stored. */
const keyAndCardRows = reader(
  Schema.Struct({ ...KeyRow.fields, token: Schema.NullOr(Schema.String), keyId: Schema.NullOr(IntColumn), data: Schema.NullOr(Schema.String) }),
  ({ data, id, keyId, token, wrapped }): { readonly key: KeyRow; readonly card: CardRow | undefined } => ({
    key: { id, wrapped },
    card: token === null || keyId === null || data === null ? undefined : { token, keyId, data }
  })
)

/** A card, with a session if one was asked for and is live. */
const cardAndSessionRows = reader(
  Schema.Struct({ ...CardRow.fields, sessionKeyId: Schema.NullOr(IntColumn), sessionData: Schema.NullOr(Schema.String) }),
  ({ sessionData, sessionKeyId, ...card }): { readonly card: CardRow; readonly session: SealedRow | undefined } => ({
    card,
    session: sessionKeyId === null || sessionData === null ? undefined : { keyId: sessionKeyId, data: sessionData }
  })
)

const lastKeyIds = reader(Schema.Struct({ id: Schema.NullOr(IntColumn) }), (r) => r.id)

// ---------------------------------------------------------------------------------------------
// The vault
// ---------------------------------------------------------------------------------------------

/** The port, plus maintenance. @since 0.1.0 @category models */
export type Vault = CardVault["Type"] & {
  /**
   * Re-seals every card and session held under an older data key with the current one; answers
   * how many records moved. Afterwards, older keys are no longer needed by any record.
   */
  readonly recrypt: Effect.Effect<number>
}

/**
 * The vault over a 32-byte master key. Nothing is read until first use; the first data key is
 * created then.
 *
 * @since 0.1.0 @category constructors
 */
export const make = (masterKey: Buffer): Effect.Effect<Vault, never, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (masterKey.length !== KEY_BYTES) return yield* Effect.dieMessage("the vault master key must be 32 bytes")
    const sql = yield* SqlClient.SqlClient
    const wrapKey = derive(masterKey, "kassa-vault-wrap")
    const fingerprintKey = derive(masterKey, "kassa-vault-fingerprint")
    const fingerprint = (cardNumber: string) => createHmac("sha256", fingerprintKey).update(cardNumber).digest("hex")

    // Unwrapped data keys by id: a key row never changes once written.
    const dataKeys = new Map<number, Buffer>()
    const unwrap = (row: KeyRow): Effect.Effect<DataKey> =>
      Effect.sync(() => {
        const id = row.id
        let key = dataKeys.get(id)
        if (key === undefined) {
          key = open(wrapKey, aad.key(id), row.wrapped, `data key ${id}`)
          dataKeys.set(id, key)
        }
        return { id, key }
      })

    const keyById = (id: number) => {
      const cached = dataKeys.get(id)
      if (cached !== undefined) return Effect.succeed(cached)
      return sql`SELECT id, wrapped FROM vault_keys WHERE id = ${id}`.pipe(
        Effect.map(keyRows.all),
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.dieMessage(`vault: data key ${id} is missing`) : unwrap(rows[0])
        ),
        Effect.map((k) => k.key)
      )
    }

    /** Answers whether this call created the key (false: a concurrent call took the id). */
    const insertKey = (id: number) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const wrapped = seal(wrapKey, aad.key(id), randomBytes(KEY_BYTES))
        const rows = yield* sql`INSERT INTO vault_keys ${sql.insert({ id, wrapped, createdAt: now })}
          ON CONFLICT (id) DO NOTHING RETURNING id`
        return rows.length > 0
      })

    /** The newest data key, created on first use. */
    const currentKey: Effect.Effect<DataKey, SqlError> = Effect.gen(function*() {
      const rows = keyRows.all(yield* sql`SELECT id, wrapped FROM vault_keys ORDER BY id DESC LIMIT 1`)
      if (rows[0] !== undefined) return yield* unwrap(rows[0])
      yield* insertKey(1)
      return yield* currentKey
    })

    const rotateKey: Effect.Effect<void, SqlError> = Effect.gen(function*() {
      const [last] = lastKeyIds.all(yield* sql`SELECT MAX(id) AS id FROM vault_keys`)
      const created = yield* insertKey((last ?? 0) + 1)
      if (!created) yield* rotateKey
    })

    const openRow = (row: SealedRow, additional: string, what: string) =>
      Effect.flatMap(keyById(row.keyId), (key) => Effect.sync(() => open(key, additional, row.data, what)))

    const openCard = (row: CardRow) => Effect.map(openRow(row, aad.card(row.token), "card"), decodeCard)

    const openSession = (id: string, row: SealedRow) => Effect.map(openRow(row, aad.session(id), "session"), decodeSecret)

    const findCard = (fp: string) =>
      sql`SELECT token, key_id, data FROM vault_cards WHERE fingerprint = ${fp}`.pipe(
        Effect.map((rows): CardRow | undefined => cardRows.all(rows)[0])
      )

    /**
     * The card of fingerprint `fp`, if stored, and the newest data key, in one read (the key is
     * created when there is none yet).
     */
    const findCardWithKey = (fp: string) =>
      Effect.gen(function*() {
        // apart from a caller's transaction that has not opened yet: one that then only writes
        // (a payment resource's) never opens
        const [first] = keyAndCardRows.all(
          yield* readApart(touchingOnly("vault_keys", "vault_cards")(sql`SELECT k.id, k.wrapped, c.token, c.key_id, c.data
            FROM (SELECT id, wrapped FROM vault_keys ORDER BY id DESC LIMIT 1) k
            LEFT JOIN vault_cards c ON c.fingerprint = ${fp}`))
        )
        if (first === undefined) return { row: yield* findCard(fp), key: yield* currentKey }
        return { row: first.card, key: yield* unwrap(first.key) }
      })

    /**
     * Stores `card` under the newest data key, unless stored as it is; answers it and that key (for
     * a session stored with it).
     */
    const storeCard = (card: CardData) =>
      Effect.gen(function*() {
        const fp = fingerprint(card.cardNumber)
        const found = yield* findCardWithKey(fp)
        const key = found.key
        let row = found.row
        let inserted: string | undefined
        if (row === undefined) {
          const token = randomId(TOKEN_LENGTH)
          const now = yield* Clock.currentTimeMillis
          const data = seal(key.key, aad.card(token), encodeCard(card))
          yield* sql`INSERT INTO vault_cards ${sql.insert({ token, fingerprint: fp, keyId: key.id, data, createdAt: now })}
            ON CONFLICT (fingerprint) DO NOTHING`
          inserted = token
          // Ours, or the row of a concurrent put of the same number that got there first.
          row = yield* findCard(fp)
          if (row === undefined) return yield* Effect.dieMessage("vault: a stored card vanished")
        }
        if (row.token !== inserted && !sameCard(yield* openCard(row), card)) {
          // The same number with a new expiry or holder (a reissued card): the latest wins.
          const data = seal(key.key, aad.card(row.token), encodeCard(card))
          yield* sql`UPDATE vault_cards SET key_id = ${key.id}, data = ${data} WHERE token = ${row.token}`
        }
        return { stored: storedCard(row.token, card.cardNumber), key }
      })

    const putCard = (card: CardData) => storeCard(card).pipe(Effect.map(({ stored }) => stored), Effect.orDie)

    const getCard = (token: string) =>
      sql`SELECT token, key_id, data FROM vault_cards WHERE token = ${token}`.pipe(
        Effect.map(cardRows.first),
        Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: (row) => Effect.map(openCard(row), Option.some) })),
        Effect.orDie
      )

    /** Seals `secret` under `key` as a new session; the expired ones go as it comes. */
    const storeSession = (secret: SessionSecret, expiresAt: Date, key: DataKey) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const id = randomId(TOKEN_LENGTH)
        const data = seal(key.key, aad.session(id), encodeSecret(secret))
        yield* writeAll(sql, [
          changing("vault_sessions", sql`DELETE FROM vault_sessions WHERE expires_at <= ${now}`),
          inserting("vault_sessions", sql`INSERT INTO vault_sessions ${sql.insert({ id, keyId: key.id, data, expiresAt: expiresAt.getTime() })}`)
        ])
        return id
      })

    const putSession = (secret: SessionSecret, expiresAt: Date) =>
      Effect.flatMap(currentKey, (key) => storeSession(secret, expiresAt, key)).pipe(Effect.orDie)

    const putCardAndSession = (card: CardData, secret: SessionSecret, expiresAt: Date) =>
      Effect.gen(function*() {
        const { key, stored } = yield* storeCard(card)
        return { card: stored, session: yield* storeSession(secret, expiresAt, key) }
      }).pipe(Effect.orDie)

    const getSession = (id: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const rows = sessionRows.all(
          yield* sql`SELECT id, key_id, data FROM vault_sessions WHERE id = ${id} AND expires_at > ${now}`
        )
        if (rows[0] === undefined) return Option.none<SessionSecret>()
        return Option.some(yield* openSession(id, rows[0]))
      }).pipe(Effect.orDie)

    const getCardAndSession = (token: string, session: string | undefined) =>
      Effect.gen(function*() {
        if (session === undefined) return Option.map(yield* getCard(token), (card) => ({ card, secret: Option.none() }))
        const now = yield* Clock.currentTimeMillis
        const [row] = cardAndSessionRows.all(
          yield* rows(sql`SELECT c.token, c.key_id, c.data, s.key_id AS session_key_id, s.data AS session_data
            FROM vault_cards c LEFT JOIN vault_sessions s ON s.id = ${session} AND s.expires_at > ${now}
            WHERE c.token = ${token}`)
        )
        if (row === undefined) return Option.none()
        const card = yield* openCard(row.card)
        const secret = row.session === undefined
          ? Option.none<SessionSecret>()
          : Option.some(yield* openSession(session, row.session))
        return Option.some({ card, secret })
      }).pipe(Effect.orDie)

    const deleteSession = (id: string) => change(sql, "vault_sessions", sql`DELETE FROM vault_sessions WHERE id = ${id}`)

    const BATCH = 200

    const recrypt = Effect.gen(function*() {
      const { id: current, key } = yield* currentKey
      const now = yield* Clock.currentTimeMillis
      yield* sql`DELETE FROM vault_sessions WHERE expires_at <= ${now}`
      let moved = 0
      while (true) {
        const rows = cardRows.all(
          yield* sql`SELECT token, key_id, data FROM vault_cards WHERE key_id < ${current} ORDER BY token LIMIT ${BATCH}`
        )
        if (rows.length === 0) break
        for (const row of rows) {
          const plaintext = yield* openRow(row, aad.card(row.token), "card")
          const data = seal(key, aad.card(row.token), plaintext)
          // Guarded by the old key id: a concurrent put may have re-sealed the row meanwhile.
          const done = yield* sql`UPDATE vault_cards SET key_id = ${current}, data = ${data}
            WHERE token = ${row.token} AND key_id = ${row.keyId} RETURNING token`
          moved += done.length
        }
      }
      while (true) {
        const rows = sessionRows.all(
          yield* sql`SELECT id, key_id, data FROM vault_sessions WHERE key_id < ${current} ORDER BY id LIMIT ${BATCH}`
        )
        if (rows.length === 0) break
        for (const row of rows) {
          const plaintext = yield* openRow(row, aad.session(row.id), "session")
          const data = seal(key, aad.session(row.id), plaintext)
          const done = yield* sql`UPDATE vault_sessions SET key_id = ${current}, data = ${data}
            WHERE id = ${row.id} AND key_id = ${row.keyId} RETURNING id`
          moved += done.length
        }
      }
      return moved
    }).pipe(Effect.orDie)

    return {
      putCard,
      getCard,
      putSession,
      putCardAndSession,
      getSession,
      getCardAndSession,
      deleteSession,
      rotateKey: Effect.orDie(rotateKey),
      recrypt
    } satisfies Vault
  })

/** The vault over a given master key (tests, embedding). @since 0.1.0 @category layers */
export const layerWithKey = (masterKey: Buffer): Layer.Layer<CardVault, never, SqlClient.SqlClient> =>
  Layer.effect(CardVault, Effect.map(make(masterKey), (vault) => countOperations(vaultOperations, vault)))

/**
 * The vault over the master key of `KASSA_VAULT_KEY` (pass its value as `masterKey`) or of the
 * data dir. A malformed key fails the layer with a clear message.
 *
 * @since 0.1.0 @category layers
 */
export const layer = (options: {
  readonly dataDir: string
  readonly masterKey?: string | undefined
}): Layer.Layer<CardVault, never, SqlClient.SqlClient> =>
  Layer.unwrapEffect(Effect.sync(() => layerWithKey(loadMasterKey(options))))
