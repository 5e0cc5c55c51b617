/**
 * Handlers of the wallet interface's wallet-to-wallet transfers.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "W2W", (handlers) =>
  Effect.succeed(
    handlers
      .handle("createW2WTransfer", () => notImplemented("createW2WTransfer"))
      .handle("getW2WTransfer", () => notImplemented("getW2WTransfer"))
  ))
