/**
 * Handlers of the wallet interface's file downloads: a signed link to the plain route
 * `GET /downloads/:token` (`server/Downloads`), valid 60 s.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { ReportService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../wallet/WalletCaller.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Downloads", (handlers) =>
  Effect.gen(function*() {
    const reports = yield* ReportService.ReportService
    return handlers
      .handle("downloadFile", ({ path }) =>
        Effect.flatMap(merchantParty, (party) => reports.link(party, path.fileID)).pipe(
          Effect.map(({ expiresAt, url }) => ({ url, expiresAt }))
        ))
  }))
