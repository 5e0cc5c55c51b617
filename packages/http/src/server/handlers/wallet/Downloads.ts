/**
 * Handlers of the wallet interface's file downloads.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Downloads", (handlers) =>
  Effect.succeed(
    handlers
      .handle("downloadFile", () => notImplemented("downloadFile"))
  ))
