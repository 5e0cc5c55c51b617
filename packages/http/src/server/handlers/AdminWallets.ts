/**
 * Handlers of the operator's wallet routes (`AdminWallets`).
 *
 * @since 0.1.0
 */
import { Challenge, Deposit, DepositService, IdentityService, WalletService } from "@kassa/core"
import * as Effect from "effect/Effect"
import { KassaApi } from "../../api/KassaApi.js"
import * as Group from "./Group.js"

/** The AdminWallets group's handlers, by operation. @since 0.1.0 @category handlers */
export const handlers = Effect.gen(function*() {
  const deposits = yield* DepositService.DepositService
  const identities = yield* IdentityService.IdentityService
  const wallets = yield* WalletService.WalletService
  return Group.handlers(KassaApi, "AdminWallets")({
    createDeposit: ({ payload }) => Effect.map(deposits.create(payload), Deposit.toDeposit),
    getDeposit: ({ path }) => Effect.map(deposits.get(path.depositID), Deposit.toDeposit),
    createDepositRevert: ({ path, payload }) => Effect.map(deposits.revert(path.depositID, payload), Deposit.toRevert),
    createDepositAdjustment: ({ path, payload }) =>
      Effect.map(deposits.adjust(path.depositID, payload), Deposit.toAdjustment),
    decideIdentityChallenge: ({ path, payload }) =>
      Effect.map(
        identities.decideChallenge(path.identityID, path.challengeID, path.decision, payload.failureReason),
        Challenge.toChallenge
      ),
    setIdentityBlocking: ({ path }) => Effect.asVoid(identities.setBlocked(path.identityID, path.command === "block")),
    setWalletBlocking: ({ path }) => Effect.asVoid(wallets.setBlocked(path.walletID, path.command === "block")),
    setProviderPaymentSystem: ({ path }) =>
      identities.setPaymentSystemAllowed(path.providerID, path.paymentSystem, path.command === "allow")
  })
})

/** @since 0.1.0 @category layers */
export const layer = Group.layer(KassaApi, "AdminWallets", handlers)
