/**
 * Storage of wallet reports and their files.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { ReportFile, ReportFilter, ReportRecord, StoredReportFile } from "../report/Report.js"

/** @since 0.1.0 @category tags */
export class ReportRepository extends Context.Tag("kassa/ReportRepository")<ReportRepository, {
  /** Stores a new report, numbering it. */
  readonly create: (report: Omit<ReportRecord, "id">) => Effect.Effect<ReportRecord>
  readonly findById: (id: number) => Effect.Effect<Option.Option<ReportRecord>>
  /** In creation order; every filter applies. */
  readonly list: (filter: ReportFilter) => Effect.Effect<ReadonlyArray<ReportRecord>>
  /** Stores the files and makes a `pending` report `created`; false if it was not pending. */
  readonly complete: (id: number, files: ReadonlyArray<ReportFile>) => Effect.Effect<boolean>
  readonly findFile: (fileID: string) => Effect.Effect<Option.Option<StoredReportFile>>
}>() {}
