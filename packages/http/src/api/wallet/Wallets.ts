/**
 * Wallets: an e-money balance of an identity in one currency, its account and its grants.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Money, Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Cash } from "./Cash.js"
import { ConflictRequest, InvalidOperationParameters, NotFound } from "./Errors.js"
import { Id, OwnedListParams, Page } from "./Params.js"
import { WalletAuthentication } from "./Security.js"

/** `createWallet`'s body. @since 0.1.0 @category schemas */
export const WalletParams = Schema.Struct({
  name: Schema.String,
  identity: Schema.String,
  currency: Money.Currency,
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String)
})

/** @since 0.1.0 @category schemas */
export const Wallet = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  createdAt: Time.DateTime,
  isBlocked: Schema.Boolean,
  identity: Schema.String,
  currency: Money.Currency,
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String)
}).annotations({ identifier: "Wallet" })
/** @since 0.1.0 */
export type Wallet = typeof Wallet.Type

/** `own`: committed; `available`: own minus held debits. @since 0.1.0 @category schemas */
export const WalletAccount = Schema.Struct({ own: Cash, available: Cash }).annotations({ identifier: "WalletAccount" })

/** A grant token, 1..4000 characters. @since 0.1.0 @category schemas */
export const GrantToken = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4000))

/** `issueWalletGrant`'s body. @since 0.1.0 @category schemas */
export const WalletGrantParams = Schema.Struct({ asset: Cash, validUntil: Time.DateTime })

/** @since 0.1.0 @category schemas */
export const WalletGrant = Schema.Struct({ token: GrantToken, asset: Cash, validUntil: Time.DateTime }).annotations({
  identifier: "WalletGrantRequest"
})

const WalletPath = Schema.Struct({ walletID: Id })

/** @since 0.1.0 @category groups */
export class WalletsGroup extends HttpApiGroup.make("Wallets")
  .add(
    HttpApiEndpoint.get("listWallets", "/wallets")
      .setUrlParams(OwnedListParams)
      .addSuccess(Page(Wallet))
  )
  .add(
    HttpApiEndpoint.post("createWallet", "/wallets")
      .setPayload(WalletParams)
      .addSuccess(Wallet, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(HttpApiEndpoint.get("getWallet", "/wallets/:walletID").setPath(WalletPath).addSuccess(Wallet).addError(NotFound))
  .add(
    HttpApiEndpoint.get("getWalletByExternalID", "/external/wallets")
      .setUrlParams(Schema.Struct({ externalID: Id }))
      .addSuccess(Wallet)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getWalletAccount", "/wallets/:walletID/account")
      .setPath(WalletPath)
      .addSuccess(WalletAccount)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("issueWalletGrant", "/wallets/:walletID/grants")
      .setPath(WalletPath)
      .setPayload(WalletGrantParams)
      .addSuccess(WalletGrant, { status: 201 })
      .addError(NotFound)
      .addError(InvalidOperationParameters)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Wallets")
{}
