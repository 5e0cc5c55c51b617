/**
 * Handlers of the wallet interface's reports.
 *
 * @since 0.1.0
 */
import { Report, ReportService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The WalletReports group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const reports = yield* ReportService.ReportService
  return Group.handlers(KassaApi, "WalletReports")({
    createReport: ({ path, payload }) =>
      Effect.flatMap(merchantParty, (party) => reports.create(party, path.identityID, payload)).pipe(Effect.map(Report.toReport)),
    getReports: ({ path, urlParams }) =>
      Effect.flatMap(merchantParty, (party) =>
        reports.list(party, path.identityID, { fromTime: urlParams.fromTime, toTime: urlParams.toTime, type: urlParams.type })).pipe(
          Effect.map((all) => all.map(Report.toReport))
        ),
    getReport: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => reports.get(party, path.identityID, path.reportID)).pipe(Effect.map(Report.toReport))
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "WalletReports", handlers)
