/**
 * Handlers of the wallet interface's reports.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Report, ReportService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../wallet/WalletCaller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletReports", (handlers) =>
  Effect.gen(function*() {
    const reports = yield* ReportService.ReportService
    return handlers
      .handle("createReport", ({ path, payload }) =>
        Effect.flatMap(merchantParty, (party) => reports.create(party, path.identityID, payload)).pipe(Effect.map(Report.toReport)))
      .handle("getReports", ({ path, urlParams }) =>
        Effect.flatMap(merchantParty, (party) =>
          reports.list(party, path.identityID, { fromTime: urlParams.fromTime, toTime: urlParams.toTime, type: urlParams.type })).pipe(
            Effect.map((all) => all.map(Report.toReport))
          ))
      .handle("getReport", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => reports.get(party, path.identityID, path.reportID)).pipe(Effect.map(Report.toReport)))
  }))
