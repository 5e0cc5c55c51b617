/**
 * The operator's side of the wallets (`/admin/v1/wallet`): deposits into wallets and their
 * reverts and adjustments, decisions on identity challenges, blocking identities and wallets,
 * forbidding (and allowing again) a provider's payment systems.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { Deposit as CoreDeposit } from "@kassa/core"
import * as Schema from "effect/Schema"
import { OperatorAuthentication } from "./Security.js"
import { Deposit, DepositAdjustment, DepositRevert } from "./wallet/Deposits.js"
import { ConflictRequest, InvalidOperationParameters, NotFound } from "./wallet/Errors.js"
import { IdentityChallenge } from "./wallet/Identities.js"
import { Id } from "./wallet/Params.js"

/** The operator's verdict on a pending challenge. @since 0.1.0 @category schemas */
export const ChallengeDecision = Schema.Struct({ failureReason: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))) })

const Blocking = Schema.Literal("block", "unblock")
const DepositPath = Schema.Struct({ depositID: Id })

/** @since 0.1.0 @category groups */
export class AdminWalletsGroup extends HttpApiGroup.make("AdminWallets")
  .add(
    HttpApiEndpoint.post("createDeposit", "/wallet/deposits")
      .setPayload(CoreDeposit.DepositParams)
      .addSuccess(Deposit, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(HttpApiEndpoint.get("getDeposit", "/wallet/deposits/:depositID").setPath(DepositPath).addSuccess(Deposit).addError(NotFound))
  .add(
    HttpApiEndpoint.post("createDepositRevert", "/wallet/deposits/:depositID/reverts")
      .setPath(DepositPath)
      .setPayload(CoreDeposit.RevertParams)
      .addSuccess(DepositRevert, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.post("createDepositAdjustment", "/wallet/deposits/:depositID/adjustments")
      .setPath(DepositPath)
      .setPayload(CoreDeposit.AdjustmentParams)
      .addSuccess(DepositAdjustment, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.post("decideIdentityChallenge", "/wallet/identities/:identityID/challenges/:challengeID/:decision")
      .setPath(Schema.Struct({ identityID: Id, challengeID: Id, decision: Schema.Literal("complete", "fail", "cancel") }))
      .setPayload(ChallengeDecision)
      .addSuccess(IdentityChallenge)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setIdentityBlocking", "/wallet/identities/:identityID/:command")
      .setPath(Schema.Struct({ identityID: Id, command: Blocking }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setWalletBlocking", "/wallet/wallets/:walletID/:command")
      .setPath(Schema.Struct({ walletID: Id, command: Blocking }))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setProviderPaymentSystem", "/wallet/providers/:providerID/payment-systems/:paymentSystem/:command")
      .setPath(Schema.Struct({ providerID: Id, paymentSystem: Id, command: Schema.Literal("allow", "forbid") }))
      .addError(NotFound)
  )
  .middleware(OperatorAuthentication)
  .prefix("/admin/v1")
{}
