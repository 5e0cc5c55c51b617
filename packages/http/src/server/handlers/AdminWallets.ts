/**
 * Handlers of the operator's wallet routes (`AdminWallets`).
 *
 * @since 0.1.0
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Challenge, Deposit, DepositService, IdentityService, WalletService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"

/** @since 0.1.0 @category layers */
export const layer = HttpApiBuilder.group(KassaApi, "AdminWallets", (handlers) =>
  Effect.gen(function*() {
    const deposits = yield* DepositService.DepositService
    const identities = yield* IdentityService.IdentityService
    const wallets = yield* WalletService.WalletService
    return handlers
      .handle("createDeposit", ({ payload }) => Effect.map(deposits.create(payload), Deposit.toDeposit))
      .handle("getDeposit", ({ path }) => Effect.map(deposits.get(path.depositID), Deposit.toDeposit))
      .handle("createDepositRevert", ({ path, payload }) => Effect.map(deposits.revert(path.depositID, payload), Deposit.toRevert))
      .handle("createDepositAdjustment", ({ path, payload }) =>
        Effect.map(deposits.adjust(path.depositID, payload), Deposit.toAdjustment))
      .handle("decideIdentityChallenge", ({ path, payload }) =>
        Effect.map(
          identities.decideChallenge(path.identityID, path.challengeID, path.decision, payload.failureReason),
          Challenge.toChallenge
        ))
      .handle("setIdentityBlocking", ({ path }) => Effect.asVoid(identities.setBlocked(path.identityID, path.command === "block")))
      .handle("setWalletBlocking", ({ path }) => Effect.asVoid(wallets.setBlocked(path.walletID, path.command === "block")))
      .handle("setProviderPaymentSystem", ({ path }) =>
        identities.setPaymentSystemAllowed(path.providerID, path.paymentSystem, path.command === "allow"))
  }))
