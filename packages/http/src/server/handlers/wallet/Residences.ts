/**
 * Handlers of the wallet interface's residences.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Residences", (handlers) =>
  Effect.succeed(
    handlers
      .handle("getResidence", () => notImplemented("getResidence"))
  ))
