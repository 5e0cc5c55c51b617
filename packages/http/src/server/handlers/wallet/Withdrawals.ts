/**
 * Handlers of the wallet interface's destinations, quotes and withdrawals.
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../../api/KassaApi.js"
import { notImplemented } from "../../wallet/WalletWire.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "Withdrawals", (handlers) =>
  Effect.succeed(
    handlers
      .handle("listDestinations", () => notImplemented("listDestinations"))
      .handle("createDestination", () => notImplemented("createDestination"))
      .handle("getDestination", () => notImplemented("getDestination"))
      .handle("getDestinationByExternalID", () => notImplemented("getDestinationByExternalID"))
      .handle("issueDestinationGrant", () => notImplemented("issueDestinationGrant"))
      .handle("createQuote", () => notImplemented("createQuote"))
      .handle("listWithdrawals", () => notImplemented("listWithdrawals"))
      .handle("createWithdrawal", () => notImplemented("createWithdrawal"))
      .handle("getWithdrawal", () => notImplemented("getWithdrawal"))
      .handle("getWithdrawalByExternalID", () => notImplemented("getWithdrawalByExternalID"))
      .handle("pollWithdrawalEvents", () => notImplemented("pollWithdrawalEvents"))
      .handle("getWithdrawalEvents", () => notImplemented("getWithdrawalEvents"))
  ))
