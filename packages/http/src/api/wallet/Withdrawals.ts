/**
 * Withdrawals to destinations, their quotes and events; the specification's `Withdrawals` tag
 * also holds the destinations' operations.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Money, Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { Cash, OperationStatus, SubFailure } from "./Cash.js"
import { Destination, DestinationGrant, DestinationGrantParams, DestinationParams } from "./Destinations.js"
import { ConflictRequest, InvalidOperationParameters, NotFound } from "./Errors.js"
import { ExternalIdParam, Id, Int32, Limit, MovementFilters, OwnedListParams, Page, Paging, PartyIdQuery } from "./Params.js"
import { WalletAuthentication } from "./Security.js"
import { GrantToken } from "./Wallets.js"

/** `createWithdrawal`'s body. @since 0.1.0 @category schemas */
export const WithdrawalParams = Schema.Struct({
  wallet: Schema.String,
  destination: Schema.String,
  body: Cash,
  fee: Schema.optional(Cash),
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String),
  walletGrant: Schema.optional(GrantToken),
  destinationGrant: Schema.optional(GrantToken),
  quoteToken: Schema.optional(GrantToken)
})

/** @since 0.1.0 @category schemas */
export const Withdrawal = Schema.Struct({
  id: Schema.String,
  createdAt: Time.DateTime,
  wallet: Schema.String,
  destination: Schema.String,
  body: Cash,
  fee: Schema.optional(Cash),
  metadata: Schema.optional(Time.Metadata),
  externalID: Schema.optional(Schema.String),
  status: OperationStatus,
  failure: Schema.optional(SubFailure)
}).annotations({ identifier: "Withdrawal" })
/** @since 0.1.0 */
export type Withdrawal = typeof Withdrawal.Type

/** `createQuote`'s body. @since 0.1.0 @category schemas */
export const WithdrawalQuoteParams = Schema.Struct({
  externalID: Schema.optional(Schema.String),
  walletID: Schema.String,
  destinationID: Schema.optional(Schema.String),
  currencyFrom: Money.Currency,
  currencyTo: Money.Currency,
  cash: Cash,
  walletGrant: Schema.optional(GrantToken),
  destinationGrant: Schema.optional(GrantToken)
})

/** @since 0.1.0 @category schemas */
export const WithdrawalQuote = Schema.Struct({
  cashFrom: Cash,
  cashTo: Cash,
  createdAt: Time.DateTime,
  expiresOn: Time.DateTime,
  quoteToken: GrantToken
}).annotations({ identifier: "WithdrawalQuote" })

/** @since 0.1.0 @category schemas */
export const WithdrawalEvent = Schema.Struct({
  eventID: Schema.Int,
  occuredAt: Time.DateTime,
  changes: Schema.Array(Schema.Struct({
    type: Schema.Literal("WithdrawalStatusChanged"),
    status: OperationStatus,
    failure: Schema.optional(SubFailure)
  }))
}).annotations({ identifier: "WithdrawalEvent" })

const DestinationPath = Schema.Struct({ destinationID: Id })
const WithdrawalPath = Schema.Struct({ withdrawalID: Id })
const ExternalPath = Schema.Struct({ externalID: ExternalIdParam })

/** @since 0.1.0 @category groups */
export class WithdrawalsGroup extends HttpApiGroup.make("Withdrawals")
  .add(
    HttpApiEndpoint.get("listDestinations", "/destinations")
      .setUrlParams(OwnedListParams)
      .addSuccess(Page(Destination))
  )
  .add(
    HttpApiEndpoint.post("createDestination", "/destinations")
      .setPayload(DestinationParams)
      .addSuccess(Destination, { status: 201 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getDestination", "/destinations/:destinationID")
      .setPath(DestinationPath)
      .addSuccess(Destination)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getDestinationByExternalID", "/external-ids/destinations/:externalID")
      .setPath(ExternalPath)
      .addSuccess(Destination)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("issueDestinationGrant", "/destinations/:destinationID/grants")
      .setPath(DestinationPath)
      .setPayload(DestinationGrantParams)
      .addSuccess(DestinationGrant, { status: 201 })
      .addError(NotFound)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.post("createQuote", "/withdrawal-quotes")
      .setPayload(WithdrawalQuoteParams)
      .addSuccess(WithdrawalQuote, { status: 202 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("listWithdrawals", "/withdrawals")
      .setUrlParams(Schema.Struct({
        partyID: PartyIdQuery,
        walletID: Schema.optional(Id),
        identityID: Schema.optional(Id),
        withdrawalID: Schema.optional(Id),
        destinationID: Schema.optional(Id),
        ...MovementFilters,
        ...Paging
      }))
      .addSuccess(Page(Withdrawal))
  )
  .add(
    HttpApiEndpoint.post("createWithdrawal", "/withdrawals")
      .setPayload(WithdrawalParams)
      .addSuccess(Withdrawal, { status: 202 })
      .addError(ConflictRequest)
      .addError(InvalidOperationParameters)
  )
  .add(
    HttpApiEndpoint.get("getWithdrawal", "/withdrawals/:withdrawalID")
      .setPath(WithdrawalPath)
      .addSuccess(Withdrawal)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getWithdrawalByExternalID", "/external-ids/withdrawals/:externalID")
      .setPath(ExternalPath)
      .addSuccess(Withdrawal)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("pollWithdrawalEvents", "/withdrawals/:withdrawalID/events")
      .setPath(WithdrawalPath)
      .setUrlParams(Schema.Struct({ limit: Limit, eventCursor: Schema.optional(Int32) }))
      .addSuccess(Schema.Array(WithdrawalEvent))
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getWithdrawalEvents", "/withdrawals/:withdrawalID/events/:eventID")
      .setPath(Schema.Struct({ withdrawalID: Id, eventID: Int32 }))
      .addSuccess(WithdrawalEvent)
      .addError(NotFound)
  )
  .middleware(WalletAuthentication)
  .annotate(OpenApi.Title, "Withdrawals")
{}
