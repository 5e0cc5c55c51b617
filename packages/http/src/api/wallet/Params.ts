/**
 * Path and query parameter schemas the wallet and card-token groups share.
 *
 * @since 0.1.0
 */
import { Time } from "@kassa/core"
import * as Schema from "effect/Schema"
import { OperationStatus } from "./Cash.js"

/** A 1..40 character identifier (`identityID`, `walletID`, …). @since 0.1.0 */
export const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(40))

/** An `externalID` in a path: the specification gives no bounds. @since 0.1.0 */
export const ExternalIdParam = Schema.String.pipe(Schema.minLength(1))

/** An ISO 4217 code. @since 0.1.0 */
export const CurrencyID = Schema.String.pipe(Schema.pattern(/^[A-Z]{3}$/))

/** An ISO 3166-1 alpha-3 code, either case (`getResidence`, `listProviders`). @since 0.1.0 */
export const ResidenceParam = Schema.String.pipe(Schema.pattern(/^[A-Za-z]{3}$/))

/** A list's `limit`: 1..1000. @since 0.1.0 */
export const Limit = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1000))

/** An int32 parameter (event ids and cursors). @since 0.1.0 */
export const Int32 = Schema.NumberFromString.pipe(Schema.int(), Schema.between(-2147483648, 2147483647))

/** An int64 parameter, within the safe integer range (amounts, report ids). @since 0.1.0 */
export const Int64 = Schema.NumberFromString.pipe(
  Schema.int(),
  Schema.between(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
)

/** `partyID` in a query: the newer revision's filter. @since 0.1.0 */
export const PartyIdQuery = Schema.optional(Id)

/** A continuation token as the lists hand it out. @since 0.1.0 */
export const ContinuationToken = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))

/** A page of a list: `result`, and `continuationToken` unless it is the last. @since 0.1.0 */
export const Page = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    continuationToken: Schema.optional(Schema.String),
    result: Schema.Array(item)
  })

/** A list's page: `limit` and where it continues. @since 0.1.0 */
export const Paging = {
  limit: Limit,
  continuationToken: Schema.optional(ContinuationToken)
}

/** `listWallets`' and `listDestinations`' query: the party's, of an identity, in a currency. @since 0.1.0 */
export const OwnedListParams = Schema.Struct({
  partyID: PartyIdQuery,
  identityID: Schema.optional(Id),
  currencyID: Schema.optional(CurrencyID),
  ...Paging
})

/** The filters the lists of money movements (deposits and theirs, withdrawals) share. @since 0.1.0 */
export const MovementFilters = {
  status: Schema.optional(OperationStatus),
  createdAtFrom: Schema.optional(Time.DateTime),
  createdAtTo: Schema.optional(Time.DateTime),
  amountFrom: Schema.optional(Int64),
  amountTo: Schema.optional(Int64),
  currencyID: Schema.optional(CurrencyID)
}
