/**
 * Handlers of the wallet interface's wallets.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Wallets", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listWallets", () => notImplemented("listWallets"))
      .handle("createWallet", () => notImplemented("createWallet"))
      .handle("getWallet", () => notImplemented("getWallet"))
      .handle("getWalletByExternalID", () => notImplemented("getWalletByExternalID"))
      .handle("getWalletAccount", () => notImplemented("getWalletAccount"))
      .handle("issueWalletGrant", () => notImplemented("issueWalletGrant"))
  ))
