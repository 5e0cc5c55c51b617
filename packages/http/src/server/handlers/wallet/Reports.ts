/**
 * Handlers of the wallet interface's reports.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WalletReports", (handlers) =>
  Effect.succeed(
    handlers
      .handle("createReport", () => notImplemented("createReport"))
      .handle("getReports", () => notImplemented("getReports"))
      .handle("getReport", () => notImplemented("getReport"))
  ))
