/**
 * Handlers of the card-token interface (payres).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "WithdrawalResources", (handlers) =>
  Effect.succeed(
    handlers
      .handle("storeBankCard", () => notImplemented("storeBankCard"))
      .handle("getBankCard", () => notImplemented("getBankCard"))
  ))
