/**
 * `W2WTransferRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { MovementStatus, SubFailure } from "@kassa/core/movement/Movement"
import { W2WTransferRepository } from "@kassa/core/ports/W2WTransferRepository"
import type { W2WTransferRecord } from "@kassa/core/transfer/W2WTransfer"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalText, optToJson, reader } from "./internal/rows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const columns = "id, party_id, sender_id, receiver_id, amount, currency, external_id, status, failure, created_at, version"

const transfers = reader(
  Schema.Struct({
    id: Schema.String,
    partyId: Schema.String,
    senderId: Schema.String,
    receiverId: Schema.String,
    amount: IntColumn,
    currency: Schema.String,
    externalId: OptionalText,
    status: MovementStatus,
    failure: Schema.optionalWith(JsonColumn(SubFailure), { nullable: true, exact: true }),
    createdAt: DateColumn,
    version: IntColumn
  }),
  (r): W2WTransferRecord => ({
    id: r.id,
    partyID: r.partyId,
    senderID: r.senderId,
    receiverID: r.receiverId,
    amount: r.amount,
    currency: r.currency,
    ...opt("externalID", r.externalId),
    status: r.status,
    ...opt("failure", r.failure),
    createdAt: r.createdAt,
    version: r.version
  })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  W2WTransferRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("w2w_transfers")
    const own = sql.literal(columns)
    return {
      findById: (id) => read(sql`SELECT ${own} FROM w2w_transfers WHERE id = ${id}`).pipe(Effect.map(transfers.first), Effect.orDie),
      insert: (t) =>
        insert(sql, "w2w_transfers", sql`INSERT INTO w2w_transfers ${
          sql.insert({
            id: t.id,
            partyId: t.partyID,
            senderId: t.senderID,
            receiverId: t.receiverID,
            amount: t.amount,
            currency: t.currency,
            externalId: t.externalID ?? null,
            status: t.status,
            failure: optToJson(t.failure),
            createdAt: t.createdAt.getTime(),
            version: t.version
          })
        }`),
      update: (t, expected) =>
        sql`UPDATE w2w_transfers SET status = ${t.status}, failure = ${optToJson(t.failure)}, version = ${t.version}
            WHERE id = ${t.id} AND version = ${expected} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
