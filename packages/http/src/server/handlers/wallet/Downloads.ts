/**
 * Handlers of the wallet interface's file downloads: a signed link to the plain route
 * `GET /downloads/:token` (`server/Downloads`), valid 60 s.
 *
 * @since 0.1.0
 */
import { ReportService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { merchantParty } from "../../wallet/WalletCaller.js"
import * as Group from "../Group.js"

/** The Downloads group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const reports = yield* ReportService.ReportService
  return Group.handlers(KassaApi, "Downloads")({
    downloadFile: ({ path }) =>
      Effect.flatMap(merchantParty, (party) => reports.link(party, path.fileID)).pipe(
        Effect.map(({ expiresAt, url }) => ({ url, expiresAt }))
      )
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "Downloads", handlers)
