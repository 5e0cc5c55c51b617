/**
 * `IdentityRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { ChallengeStatus, type ChallengeRecord, Proof } from "@kassa/core/identity/Challenge"
import type { IdentityRecord } from "@kassa/core/identity/Identity"
import { IdentityRepository } from "@kassa/core/ports/IdentityRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { BoolColumn, DateColumn, flag, IntColumn, JsonColumn, JsonDate, opt, OptionalDate, OptionalText, optMs, optToJson, reader, StoredMetadata, toJson } from "./internal/rows.js"
import { after } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const identityColumns = "id, party_id, name, provider, class, level, effective_challenge, is_blocked, metadata, external_id, created_at, version"

const identities = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    name: Schema.String,
    provider: Schema.String,
    class: Schema.String,
    level: Schema.String,
    effectiveChallenge: OptionalText,
    isBlocked: BoolColumn,
    metadata: Schema.optionalWith(JsonColumn(StoredMetadata), { nullable: true, exact: true }),
    externalId: OptionalText,
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): IdentityRecord => ({
    id: r.id,
    partyID: r.partyId,
    name: r.name,
    provider: r.provider,
    class: r.class,
    level: r.level,
    ...opt("effectiveChallenge", r.effectiveChallenge),
    isBlocked: r.isBlocked,
    ...opt("metadata", r.metadata),
    ...opt("externalID", r.externalId),
    createdAt: r.createdAt,
    version: r.version
  })
)

const challengeColumns = "identity_id, id, party_id, type, proofs, status, failure_reason, valid_until, events, created_at, version"

const Events = Schema.Array(Schema.Struct({
  eventID: Schema.Number,
  occuredAt: JsonDate,
  status: ChallengeStatus,
  failureReason: Schema.optional(Schema.String)
}))

const challenges = reader(
  Schema.Struct({
    identityId: Schema.String,
    id: Schema.String,
    partyId: Schema.String,
    type: Schema.String,
    proofs: JsonColumn(Schema.Array(Proof)),
    status: ChallengeStatus,
    failureReason: OptionalText,
    validUntil: OptionalDate,
    events: JsonColumn(Events),
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): ChallengeRecord => ({
    id: r.id,
    identityID: r.identityId,
    partyID: r.partyId,
    type: r.type,
    proofs: r.proofs,
    status: r.status,
    ...opt("failureReason", r.failureReason),
    ...opt("validUntil", r.validUntil),
    events: r.events.map((e) => ({ eventID: e.eventID, occuredAt: e.occuredAt, status: e.status, ...opt("failureReason", e.failureReason) })),
    createdAt: r.createdAt,
    version: r.version
  })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  IdentityRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("identities")
    const readChallenges = touchingOnly("identity_challenges")
    const own = sql.literal(identityColumns)
    const ownChallenge = sql.literal(challengeColumns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM identities WHERE id = ${id}`).pipe(Effect.map(identities.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM identities WHERE ${
          sql.and([
            sql`party_id = ${filter.partyID}`,
            ...(filter.providerID === undefined ? [] : [sql`provider = ${filter.providerID}`]),
            ...(filter.classID === undefined ? [] : [sql`class = ${filter.classID}`]),
            ...(filter.levelID === undefined ? [] : [sql`level = ${filter.levelID}`]),
            ...after(sql, page)
          ])
        } ORDER BY created_at, id LIMIT ${page.limit + 1}`).pipe(Effect.map(identities.all), Effect.orDie),
      insert: (i) =>
        insert(sql, "identities", sql`INSERT INTO identities ${
          sql.insert({
            id: i.id,
            partyId: i.partyID,
            name: i.name,
            provider: i.provider,
            class: i.class,
            level: i.level,
            effectiveChallenge: i.effectiveChallenge ?? null,
            isBlocked: flag(i.isBlocked),
            metadata: optToJson(i.metadata),
            externalId: i.externalID ?? null,
            createdAt: i.createdAt.getTime(),
            version: i.version
          })
        }`),
      update: (i, expected) =>
        sql`UPDATE identities SET level = ${i.level}, effective_challenge = ${i.effectiveChallenge ?? null},
            is_blocked = ${flag(i.isBlocked)}, version = ${i.version}
            WHERE id = ${i.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie),
      findChallenge: (identityID, id) =>
        readChallenges(sql`SELECT ${ownChallenge} FROM identity_challenges WHERE identity_id = ${identityID} AND id = ${id}`).pipe(
          Effect.map(challenges.first),
          Effect.orDie
        ),
      challengesOf: (identityID) =>
        readChallenges(sql`SELECT ${ownChallenge} FROM identity_challenges WHERE identity_id = ${identityID}
            ORDER BY created_at, id`).pipe(Effect.map(challenges.all), Effect.orDie),
      insertChallenge: (c) =>
        insert(sql, "identity_challenges", sql`INSERT INTO identity_challenges ${
          sql.insert({
            identityId: c.identityID,
            id: c.id,
            partyId: c.partyID,
            type: c.type,
            proofs: toJson(c.proofs),
            status: c.status,
            failureReason: c.failureReason ?? null,
            validUntil: optMs(c.validUntil),
            events: toJson(c.events),
            createdAt: c.createdAt.getTime(),
            version: c.version
          })
        }`),
      updateChallenge: (c, expected) =>
        sql`UPDATE identity_challenges SET status = ${c.status}, failure_reason = ${c.failureReason ?? null},
            valid_until = ${optMs(c.validUntil)}, events = ${toJson(c.events)}, version = ${c.version}
            WHERE identity_id = ${c.identityID} AND id = ${c.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
