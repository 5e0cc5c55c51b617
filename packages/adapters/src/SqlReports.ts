/**
 * `ReportRepository` on `SqlClient`.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { ReportRepository } from "@kassa/core/ports/ReportRepository"
import type { ReportRecord, StoredReportFile } from "@kassa/core/report/Report"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { DateColumn, IntColumn, reader } from "./internal/rows.js"
import { insert, touchingOnly } from "./sql/driver/writes.js"
import * as Repository from "./internal/repository.js"

const columns = "id, party_id, identity_id, type, from_time, to_time, status, created_at"

const reports = reader(
  Schema.Struct({
    id: IntColumn,
    partyId: Schema.String,
    identityId: Schema.String,
    type: Schema.Literal("withdrawalRegistry"),
    fromTime: DateColumn,
    toTime: DateColumn,
    status: Schema.Literal("pending", "created", "canceled"),
    createdAt: DateColumn
  }),
  (r): Omit<ReportRecord, "files"> => ({
    id: r.id,
    partyID: r.partyId,
    identityID: r.identityId,
    type: r.type,
    fromTime: r.fromTime,
    toTime: r.toTime,
    status: r.status,
    createdAt: r.createdAt
  })
)

const fileIds = reader(Schema.Struct({ id: Schema.String, reportId: IntColumn }), (r) => r)

const files = reader(
  Schema.Struct({ id: Schema.String, reportId: IntColumn, partyId: Schema.String, content: Schema.String }),
  (r): StoredReportFile => ({ id: r.id, reportID: r.reportId, partyID: r.partyId, content: r.content })
)

/** What builds the repository: `layer` runs it, and so does `SqlStorage.layer` with every other one. @since 0.1.0 @category constructors */
export const repository = Repository.make(
  ReportRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const read = touchingOnly("reports", "report_files")
    const own = sql.literal(columns)
    // the files' ids of the reports, in one query
    const withFiles = (rows: ReadonlyArray<Omit<ReportRecord, "files">>) =>
      rows.length === 0
        ? Effect.succeed([] as ReadonlyArray<ReportRecord>)
        : read(sql`SELECT id, report_id FROM report_files WHERE ${sql.in("report_id", rows.map((r) => r.id))} ORDER BY id`).pipe(
          Effect.map((found) => {
            const ids = fileIds.all(found)
            return rows.map((r): ReportRecord => ({ ...r, files: ids.filter((f) => f.reportId === r.id).map((f) => f.id) }))
          })
        )
    return {
      create: (r) =>
        sql`INSERT INTO reports ${
          sql.insert({
            partyId: r.partyID,
            identityId: r.identityID,
            type: r.type,
            fromTime: r.fromTime.getTime(),
            toTime: r.toTime.getTime(),
            status: r.status,
            createdAt: r.createdAt.getTime()
          })
        } RETURNING id`.pipe(
          Effect.map((rows): ReportRecord => ({ ...r, id: Number((rows[0] as { id: number | string }).id) })),
          Effect.orDie
        ),
      findById: (id) =>
        read(sql`SELECT ${own} FROM reports WHERE id = ${id}`).pipe(
          Effect.flatMap((rows) => withFiles(reports.all(rows))),
          Effect.map((found) => Option.fromNullable(found[0])),
          Effect.orDie
        ),
      list: (f) =>
        read(
          sql`SELECT ${own} FROM reports WHERE party_id = ${f.partyID} AND identity_id = ${f.identityID}
              AND from_time >= ${f.fromTime.getTime()} AND to_time <= ${f.toTime.getTime()}
              ${f.type === undefined ? sql`` : sql`AND type = ${f.type}`} ORDER BY id`
        ).pipe(Effect.flatMap((rows) => withFiles(reports.all(rows))), Effect.orDie),
      complete: (id, built) =>
        Effect.gen(function*() {
          const rows = yield* sql`UPDATE reports SET status = 'created' WHERE id = ${id} AND status = 'pending'
                                  RETURNING party_id`
          if (rows.length === 0) return false
          const partyID = String((rows[0] as { partyId: string }).partyId)
          for (const f of built) {
            yield* insert(sql, "report_files", sql`INSERT INTO report_files ${sql.insert({ id: f.id, reportId: id, partyId: partyID, content: f.content })}`)
          }
          return true
        }).pipe(Effect.orDie),
      findFile: (fileID) =>
        read(sql`SELECT id, report_id, party_id, content FROM report_files WHERE id = ${fileID}`).pipe(Effect.map(files.first), Effect.orDie)
    }
  })
)

/** @since 0.1.0 @category layers */
export const layer = Repository.layer(repository)
