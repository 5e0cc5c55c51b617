/**
 * `ApiKeyRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { ApiKeyRepository, type ApiKeyRecord } from "@kassa/core/ports/ApiKeyRepository"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, OptionalDate, reader } from "./internal/rows.js"
import { withWork } from "./sql/driver/Statements.js"
import { insert } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const ApiKeyKind = Schema.Literal("api-key", "operator")

/** An `api_keys` row. */
const keys = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    kind: ApiKeyKind,
    createdAt: DateColumn,
    revokedAt: OptionalDate
  }),
  (r): ApiKeyRecord => ({ id: r.id, partyID: r.partyId, kind: r.kind, createdAt: r.createdAt, revokedAt: r.revokedAt })
)

const columns = "id, party_id, kind, created_at, revoked_at"

const CACHE_MS = 5_000
const CACHE_SIZE = 10_000

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ApiKeyRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Every request authenticates: a key found is kept for a few seconds. A revocation by this
    // process applies at once; one by another process on the same database within CACHE_MS.
    const cache = new Map<string, { readonly record: ApiKeyRecord; readonly until: number }>()
    const remember = (record: ApiKeyRecord) => {
      if (cache.size >= CACHE_SIZE) cache.clear()
      cache.set(record.id, { record, until: performance.now() + CACHE_MS })
    }
    return {
      insert: (k) =>
        insert(sql, "api_keys", sql`INSERT INTO api_keys ${
          sql.insert({
            id: k.id,
            partyId: k.partyID,
            kind: k.kind,
            createdAt: k.createdAt.getTime(),
            revokedAt: k.revokedAt === undefined ? null : k.revokedAt.getTime()
          })
        }`),
      findById: (id) =>
        Effect.suspend(() => {
          const hit = cache.get(id)
          if (hit !== undefined && hit.until > performance.now()) return Effect.succeed(Option.some(hit.record))
          return sql`SELECT ${sql.literal(columns)} FROM api_keys WHERE id = ${id}`.pipe(
            Effect.map(keys.first),
            Effect.tap(Option.match({ onNone: () => cache.delete(id), onSome: remember })),
            Effect.orDie,
            withWork("cache")
          )
        }),
      listByParty: (partyID) =>
        sql`SELECT ${sql.literal(columns)} FROM api_keys WHERE party_id = ${partyID} ORDER BY created_at, id`.pipe(
          Effect.map(keys.all),
          Effect.orDie
        ),
      revoke: (partyID, id, at) =>
        Effect.zipRight(Effect.sync(() => cache.delete(id)), sql`UPDATE api_keys SET revoked_at = ${at.getTime()}
            WHERE id = ${id} AND party_id = ${partyID} AND revoked_at IS NULL RETURNING id`).pipe(
          Effect.ensuring(Effect.sync(() => cache.delete(id))),
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
