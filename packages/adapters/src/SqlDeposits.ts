/**
 * `DepositRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AdjustmentRecord, DepositFilter, DepositRecord, RevertRecord } from "@kassa/core/deposit/Deposit"
import { MovementStatus, SubFailure } from "@kassa/core/movement/Movement"
import type { PageRequest } from "@kassa/core/Page"
import { DepositRepository } from "@kassa/core/ports/DepositRepository"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, JsonColumn, opt, OptionalText, optToJson, reader } from "./internal/rows.js"
import { after, depositWhere } from "./internal/walletRows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

/** What the three tables share. */
const movement = {
  id: Schema.String,
  partyId: Schema.String,
  walletId: Schema.String,
  identityId: Schema.String,
  sourceId: Schema.String,
  amount: IntColumn,
  currency: Schema.String,
  externalId: OptionalText,
  status: MovementStatus,
  failure: Schema.optionalWith(JsonColumn(SubFailure), { nullable: true, exact: true }),
  createdAt: DateColumn,
  version: IntColumn
}

const common = (r: Schema.Struct.Type<typeof movement>) => ({
  id: r.id,
  partyID: r.partyId,
  walletID: r.walletId,
  identityID: r.identityId,
  sourceID: r.sourceId,
  amount: r.amount,
  currency: r.currency,
  ...opt("externalID", r.externalId),
  status: r.status,
  ...opt("failure", r.failure),
  createdAt: r.createdAt,
  version: r.version
})

const commonColumns = "id, party_id, wallet_id, identity_id, source_id, amount, currency, external_id, status, failure, created_at, version"

const deposits = reader(
  Schema.Struct({ ...movement, description: OptionalText, reverted: IntColumn }),
  (r): DepositRecord => ({ ...common(r), ...opt("description", r.description), reverted: r.reverted })
)
const reverts = reader(
  Schema.Struct({ ...movement, depositId: Schema.String, reason: OptionalText }),
  (r): RevertRecord => ({ ...common(r), depositID: r.depositId, ...opt("reason", r.reason) })
)
const adjustments = reader(
  Schema.Struct({ ...movement, depositId: Schema.String, target: Schema.Literal("Succeeded", "Failed") }),
  (r): AdjustmentRecord => ({ ...common(r), depositID: r.depositId, target: r.target })
)

const commonRow = (m: DepositRecord | RevertRecord | AdjustmentRecord) => ({
  id: m.id,
  partyId: m.partyID,
  walletId: m.walletID,
  identityId: m.identityID,
  sourceId: m.sourceID,
  amount: m.amount,
  currency: m.currency,
  externalId: m.externalID ?? null,
  status: m.status,
  failure: optToJson(m.failure),
  createdAt: m.createdAt.getTime(),
  version: m.version
})

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  DepositRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const readDeposits = touchingOnly("deposits")
    const readReverts = touchingOnly("deposit_reverts")
    const readAdjustments = touchingOnly("deposit_adjustments")
    const depositColumns = sql.literal(`${commonColumns}, description, reverted`)
    const revertColumns = sql.literal(`${commonColumns}, deposit_id, reason`)
    const adjustmentColumns = sql.literal(`${commonColumns}, deposit_id, target`)
    const page = (filter: DepositFilter, request: PageRequest, depositColumn: "id" | "deposit_id") =>
      sql`WHERE ${sql.and([...depositWhere(sql, filter, depositColumn), ...after(sql, request)])}
          ORDER BY created_at, id LIMIT ${request.limit + 1}`
    const updated = (rows: ReadonlyArray<unknown>) => rows.length > 0
    return {
      findById: (id) =>
        readDeposits(sql`SELECT ${depositColumns} FROM deposits WHERE id = ${id}`).pipe(Effect.map(deposits.first), Effect.orDie),
      list: (filter, request) =>
        readDeposits(sql`SELECT ${depositColumns} FROM deposits ${page(filter, request, "id")}`).pipe(
          Effect.map(deposits.all),
          Effect.orDie
        ),
      insert: (d) =>
        insert(sql, "deposits", sql`INSERT INTO deposits ${
          sql.insert({ ...commonRow(d), description: d.description ?? null, reverted: d.reverted })
        }`),
      update: (d, expected) =>
        sql`UPDATE deposits SET status = ${d.status}, failure = ${optToJson(d.failure)}, reverted = ${d.reverted},
            version = ${d.version} WHERE id = ${d.id} AND version = ${expected} RETURNING id`.pipe(Effect.map(updated), Effect.orDie),
      findRevert: (depositID, id) =>
        readReverts(sql`SELECT ${revertColumns} FROM deposit_reverts WHERE deposit_id = ${depositID} AND id = ${id}`).pipe(
          Effect.map(reverts.first),
          Effect.orDie
        ),
      revertsOf: (depositID) =>
        readReverts(sql`SELECT ${revertColumns} FROM deposit_reverts WHERE deposit_id = ${depositID} ORDER BY created_at, id`).pipe(
          Effect.map(reverts.all),
          Effect.orDie
        ),
      listReverts: (filter, request) =>
        readReverts(sql`SELECT ${revertColumns} FROM deposit_reverts ${page(filter, request, "deposit_id")}`).pipe(
          Effect.map(reverts.all),
          Effect.orDie
        ),
      insertRevert: (r) =>
        insert(sql, "deposit_reverts", sql`INSERT INTO deposit_reverts ${
          sql.insert({ ...commonRow(r), depositId: r.depositID, reason: r.reason ?? null })
        }`),
      updateRevert: (r, expected) =>
        sql`UPDATE deposit_reverts SET status = ${r.status}, failure = ${optToJson(r.failure)}, version = ${r.version}
            WHERE deposit_id = ${r.depositID} AND id = ${r.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map(updated),
          Effect.orDie
        ),
      findAdjustment: (depositID, id) =>
        readAdjustments(sql`SELECT ${adjustmentColumns} FROM deposit_adjustments WHERE deposit_id = ${depositID} AND id = ${id}`).pipe(
          Effect.map(adjustments.first),
          Effect.orDie
        ),
      adjustmentsOf: (depositID) =>
        readAdjustments(sql`SELECT ${adjustmentColumns} FROM deposit_adjustments WHERE deposit_id = ${depositID}
            ORDER BY created_at, id`).pipe(Effect.map(adjustments.all), Effect.orDie),
      listAdjustments: (filter, request) =>
        readAdjustments(sql`SELECT ${adjustmentColumns} FROM deposit_adjustments ${page(filter, request, "deposit_id")}`).pipe(
          Effect.map(adjustments.all),
          Effect.orDie
        ),
      insertAdjustment: (a) =>
        insert(sql, "deposit_adjustments", sql`INSERT INTO deposit_adjustments ${
          sql.insert({ ...commonRow(a), depositId: a.depositID, target: a.target })
        }`),
      updateAdjustment: (a, expected) =>
        sql`UPDATE deposit_adjustments SET status = ${a.status}, failure = ${optToJson(a.failure)}, version = ${a.version}
            WHERE deposit_id = ${a.depositID} AND id = ${a.id} AND version = ${expected} RETURNING id`.pipe(
          Effect.map(updated),
          Effect.orDie
        )
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
