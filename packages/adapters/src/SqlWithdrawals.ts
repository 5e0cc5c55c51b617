/**
 * `WithdrawalRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { MovementStatus, SubFailure } from "@kassa/core/movement/Movement"
import { WithdrawalRepository } from "@kassa/core/ports/WithdrawalRepository"
import { WithdrawalEventRecord, type WithdrawalFilter, type WithdrawalRecord } from "@kassa/core/withdrawal/Withdrawal"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalText, optToJson, reader, StoredMetadata, toJson } from "./internal/rows.js"
import { after } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const columns = "id, party_id, wallet_party_id, wallet_id, identity_id, destination_id, amount, currency, fee, payout_amount, payout_currency, metadata, external_id, wallet_grant, " +
  "status, failure, attempts, events, created_at, version"

const withdrawals = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    walletPartyId: Schema.String,
    walletId: Schema.String,
    identityId: Schema.String,
    destinationId: Schema.String,
    amount: IntColumn,
    currency: Schema.String,
    fee: IntColumn,
    payoutAmount: IntColumn,
    payoutCurrency: Schema.String,
    metadata: Schema.optionalWith(JsonColumn(StoredMetadata), { nullable: true, exact: true }),
    externalId: OptionalText,
    walletGrant: OptionalText,
    status: MovementStatus,
    failure: Schema.optionalWith(JsonColumn(SubFailure), { nullable: true, exact: true }),
    attempts: IntColumn,
    events: JsonColumn(Schema.Array(WithdrawalEventRecord)),
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): WithdrawalRecord => ({
    id: r.id,
    partyID: r.partyId,
    walletPartyID: r.walletPartyId,
    walletID: r.walletId,
    identityID: r.identityId,
    destinationID: r.destinationId,
    amount: r.amount,
    currency: r.currency,
    fee: r.fee,
    payout: { amount: r.payoutAmount, currency: r.payoutCurrency },
    ...opt("metadata", r.metadata),
    ...opt("externalID", r.externalId),
    ...opt("walletGrant", r.walletGrant),
    status: r.status,
    ...opt("failure", r.failure),
    attempts: r.attempts,
    events: r.events,
    createdAt: r.createdAt,
    version: r.version
  })
)

const where = (sql: SqlClient.SqlClient, filter: WithdrawalFilter) => [
  // made by the party, or out of its wallet (`Withdrawal.visibleTo`)
  sql`(party_id = ${filter.partyID} OR wallet_party_id = ${filter.partyID})`,
  ...(filter.walletID === undefined ? [] : [sql`wallet_id = ${filter.walletID}`]),
  ...(filter.identityID === undefined ? [] : [sql`identity_id = ${filter.identityID}`]),
  ...(filter.withdrawalID === undefined ? [] : [sql`id = ${filter.withdrawalID}`]),
  ...(filter.destinationID === undefined ? [] : [sql`destination_id = ${filter.destinationID}`]),
  ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
  ...(filter.createdAtFrom === undefined ? [] : [sql`created_at >= ${filter.createdAtFrom.getTime()}`]),
  ...(filter.createdAtTo === undefined ? [] : [sql`created_at <= ${filter.createdAtTo.getTime()}`]),
  ...(filter.amountFrom === undefined ? [] : [sql`amount >= ${filter.amountFrom}`]),
  ...(filter.amountTo === undefined ? [] : [sql`amount <= ${filter.amountTo}`]),
  ...(filter.currencyID === undefined ? [] : [sql`currency = ${filter.currencyID}`])
]

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  WithdrawalRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("withdrawals")
    const own = sql.literal(columns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM withdrawals WHERE id = ${id}`).pipe(Effect.map(withdrawals.first), Effect.orDie),
      list: (filter, page) =>
        read(sql`SELECT ${own} FROM withdrawals WHERE ${sql.and([...where(sql, filter), ...after(sql, page)])}
          ORDER BY created_at, id LIMIT ${page.limit + 1}`).pipe(Effect.map(withdrawals.all), Effect.orDie),
      insert: (w) =>
        insert(sql, "withdrawals", sql`INSERT INTO withdrawals ${
          sql.insert({
            id: w.id,
            partyId: w.partyID,
            walletPartyId: w.walletPartyID,
            walletId: w.walletID,
            identityId: w.identityID,
            destinationId: w.destinationID,
            amount: w.amount,
            currency: w.currency,
            fee: w.fee,
            payoutAmount: w.payout.amount,
            payoutCurrency: w.payout.currency,
            metadata: optToJson(w.metadata),
            externalId: w.externalID ?? null,
            walletGrant: w.walletGrant ?? null,
            status: w.status,
            failure: optToJson(w.failure),
            attempts: w.attempts,
            events: toJson(w.events),
            createdAt: w.createdAt.getTime(),
            version: w.version
          })
        }`),
      update: (w, expected) =>
        sql`UPDATE withdrawals SET status = ${w.status}, failure = ${optToJson(w.failure)}, attempts = ${w.attempts},
            events = ${toJson(w.events)}, version = ${w.version}
            WHERE id = ${w.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
