/**
 * `WebhookKeyRepository` on `SqlClient`: the parties' webhook key pairs in `webhook_keys`, at
 * most one current (`retired_at` NULL) per party, which a unique index enforces.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { WebhookKeyRepository } from "@kassa/core/ports/WebhookKeyRepository"
import type { PartyWebhookKey } from "@kassa/core/webhook/WebhookKey"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, opt } from "./internal/rows.js"
import * as Repository from "./internal/repository.js"

const KeyRow = Schema.Struct({
  id: Schema.String,
  partyId: Schema.String,
  publicKey: Schema.String,
  privateKey: Schema.String,
  createdAt: DateColumn,
  retiredAt: Schema.NullOr(DateColumn)
})

const decodeRow = Schema.decodeUnknownSync(KeyRow)

const fromRow = (row: unknown): PartyWebhookKey => {
  const r = decodeRow(row)
  return {
    id: r.id,
    partyID: r.partyId,
    publicKey: r.publicKey,
    privateKeyRef: r.privateKey,
    createdAt: r.createdAt,
    ...opt("retiredAt", r.retiredAt ?? undefined)
  }
}

const toRow = (k: PartyWebhookKey) => ({
  id: k.id,
  partyId: k.partyID,
  publicKey: k.publicKey,
  privateKey: k.privateKeyRef,
  createdAt: k.createdAt.getTime(),
  retiredAt: null
})

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  WebhookKeyRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const current = (partyID: string) =>
      sql`SELECT * FROM webhook_keys WHERE party_id = ${partyID} AND retired_at IS NULL`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]).pipe(Option.map(fromRow)))
      )
    return {
      current: (partyID) => Effect.orDie(current(partyID)),
      insertIfAbsent: (key) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO webhook_keys ${sql.insert(toRow(key))}
            ON CONFLICT (party_id) WHERE retired_at IS NULL DO NOTHING`
          return Option.getOrElse(yield* current(key.partyID), () => key)
        }).pipe(Effect.orDie),
      rotate: (key) =>
        Effect.gen(function*() {
          // Concurrent rotations of one party's key take turns (SQLite serialises every write
          // transaction): a later one then retires the key an earlier one made.
          yield* sql.onDialectOrElse({
            pg: () => sql`SELECT id FROM parties WHERE id = ${key.partyID} FOR UPDATE`,
            orElse: () => Effect.void
          })
          const retired = yield* sql`UPDATE webhook_keys SET retired_at = ${key.createdAt.getTime()}
            WHERE party_id = ${key.partyID} AND retired_at IS NULL RETURNING *`
          yield* sql`INSERT INTO webhook_keys ${sql.insert(toRow(key))}`
          return Option.fromNullable(retired[0]).pipe(Option.map(fromRow))
        }).pipe(Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
