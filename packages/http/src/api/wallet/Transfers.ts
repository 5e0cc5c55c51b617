/**
 * Wallet-to-wallet transfers.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Cash, OperationStatus, SubFailure } from "./Cash.js"
import { ConflictRequest, InvalidOperationParameters, NotFound } from "./Errors.js"
import { Id } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** `createW2WTransfer`'s body. @since 0.1.0 @category schemas */
export const W2WTransferParams = Schema.Struct({
  sender: Schema.String,
  receiver: Schema.String,
  body: Cash,
  externalID: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const W2WTransfer = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  body: Cash,
  sender: Schema.String,
  receiver: Schema.String,
  status: Schema.Struct({ status: OperationStatus, failure: Schema.optional(SubFailure) }),
  externalID: Schema.optional(Schema.String)
}).annotations({ identifier: "W2WTransfer" })
/** @since 0.1.0 */
export type W2WTransfer = typeof W2WTransfer.Type

/** @since 0.1.0 @category groups */
export class TransfersGroup extends HttpApiGroup.make("W2W")
  .add(
    HttpApiEndpoint.post("createW2WTransfer", "/w2w/transfers")
      .setPayload(W2WTransferParams)
      .addSuccess(W2WTransfer, { status: 202 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getW2WTransfer", "/w2w/transfers/:w2wTransferID")
      .setPath(Schema.Struct({ w2wTransferID: Id }))
      .addSuccess(W2WTransfer)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "W2W")
{}
