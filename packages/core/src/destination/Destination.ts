/**
 * The destination: where an identity's withdrawals go. Kassa pays out to bank cards, named by a
 * card token of the card-token interface; the destination keeps the vault's token of the card,
 * so it outlives the 64-minute card token. It starts `Unauthorized` and the payout provider
 * authorizes it (`DestinationAuthorization`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** @since 0.1.0 @category schemas */
export const DestinationStatus = Schema.Literal("Unauthorized", "Authorized")
/** @since 0.1.0 */
export type DestinationStatus = typeof DestinationStatus.Type

/** A resource as the request sends it (both revisions' three kinds; Kassa serves bank cards). @since 0.1.0 @category models */
export type DestinationResourceParams =
  | { readonly type: "BankCardDestinationResource"; readonly token: string }
  | { readonly type: "CryptoWalletDestinationResource"; readonly id: string; readonly currency: string }
  | { readonly type: "DigitalWalletDestinationResource"; readonly id: string; readonly provider: string }

/** createDestination's body. @since 0.1.0 @category models */
export interface DestinationParams {
  readonly name: string
  readonly identity: string
  readonly currency: string
  readonly resource: DestinationResourceParams
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
}

/** The card a destination pays out to, as it may be shown. @since 0.1.0 @category schemas */
export const BankCardResource = Schema.Struct({
  type: Schema.Literal("BankCardDestinationResource"),
  token: Schema.String,
  bin: Schema.String,
  lastDigits: Schema.String,
  paymentSystem: Schema.String
})
/** @since 0.1.0 */
export type BankCardResource = typeof BankCardResource.Type

/** The destination as stored. @since 0.1.0 @category models */
export interface DestinationRecord {
  readonly id: string
  readonly partyID: string
  readonly identityID: string
  readonly name: string
  readonly currency: string
  readonly resource: BankCardResource
  /** The vault's token of the card: what payouts read the card by. */
  readonly vaultToken: string
  readonly status: DestinationStatus
  readonly isBlocked: boolean
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly externalID?: string | undefined
  readonly createdAt: Date
  readonly version: number
}

/** The destination as both revisions show it. @since 0.1.0 */
export const toDestination = (d: DestinationRecord) => ({
  id: d.id,
  name: d.name,
  createdAt: d.createdAt,
  isBlocked: d.isBlocked,
  identity: d.identityID,
  currency: d.currency,
  resource: d.resource,
  status: d.status,
  ...(d.metadata === undefined ? {} : { metadata: d.metadata }),
  ...(d.externalID === undefined ? {} : { externalID: d.externalID })
})

/** What `listDestinations` filters by. @since 0.1.0 @category models */
export interface DestinationFilter {
  readonly partyID: string
  readonly identityID?: string | undefined
  readonly currencyID?: string | undefined
}

/** Whether a destination passes `filter` (the memory adapter's reading). @since 0.1.0 */
export const matches = (d: DestinationRecord, filter: DestinationFilter): boolean =>
  d.partyID === filter.partyID &&
  (filter.identityID === undefined || d.identityID === filter.identityID) &&
  (filter.currencyID === undefined || d.currency === filter.currencyID)

/** issueDestinationGrant's body. @since 0.1.0 @category models */
export interface DestinationGrantParams {
  readonly validUntil: Date
}
