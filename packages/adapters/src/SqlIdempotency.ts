/**
 * `Idempotency` on `SqlClient`. The primary key (party, namespace, operation, externalID) decides
 * races: the first transaction to insert wins, the others read its record.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Idempotency, type IdempotencyKey, type IdempotencyRecord } from "@kassa/core/ports/Idempotency"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { reader } from "./internal/rows.js"
import * as Repository from "./internal/repository.js"
import { rows } from "./sql/driver/reads.js"

const records = reader(
  Schema.Struct({ entityId: Schema.String, fingerprint: Schema.String }),
  (r): IdempotencyRecord => ({ entityID: r.entityId, fingerprint: r.fingerprint })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  Idempotency,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // both statements run on the driver's own path (`rows`): no span or scope of their own
    // unless the fiber traces or statements are counted
    const find = (key: IdempotencyKey) =>
      rows(sql`SELECT entity_id, fingerprint FROM idempotency_keys WHERE party_id = ${key.partyID}
          AND namespace = ${key.namespace} AND operation = ${key.operation}
          AND external_id = ${key.externalID}`).pipe(
        Effect.map(records.first),
        Effect.orDie
      )
    return {
      find,
      claim: (key, record) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const inserted = yield* rows(sql`INSERT INTO idempotency_keys ${
            sql.insert({
              partyId: key.partyID,
              namespace: key.namespace,
              operation: key.operation,
              externalId: key.externalID,
              entityId: record.entityID,
              fingerprint: record.fingerprint,
              createdAt: now
            })
          } ON CONFLICT DO NOTHING RETURNING entity_id`).pipe(Effect.orDie)
          return inserted.length > 0 ? Option.none() : yield* find(key)
        })
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
