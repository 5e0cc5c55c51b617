/**
 * Deposits, their reverts and adjustments: made by the operator, read here.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Cash, OperationStatus, SubFailure } from "./Cash.js"
import { Id, MovementFilters, Page, Paging, PartyIdQuery } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** @since 0.1.0 @category schemas */
export const Deposit = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  wallet: Schema.String,
  source: Schema.String,
  body: Cash,
  fee: Schema.optional(Cash),
  externalID: Schema.optional(Schema.String),
  desc: Schema.optional(Schema.String),
  status: OperationStatus,
  failure: Schema.optional(SubFailure)
}).annotations({ identifier: "Deposit" })

/** @since 0.1.0 @category schemas */
export const DepositRevert = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  wallet: Schema.String,
  source: Schema.String,
  body: Cash,
  reason: Schema.optional(Schema.String),
  externalID: Schema.optional(Schema.String),
  status: OperationStatus,
  failure: Schema.optional(SubFailure)
}).annotations({ identifier: "DepositRevert" })

/** @since 0.1.0 @category schemas */
export const DepositAdjustment = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  externalID: Schema.optional(Schema.String),
  status: OperationStatus,
  failure: Schema.optional(SubFailure)
}).annotations({ identifier: "DepositAdjustment" })

/** The filters every deposit list takes. @since 0.1.0 @category schemas */
export const DepositFilters = {
  partyID: PartyIdQuery,
  walletID: Schema.optional(Id),
  identityID: Schema.optional(Id),
  depositID: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(50))),
  sourceID: Schema.optional(Id),
  ...MovementFilters,
  ...Paging
}

/** @since 0.1.0 @category groups */
export class DepositsGroup extends HttpApiGroup.make("Deposits")
  .add(
    HttpApiEndpoint.get("listDeposits", "/deposits")
      .setUrlParams(Schema.Struct({ ...DepositFilters, revertStatus: Schema.optional(Schema.Literal("None", "Partial", "Full")) }))
      .addSuccess(Page(Deposit))
  )
  .add(
    HttpApiEndpoint.get("listDepositReverts", "/deposit-reverts")
      .setUrlParams(Schema.Struct(DepositFilters))
      .addSuccess(Page(DepositRevert))
  )
  .add(
    HttpApiEndpoint.get("listDepositAdjustments", "/deposit-adjustments")
      .setUrlParams(Schema.Struct(DepositFilters))
      .addSuccess(Page(DepositAdjustment))
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Deposits")
{}
