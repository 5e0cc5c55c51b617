/**
 * `ReportRepository` in memory.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { ReportRepository } from "../ports/ReportRepository.js"
import { matches, type ReportRecord, type StoredReportFile } from "../report/Report.js"
import { MemoryStore } from "./MemoryStore.js"

/** @since 0.1.0 @category layers */
export const layerMemory: Layer.Layer<ReportRepository, never, MemoryStore> = Layer.effect(
  ReportRepository,
  Effect.map(MemoryStore, (store) => {
    const reports = store.table<ReportRecord>("reports")
    const files = store.table<StoredReportFile>("report_files")
    return {
      // reports are never deleted, so their count numbers the next
      create: (r) =>
        Effect.gen(function*() {
          const report = { ...r, id: (yield* reports.values).length + 1 }
          yield* reports.insert(String(report.id), report)
          return report
        }),
      findById: (id) => reports.get(String(id)),
      list: (filter) => Effect.map(reports.values, (all) => all.filter((r) => matches(r, filter))),
      complete: (id, built) =>
        Effect.gen(function*() {
          const found = yield* reports.get(String(id))
          if (Option.isNone(found) || found.value.status !== "pending") return false
          for (const f of built) yield* files.insert(f.id, { ...f, reportID: id, partyID: found.value.partyID })
          yield* reports.set(String(id), { ...found.value, status: "created", files: built.map((f) => f.id) })
          return true
        }),
      findFile: (fileID) => files.get(fileID)
    }
  })
)
